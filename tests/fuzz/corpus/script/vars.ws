trace probe_here {
    print "n={} small={} big={} flag={} letter={} color={}", n, small, big, flag, letter, color;
    print "id={} name={} tags={} t2={} pos={} y={}", req.id, req.name, req.tags, req.tags[2], req.pos, req.pos.y;
    if req.name == "req-10" { print "ten"; } else if n % 3 == 1 { bt raw full; } else { bt noinline; }
    if starts_with(req.name, "req-1") && strncmp(label, "vars", 4) { print "starts {:x} {:p}", n, req; }
    let s = (n + 1) * -small << 2;
    print "{:s} {:X} {}", req.name, ~s, cast(req, "struct request *")->id;
}
