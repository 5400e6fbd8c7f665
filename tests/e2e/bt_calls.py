"""bt_calls.py - `bt` at leaf equals gdb's backtrace for call shapes of
shapes.c in every build: mutual recursion, a callback through a function
pointer, a comparator called from inside libc's qsort, and tail calls.
gdb also shows frames for functions that left the stack through a tail
call (hop in `tailcall`, qsort -> qsort_r in libc at -O2), which it infers
from DWARF call-site information; those are checked separately from the
frames that are on the stack."""
from bt_support import *

require_root()

cases = [Case("shapes-%s" % v, [mode]) for mode in ("mutual", "callback", "qsort", "tailcall")
         for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

# the shapes are really there (a test that passes on a flat stack proves nothing)
for c in cases:
    if not c.stacks:
        continue
    names = flat(gdb_groups(c.stacks[0], tailcalls=True))
    mode = c.args[0]
    if mode == "mutual":
        check(names.count("ping") == 5 and names.count("pong") == 4, "%s: 9 levels of ping/pong in gdb" % c.label)
    elif mode == "callback":
        check(names[:3] == ["leaf", "on_item", "visit"], "%s: on_item called from visit in gdb" % c.label)
    elif mode == "qsort":
        gg = gdb_groups(c.stacks[0])
        check(len(gg) > 4 and gg[2][1] == "libc.so.6", "%s: libc frames between by_value and run_qsort" % c.label)

check_no_leftovers("after the call-shape backtraces")
finish()
