// hints.py: ten lets, seventeen prints and eleven memcmp()s at one place,
// the shape of the peer tool's member-pointer probe, on values.c's
// cstr ("hello"): every OK line prints.
trace show {
    let key = cstr;
    let key_len = 5;
    let half = key_len / 2;
    let tail_len = key_len - 1;
    let idx = key_len - 3;
    let body = cstr + 1;
    let body_tail = cstr + 3;
    let key_tail = key + idx;
    let body_tail2 = cstr + idx;
    let k2 = u16 - 65530;
    print "A={:s.5}", key;
    print "B={:s.4}", body;
    print "C={:x.4}", cstr;
    print "D={}:{}:{}", key_len, half, tail_len;
    print "E={}:{}", key_len + half, tail_len - 5;
    print "F={}:{}:{}", key_len / 2, (tail_len + -5) / 2, (half + -7) / -2;
    print "G={:s.3}", key + 2;
    print "H={:s.2}", &key[2];
    print "I={:s.key_len$}", key;
    print "J={:s.half$}", key;
    print "K={:s.tail_len$}", key + 1;
    print "L={:s.3}", key_tail;
    print "M={:s.3}", &key[idx];
    print "N={:x.3}", body;
    print "O={:s.2}", body_tail;
    print "P={:s.2}", body_tail2;
    print "Q={}", k2;
    if memcmp(key, hex("6865"), 2) { print "OK1"; }
    if memcmp(body, body, 4) { print "OK2"; }
    if memcmp(key + 1, hex("656c"), 2) { print "OK3"; }
    if memcmp(&key[1], hex("656c"), 2) { print "OK4"; }
    if memcmp(key_tail, hex("6c6c6f"), 3) { print "OK5"; }
    if memcmp(&key[idx], hex("6c6c"), 2) { print "OK6"; }
    if memcmp(idx + key, hex("6c"), 1) { print "OK7"; }
    if memcmp(body, hex("656c6c6f"), 4) { print "OK8"; }
    if memcmp(body_tail, hex("6c6f"), 2) { print "OK9"; }
    if memcmp(body_tail2, hex("6c6c6f"), 3) { print "OK10"; }
    if memcmp(cstr, key, 5) && k2 == 5 && half == 2 { print "OK11"; }
}
