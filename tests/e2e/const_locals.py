"""const_locals.py - locals whose values the compiler knows as constants
(DW_AT_const_value), in each form compilers write: gdb's bt full lists a
local held as a number (GCC's data4 and data8, clang's sdata and udata)
and leaves out one held as bytes (a double or long double block, GCC's
16-byte __int128, the text of GCC's __PRETTY_FUNCTION__); wraith's bt
full at leaf() lists consts()'s locals as gdb's, the same names in the
same order with gdb's values.  print shows each as gdb's print does at
the call line: the long double from clang's 10-byte constant, the
string constant as a char array.  gcc and clang, -O0 (every local in
memory) and -O2."""
from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()

CALL = "constlocals.c:%d" % marker_line("constlocals.c", "/* CALL-LINE")
LOCAL = re.compile(r"^\s+(\w+) = (.*)$")


def consts_locals(text):
    """[(name, value)] of the consts frame in one backtrace's text."""
    out, inside = [], False
    for line in text.splitlines():
        if re.match(r"^\s*#\S+ ", line):
            inside = re.match(r"^\s*#\S+\s+(?:0x[0-9a-f]+ in )?consts ?\(", line) is not None
            continue
        m = LOCAL.match(line)
        if inside and m:
            out.append(m.groups())
    return out


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    name = "constlocals-" + v
    names = ["big", "mid", "d", "ld", "w"] + ([] if "clang" in v else ["__PRETTY_FUNCTION__"])
    fx = Fixture(name)
    body = " ".join("print %s;" % n for n in names)
    res = run(["-p", fx.pid, "-s", "trace leaf { bt full; } trace %s { %s }" % (CALL, body),
               "--max-events", 2, "--script-output", "json", "-q"])
    gdb_bt = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break leaf", "-ex", "continue",
                             "-ex", "bt full 2", "-ex", "detach"], capture_output=True, text=True,
                            timeout=120).stdout
    gdb_print = gdb_values(fx.pid, names, where=CALL)
    fx.stop()
    check(res.returncode == 0, "%s: both probes run (%s)" % (name, res.stderr[-400:]))
    events = json_events(res.stdout)
    frames = [f for e in events for it in e["items"] if it["type"] == "backtrace" for f in it["frames"]]
    mine = [(a["name"], a["value"]) for f in frames if f.get("function") == "consts" for a in f.get("locals", [])]
    theirs = consts_locals(gdb_bt)
    check(theirs, "%s: gdb's bt full shows consts's locals (%s)" % (name, gdb_bt[-600:]))
    eq([n for n, _ in mine], [n for n, _ in theirs], "%s: consts's locals in bt full are gdb's, in its order" % name)
    for (n, val), (_, gval) in zip(mine, theirs):
        eq(normalize(val), normalize(gval), "%s: bt full's %s is gdb's" % (name, n))
    printed = dict(it["text"].split(" = ", 1) for e in events for it in e["items"] if it["type"] == "print")
    for n, gval in zip(names, gdb_print):
        check(gval is not None, "%s: gdb prints %s at %s" % (name, n, CALL))
        eq(normalize(printed.get(n, "<missing>")), normalize(gval or ""), "%s: print %s is gdb's" % (name, n))
check_no_leftovers("after locals of constant value")
finish()
