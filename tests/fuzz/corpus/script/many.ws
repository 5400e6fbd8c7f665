// probes of every target kind
trace main { bt; }
trace vars.c:47 { print "{} {}", $pid, $tid; print $timestamp; }
trace 0x1189 { print "{:x.8} {:s.*} {:x.n$}", p, 4, s, q; }
trace libc.so.6:0x27200 { /* comment */ print "\x41\n\t\"{{}}\"", 1 / 0 % 2 != 3 >= 4; }
trace ns::Class::method { print memcmp(a, hex("de ad be ef"), 4) || !true; }
