"""bt_frames.py - `bt` at leaf equals gdb's backtrace through frames whose
unwind rows are unusual, in every build: leaf called from main itself
(shapes direct), a noreturn call as a function's last instruction (the
return address lies past the caller's end: lookups must use ip - 1),
alloca, and a 256 KiB frame."""
from bt_support import *

require_root()

cases = [Case("shapes-%s" % v, [mode]) for mode in ("direct", "noreturn", "alloca", "bigframe")
         for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

check_no_leftovers("after the unusual-frame backtraces")
finish()
