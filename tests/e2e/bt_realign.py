"""bt_realign.py - `bt` at leaf equals gdb's backtrace through frames that
realign the stack, in every build: in realign.c both main (an over-aligned
local plus alloca) and step (a VLA plus an over-aligned local) keep the
incoming stack pointer in r10 and then in memory, so their CFA is
`*(rbp - N)` (DW_CFA_def_cfa_expression) and rbp is saved at the address
rbp itself points to (DW_CFA_expression rbp: DW_OP_breg6 0), not at a
CFA offset.  Unwinding past step needs the first; past main, the second."""
from bt_support import *

require_root()

cases = [Case("realign-%s" % v) for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

check_no_leftovers("after the realigned-stack backtraces")
finish()
