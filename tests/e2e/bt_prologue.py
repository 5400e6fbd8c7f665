"""bt_prologue.py - a caller's values in registers a call may clobber,
seen from a probe past the callee's prologue (prologue.c).  `trace keep`
stands after keep's pushes and moves, where gdb's `break keep` stops
(clang -O2 pushes r15, r14 and rbx there); lookup(), inlined into main,
passed n (read from a volatile) in rsi, which those instructions leave
alone, so it still holds n: gdb's bt reads it there and so does wraith's bt args (it showed
<optimized out>).  wraith reads the code from keep's entry to the probe
and takes, of the registers a call may clobber, only those none of
those instructions writes, and only when no jump lands in between.
lookup's and keep's arguments equal gdb's bt at the same stops of the
same process, for each of main's three calls; gcc and clang-19, -O0 and
-O2."""
import subprocess

from wraithtest import *

require_root()


def lookup_args(frames):
    """{j: (lookup's args, keep's args)} of the backtraces' frames.  n
    changes from call to call: keep's is "N", and lookup's when it is
    keep's (it passed it on), which is what a stop shows of it."""
    out = {}
    for bt in frames:
        f = dict(bt)
        args, callee = split_args(f.get("lookup", "")), split_args(f.get("keep", ""))
        if args.get("n") == callee.get("n"):
            args["n"] = "N"
        if re.match(r"\d+$", callee.get("n", "")):
            callee["n"] = "N"
        if "j" in args:
            out[args["j"]] = (args, callee)
    return out


for build in ("prologue-O0", "prologue-O2", "prologue-clang-O0", "prologue-clang-O2"):
    fx = Fixture(build)
    res = run(["-p", fx.pid, "-s", "trace keep { bt args; }", "--max-events", 6, "--script-output", "json",
               "-q"])
    ours = []
    for ev in json_events(res.stdout):
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        ours.append([(f["function"], ", ".join("%s=%s" % (a["name"], a["value"]) for a in f.get("args", [])))
                     for f in bt["frames"]])
    argv = ["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break keep"]
    for _ in range(3):
        argv += ["-ex", "continue", "-ex", "bt 3"]
    gdb = subprocess.run(argv + ["-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    fx.stop()
    theirs = [re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\w+) \((.*)\) at ", t, re.M)
              for t in re.split(r"^(?=#0 )", gdb, flags=re.M)[1:]]
    mine, gdbs = lookup_args(ours), lookup_args(theirs)
    # (gcc -O2 keeps no j at the call)
    js = ["<optimized out>"] if build == "prologue-O2" else ["0", "1", "2"]
    eq(sorted(gdbs), js, "%s: gdb stops at keep called for each j (%s)" % (build, gdb[-600:]))
    eq(sorted(mine), js, "%s: wraith's events are keep's calls for each j (%r)" % (build, ours[:1]))
    for j in sorted(set(mine) & set(gdbs)):
        eq(mine[j][0], gdbs[j][0], "%s: lookup's arguments for j=%s are gdb's" % (build, j))
        eq(mine[j][1], gdbs[j][1], "%s: keep's arguments for j=%s are gdb's" % (build, j))
    if build == "prologue-clang-O2":
        # the case: past three pushes and two moves, rsi still holds n
        check(all(mine[j][0].get("n") == "N" for j in mine),
              "%s: lookup's n, in rsi, is shown past keep's prologue (%r)" % (build, mine))
check_no_leftovers("after the prologues")
finish()
