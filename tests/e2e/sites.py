"""sites.py - a probe with several sites: a variable one site lacks is
<optimized out> there and read at the others, as gdb prints it; only a
variable no site has is an error, and the error names the site (module,
address, function and what it is inlined into).  The sites fixture has
shared_name() in the program (parameters a, count) and in libfix_sites
(b, count); inline's twice() is inlined twice into multiline()."""
import os
import re

from wraithtest import *

require_root()

SCRIPT = 'trace shared_name { print "a={} b={} count={}", a, b, count; }'

for variant in ("O0", "O2", "clang-O0", "clang-O2"):
    fx = Fixture("sites-" + variant, [1000])
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 6, "--script-output", "json", "-q"])
    evs = json_events(res.stdout)
    check(res.returncode == 0 and len(evs) == 6, "%s: exit 0, 6 events (%s)" % (variant, res.stderr[-300:]))
    seen = set()
    for e in evs:
        text = e["items"][0]["text"]
        m = re.match(r"^a=(\d+) b=<optimized out> count=2$", text)
        n = re.match(r"^a=<optimized out> b=(\d+) count=3$", text)
        if m:
            seen.add("program")
        elif n and int(n.group(1)) % 10 == 0:
            seen.add("library")
        else:
            fail("%s: a value of the wrong site or form: %r" % (variant, text))
    eq(seen, {"program", "library"}, "%s: each site prints its own parameter and the other's as "
       "<optimized out>" % variant)
    res = run(["-p", fx.pid, "-s", 'trace shared_name { print "{}", nope; }'])
    check(res.returncode == 2 and re.search(r"no variable 'nope' is visible at shared_name \(site 1 of 2: "
                                             r"sites-%s\+0x[0-9a-f]+ in shared_name\)" % re.escape(variant),
                                             res.stderr),
          "%s: a variable no site has is an error naming the site (%r)" % (variant, res.stderr))
    # a program over BPF's jump range is refused before LLVM would abort:
    # the sites' forms together are compiled one by one instead, and one
    # site's program alone over it is an error at the probe's place
    # (WRAITH_MAX_PROBE_IR lowers the limit to what these programs reach)
    env = dict(os.environ, WRAITH_MAX_PROBE_IR="700")
    res = run(["-p", fx.pid, "--probe-cache", "off", "-s", 'trace shared_name { bt full; print "{} {}", a, b; }',
               "--max-events", 6, "--script-output", "json", "-q"], env=env)
    texts = {e["items"][-1]["text"].split()[0] == "<optimized" for e in json_events(res.stdout)}
    check(res.returncode == 0 and texts == {True, False},
          "%s: forms too large for one program are compiled each alone, both sites fire (%r)"
          % (variant, res.stderr[-300:]))
    env["WRAITH_MAX_PROBE_IR"] = "300"
    res = run(["-p", fx.pid, "--probe-cache", "off", "-s", "trace shared_name { bt full; }"], env=env)
    check(res.returncode == 2 and re.search(r"<script>:1:7: error: the program for shared_name .* is too large "
                                             r"for BPF \(\d+ IR instructions; at most 300\)", res.stderr),
          "%s: a site's program over the limit is an error, not an abort (%r)" % (variant, res.stderr[-300:]))
    fx.stop()

fx = Fixture("inline-O2", [1000])
res = run(["-p", fx.pid, "-s", 'trace twice { print "{}", nope; }'])
check(res.returncode == 2 and re.search(r"no variable 'nope' is visible at twice \(site 1 of 2: inline-O2\+0x[0-9a-f]+ "
                                         r"in twice, inlined into multiline\)", res.stderr),
      "an inlined site is named with the function it is inlined into (%r)" % res.stderr)
fx.stop()
check_no_leftovers("after the multi-site probes")
finish()
