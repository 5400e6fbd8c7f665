"""bt_values.py - frame values: `bt args` shows each frame's parameters
and `bt full` adds its locals, compared with gdb's `bt` and `bt full` at
leaf of fvals.c (the same values at every call), in gcc and clang builds.

At -O0 every parameter and local that fvals.c sets before the call is
known to both tools and must be equal (pointers: both show an address and
the same <symbol>; the processes differ, so the addresses may too).  At -O2
the rule is that wraith never shows a wrong value: where it shows one gdb
shows the same, and what gdb cannot recover wraith does not claim; gdb knows more
(entry values) and may show what wraith calls <optimized out>.  The text
output has gdb's form `#1 mid(depth=12, tag=42, ratio=2.5) at ...`, and a
plain `bt` carries no values."""
import json
import os
import re
import subprocess
import tempfile

from bt_support import *

require_root()

_GDB = r'''
import gdb, json

def _vars(frame):
    try:
        b = frame.block()
    except RuntimeError:
        return None
    args, locs = [], []
    while b is not None:
        for sym in b:
            if not (sym.is_variable or sym.is_argument):
                continue
            try:
                v = sym.value(frame)
                s = "<optimized out>" if v.is_optimized_out else str(v)
            except Exception:
                s = "<error>"
            (args if sym.is_argument else locs).append([sym.name, s])
        if b.function is not None:
            break
        b = b.superblock
    return {"args": args, "locals": locs}

for c in ["set pagination off", "set confirm off", "set print entry-values no"]:
    gdb.execute(c)
gdb.execute("break leaf")
gdb.execute("run 1000", to_string=True)
out, f = [], gdb.newest_frame()
while f is not None:
    out.append({"name": f.name() or "??", "inline": f.type() == gdb.INLINE_FRAME, "vars": _vars(f)})
    if f.name() == "main":
        break
    f = f.older()
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("kill")
'''

# Set before the calls below them in fvals.c, so both tools see them set
# (not leaf's twice: gdb stops before it is set, a probe on leaf after).
LOCALS = {"local", "k", "interval"}
MISSING = ("<optimized out>", "<unavailable>")


def gdb_values(binary):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(_GDB)
        path = f.name
    try:
        res = subprocess.run(["gdb", "-batch", "-nx", "-x", path, binary], capture_output=True,
                             text=True, timeout=120)
    finally:
        os.unlink(path)
    for l in res.stdout.splitlines():
        if l.startswith("WRVALUES "):
            return json.loads(l[9:])
    print("gdb gave no frames: %s%s" % (res.stdout[-1000:], res.stderr[-1000:]))
    return None


def symbol(v):
    m = re.search(r" (<[^>]*>)", v)
    return m.group(1) if m else None


def same(w, g):
    if w.startswith("0x") and g.startswith("0x"):
        # pointers: two processes, two addresses, but the same <symbol>
        return symbol(w) == symbol(g)
    return w == g


def compare(label, bt, gframes, exact):
    wframes = [f for f in bt["frames"]]
    n = 0
    for wf, gf in zip(wframes, gframes):
        if wf["function"] != gf["name"] or gf["vars"] is None:
            break
        n += 1
        for kind in ("args", "locals"):
            wv = dict((v["name"], v["value"]) for v in wf.get(kind, []))
            gv = dict(gf["vars"][kind])
            if kind == "args":
                eq(sorted(wv), sorted(gv), "%s: %s has gdb's parameters" % (label, gf["name"]))
            for name, g in gv.items():
                if name not in wv or (kind == "locals" and name not in LOCALS):
                    continue
                w = wv[name]
                what = "%s: %s %s=%s (gdb: %s)" % (label, gf["name"], name, w, g)
                if exact:
                    check(w not in MISSING and same(w, g), what + " known and equal")
                elif w not in MISSING:
                    check(g not in MISSING and same(w, g), what + " shown only when right")
        if wf["function"] == "main":
            break
    check(n >= 4, "%s: leaf, mid, top and main compared (%d frames)" % (label, n))


def one(v):
    name = "fvals-%s" % v
    fx = Fixture(name, [1000])
    try:
        res, bts = wraith_bts(fx.pid, script="trace leaf { bt full; }")
        text = run(["-p", fx.pid, "-s", "trace leaf { bt args; bt; }", "--max-events", 1,
                    "--timeout", 20])
    finally:
        fx.stop()
    return v, res, bts, text, gdb_values(fixture(name))


for v, res, bts, text, gframes in parallel(one, ("O0", "O2", "clang-O0", "clang-O2")):
    label = "fvals-%s" % v
    if not check(res.returncode == 0 and len(bts) == 1 and gframes,
                 "%s: a backtrace from each tool (rc %s, %r)" % (label, res.returncode, res.stderr[-300:])):
        continue
    bt = bts[0][1]
    check(bt["status"] == "complete", "%s: complete" % label)
    check(all("locals" in f for f in bt["frames"] if f["function"]), "%s: bt full has locals" % label)
    compare(label, bt, gframes, v.endswith("O0"))
    lines = text.stdout.splitlines()
    if v.endswith("O0"):
        check(any(re.search(r"#\d+ mid\(depth=12, tag=42, ratio=2\.5\) at fvals\.c:\d+", l) for l in lines),
              "%s: bt args shows mid(depth=12, tag=42, ratio=2.5) as gdb's bt does\n%s" % (label, text.stdout))
    check(any(re.search(r"#\d+ mid\(int depth, unsigned short tag, double ratio\)", l) for l in lines),
          "%s: a plain bt in the same probe shows no values" % label)

check_no_leftovers("after the frame values test")
finish()
