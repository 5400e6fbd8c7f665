"""bt_libs.py - `bt` at a probe inside a shared library equals gdb's
backtrace, in every build: twolibs runs main -> drive (executable) ->
fix_a_run -> fix_a_inner (libfix_a) -> fix_b_run -> scaled (inlined) ->
leaf (libfix_b).  Each frame's module is checked too."""
from bt_support import *

require_root()

cases = [Case("twolibs-%s" % v, libs=("libfix_a-%s.so" % v, "libfix_b-%s.so" % v)) for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

for c in cases:
    if not c.bts:
        continue
    v = c.name[len("twolibs-"):]
    frames = [(f["function"], f["inline"], os.path.basename(f["module"] or "")) for f in c.bts[0][1]["frames"]]
    eq(frames[:6], [("leaf", False, "libfix_b-%s.so" % v), ("scaled", True, "libfix_b-%s.so" % v),
                    ("fix_b_run", False, "libfix_b-%s.so" % v), ("fix_a_inner", False, "libfix_a-%s.so" % v),
                    ("fix_a_run", False, "libfix_a-%s.so" % v), ("drive", False, c.name)],
       "%s: the frames cross both libraries into the executable" % c.label)

check_no_leftovers("after the library backtraces")
finish()
