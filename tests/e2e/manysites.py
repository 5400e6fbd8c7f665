"""manysites.py - a probe of 400 sites (manysites.c: hot() inlined at 400
places, each passing its own number as `site`), built by gcc and clang at
-O2 and gcc at -O0.

Every site fires and reads its own values: over a few rounds the events
give each `site` from 0 to 399, and one pc always the same number.  `print`
and `bt args` in the same event agree on every parameter of hot's frame
wherever the backtrace has that frame (at some gcc -O2 sites only the
location views put the pc in hot: bt shows the caller's frame there).
gdb at the same pc of the same process says the same `site` at a
sample of the sites.  The test says which links the uprobes attached as
and how long the run took (start-up is measured by bench/).
"""
import json
import re
import time

from wraithtest import *

require_root()

N = 400
SCRIPT = 'trace hot { print "{}|{}|{}", $pc, v, site; bt args; }'



def one(build):
    fx = Fixture(build, [2000])
    t0 = time.monotonic()
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 3 * N, "--timeout", 400, "--script-output",
               "json", "-v"], timeout=900)
    took = time.monotonic() - t0
    check(res.returncode == 0, "%s: wraith traces hot (%s)" % (build, res.stderr.strip()[-300:]))
    m = re.search(r"probe 1: 'hot' resolved to (\d+) sites", res.stderr)
    eq(int(m.group(1)) if m else None, N, "%s: hot has %d sites" % (build, N))
    multi = "uprobes: attached as multi-uprobe links" in res.stderr
    print("info %s: %d sites, %s links, run of %.1f s" % (build, N, "multi-uprobe" if multi else "perf event",
                                                        took))
    by_pc, agree, framed = {}, 0, 0
    for ev in json_events(res.stdout):
        pr = [it for it in ev["items"] if it["type"] == "print"][0]
        pc, v, site = pr["args"]
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        check(site["error"] is None, "%s: site is read at %s (%r)" % (build, pc["value"], site))
        by_pc.setdefault(pc["value"], set()).add(site["value"])
        frame = bt["frames"][0] if bt["frames"] and bt["frames"][0]["function"] == "hot" else None
        if frame is None:
            continue
        framed += 1
        args = dict((a["name"], str(a["value"])) for a in frame.get("args", []))
        shown = {"v": str(v["value"]) if v["error"] is None else "<optimized out>",
                 "site": str(site["value"])}
        if args == shown:
            agree += 1
        else:
            fail("%s at %s: print says %r, bt args %r" % (build, pc["value"], shown, args))
    sites = set(s for ss in by_pc.values() for s in ss)
    eq(sites, set(range(N)), "%s: every site fired, each with its own number" % build)
    check(all(len(ss) == 1 for ss in by_pc.values()), "%s: one pc, one site number" % build)
    check(framed > 0 and agree == framed, "%s: print and bt args agree in all %d events with hot's frame"
          % (build, framed))
    # gdb at a sample of the pcs
    sample = sorted(by_pc)[::40]
    pcs = [int(p, 16) for p in sample]
    gv = gdb_frame_values(fx.pid, pcs, "hot", ("v", "site"))
    fx.stop()
    compared = 0
    for p in sample:
        g = gv.get("%x" % int(p, 16))
        if g is None:
            continue  # gdb has no hot frame there (a pc only the views place in hot)
        compared += 1
        eq(re.sub(r" .*", "", g["site"]), str(next(iter(by_pc[p]))), "%s at %s: site is gdb's" % (build, p))
    check(compared > 0 or build.endswith("-O2"), "%s: gdb compared at %d of %d sample pcs" %
          (build, compared, len(sample)))


for build in ("manysites-O2", "manysites-clang-O2", "manysites-O0"):
    one(build)
finish()
