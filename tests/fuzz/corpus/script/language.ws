trace probe_here {
    print "{} {} {} {}", req->id, req->pos.x, $host_pid, $tid;
    let len = req->id & 15;
    print "{:x.16} {:X.4} {:s.8} {:x.*} {:s.len$}", req, req->tags, req->name, 4, req, label;
    if memcmp(req->name, hex("72 65 71 2d")) && memcmp(req, label, 4) { print "m"; }
    if strncmp(req->tags, "abc", n % 4) || starts_with(&req->name[1], "eq") { print "s"; }
    print "{} {} {} {}", 18446744073709551615u, 1.5e3, 0.5f, ~n | -1;
    print "{} {}", req->tags[n - 1], *&req->pos;
}
