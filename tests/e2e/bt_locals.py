"""bt_locals.py - `bt full` at leaf of locals.c lists mid's locals as
gdb's bt full does, the same names in the same order, and a struct
local's char * member with its string, as gdb shows it ("alpha", read
from the program's read-only data); gcc and clang, -O0 and -O2.  _start,
which has no debug info, is `_start` in bt args as in bt (no parameter
list), and bt full says of it what gdb's says."""
import subprocess

from wraithtest import *

require_root()


def gdb_mid_locals(binary):
    """[(name, value)] of mid's locals in gdb's bt full at leaf."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break leaf", "-ex", "run", "-ex", "bt full",
                          "-ex", "kill", binary], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"^#1 .* mid .*\n((?:        .*\n)*)", out, re.M)
    return re.findall(r"^        (\w+) = (.*)$", m.group(1), re.M) if m else None


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    name = "locals-" + v
    fx = Fixture(name)
    res = run(["-p", fx.pid, "-s", "trace leaf { bt full; }", "--max-events", 1, "--script-output", "plain", "-q"])
    fx.stop()
    m = re.search(r"^  #1 mid\(.*\n((?:        .*\n)*)", res.stdout, re.M)
    ours = re.findall(r"^        (\w+) = (.*)$", m.group(1), re.M) if m else None
    gdb = gdb_mid_locals(fixture(name))
    check(ours is not None and gdb is not None, "%s: both list mid's locals (%r)" % (name, res.stdout[:500]))
    if ours is None or gdb is None:
        continue
    eq([n for n, _ in ours], [n for n, _ in gdb], "%s: mid's locals are gdb's, in its order" % name)
    m = re.search(r"^  #\d+ _start(.*)\n(.*)\n", res.stdout, re.M)
    check(m and m.group(1).startswith(" [") and m.group(2) == "        No symbol table info available.",
          "%s: _start without a parameter list, and gdb's words for its locals (%r)"
          % (name, m.group(0) if m else res.stdout[-300:]))
    theirs = dict(gdb)
    mine = dict(ours)
    if '"alpha"' in theirs.get("r", ""):
        check(re.match(r'\{name: 0x[0-9a-f]+ "alpha", id: 3\}$', mine.get("r", "")),
              "%s: r's char * member shows its string as gdb's does (%r)" % (name, mine.get("r")))
    for n, val in gdb:
        if val == "<optimized out>":
            eq(mine.get(n), "<optimized out>", "%s: %s is <optimized out> as in gdb" % (name, n))
check_no_leftovers("after the locals")
finish()
