"""bt_values.py - frame values: `bt args` shows each frame's parameters
and `bt full` adds its locals, compared with gdb's `bt` and `bt full` at
leaf of fvals.c (the same values at every call), in gcc and clang builds at
-O0, -O2 and -O2 with frame pointers.

Every parameter, and every local that fvals.c sets before the call, must
be what gdb shows: the same value where gdb knows it (pointers: both show
an address and the same <symbol>; the processes differ, so the addresses
may too; a char pointer the same string: top's name, a literal read from
the executable's file, as is top's static const table; structs in wraith's shape {a: 7, b: 8}), <optimized out> where
gdb says so.  clang -O2 keeps leaf's struct q in two registers with a
padding piece between them (DW_OP_piece): shown whole, as gdb does.  At -O2 hop's parameters are
dead once it has called leaf: at its return address their locations are
DW_OP_entry_value (gdb's `info address` says so), recovered from mid's
call site, and for gcc's depth from top's call site in turn (mid passed on
its own entry value); both show them as depth=depth@entry=12 (in wraith's
JSON "entry": true).  gdb looks past main (`set backtrace past-main on`),
where libc's call site says main's argc and argv.  The text output has
gdb's form `#2 mid(depth=12, tag=42, ratio=2.5) at ...`, and a plain `bt`
carries no values."""
import json
import re

from bt_support import *

require_root()

_GDB = r'''
import gdb, json, re

def _entry_only(frame, sym):
    # Is the parameter's location at the frame's pc (a caller's: its return
    # address less one) DW_OP_entry_value, what only the caller's call site says?
    pc = frame.pc() - (0 if frame.level() == 0 else 1)
    try:
        frame.select()
        text = gdb.execute("info address " + sym.name, to_string=True)
    except gdb.error:
        return False
    for part in text.split("Range ")[1:]:
        m = re.match(r"(0x[0-9a-f]+)-(0x[0-9a-f]+):", part)
        if m and int(m.group(1), 16) <= pc < int(m.group(2), 16):
            return "DW_OP_entry_value" in part
    return False

def _vars(frame):
    try:
        b = frame.block()
    except RuntimeError:
        return None
    args, locs, entry = [], [], []
    while b is not None:
        for sym in b:
            if not (sym.is_variable or sym.is_argument):
                continue
            try:
                v = sym.value(frame)
                # is_optimized_out is true when any bit is (a struct's padding
                # piece); str() shows what print shows
                s = str(v)
            except Exception:
                s = "<error>"
            (args if sym.is_argument else locs).append([sym.name, s])
            if sym.is_argument and _entry_only(frame, sym):
                entry.append(sym.name)
        if b.function is not None:
            break
        b = b.superblock
    return {"args": args, "locals": locs, "entry": entry}

# past main: gdb resolves main's entry values through libc's call site
for c in ["set pagination off", "set confirm off", "set print entry-values no",
          "set backtrace past-main on"]:
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
LOCALS = {"local", "k", "interval", "table"}
MISSING = ("<optimized out>", "<unavailable>")


def gdb_missing(g):
    # a struct none of whose members has a value: gdb spells out each
    # member's <optimized out>, wraith says it once
    return g in MISSING or (g.startswith("{") and
                            not re.sub(r"[{}, ]|\w+ = <optimized out>", "", g))


def gdb_values(binary):
    got = gdb_python(_GDB, binary)
    return got[0] if got else None


def symbol(v):
    m = re.search(r" (<[^>]*>)", v)
    return m.group(1) if m else None


def pointed(v):
    m = re.search(r' ("(?:[^"\\]|\\.)*"(?:\.\.\.)?)$', v)
    return m.group(1) if m else None


def same(w, g):
    if g.startswith("{") and w.startswith("["):
        g = "[" + g[1:-1] + "]"  # wraith's shape of an array: [5, 6, 7]
    if g.startswith("{"):
        g = g.replace(" = ", ": ")  # wraith's shape of a struct: {a: 7, b: 8}
    if w.startswith("0x") and g.startswith("0x"):
        # pointers: two processes, two addresses, but the same <symbol>
        return symbol(w) == symbol(g) and pointed(w) == pointed(g)
    return w == g


def compare(label, bt, gframes, optimized):
    wframes = [f for f in bt["frames"]]
    n = entries = 0
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
                if name not in wv or (kind == "locals" and name not in LOCALS) or g == "<error>":
                    continue  # <error>: gdb cannot read it (clang's 16-byte spill of a double)
                w = wv[name]
                what = "%s: %s %s=%s (gdb: %s)" % (label, gf["name"], name, w, g)
                if gdb_missing(g):
                    check(w in MISSING, what + " unknown to both")
                    continue
                check(w not in MISSING and same(w, g), what + " known and equal")
                if kind == "args" and n > 1 and name in gf["vars"]["entry"]:
                    entries += 1
        if wf["function"] == "main":
            break
    check(n >= 5, "%s: leaf, hop, mid, top and main compared (%d frames)" % (label, n))
    if optimized:
        check(entries >= 2, "%s: %d parameters of callers that only their entry values say, "
              "known and equal to gdb's" % (label, entries))


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


for v, res, bts, text, gframes in parallel(one, ("O0", "O2", "O2fp", "clang-O0", "clang-O2", "clang-O2fp")):
    label = "fvals-%s" % v
    if not check(res.returncode == 0 and len(bts) == 1 and gframes,
                 "%s: a backtrace from each tool (rc %s, %r)" % (label, res.returncode, res.stderr[-300:])):
        continue
    bt = bts[0][1]
    check(bt["status"] == "complete", "%s: complete" % label)
    if not check(all("locals" in f for f in bt["frames"] if f["function"]),
                 "%s: bt full has locals" % label):
        # seen once, every frame without values, under a load of 30 on 2
        # CPUs (ASan): what the event held, for the next time
        print("the bt item: %s\nwraith's stderr: %s" % (json.dumps(bt)[:3000], res.stderr[-2000:]))
    compare(label, bt, gframes, "O2" in v)
    lines = text.stdout.splitlines()
    if v.endswith("O0"):
        check(any(re.search(r"#\d+ mid\(depth=12, tag=42, ratio=2\.5\) at fvals\.c:\d+", l) for l in lines),
              "%s: bt args shows mid(depth=12, tag=42, ratio=2.5) as gdb's bt does\n%s" % (label, text.stdout))
    check(any(re.search(r"#\d+ mid\(int depth, unsigned short tag, double ratio\)", l) for l in lines),
          "%s: a plain bt in the same probe shows no values" % label)

check_no_leftovers("after the frame values test")
finish()
