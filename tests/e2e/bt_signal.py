"""bt_signal.py - leaf called inside a signal handler, in every build:
signal.c's handler chain on_signal -> handler_work -> leaf runs on top of
the kernel's signal frame, shown as `<signal handler called>` (libc's
__restore_rt trampoline), then the interrupted chain: `spin` interrupts
spin() in user code (exact ip, not a return address), `raise` interrupts
libc's raise(), `altstack` is `spin` with the handler on an alternate
signal stack.  Frames equal gdb's, the trampoline frame included."""
from bt_support import *

require_root()

# interval 10 ms: spin burns the CPU until the signal comes
cases = [Case("signal-%s" % v, [mode], interval=10000,
              gdb_extra=["handle SIGALRM nostop noprint pass", "handle SIGUSR1 nostop noprint pass"])
         for mode in ("spin", "raise", "altstack") for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

for c in cases:
    if not (c.bts and c.stacks):
        continue
    names = [f["function"] for f in c.bts[0][1]["frames"]]
    gnames = [f["name"] for f in c.stacks[0]]
    check(gnames[:4] == ["leaf", "handler_work", "on_signal", "<signal handler called>"],
          "%s: gdb shows the handler on top of the signal frame (%s)" % (c.label, gnames[:5]))
    check(names[:4] == ["leaf", "handler_work", "on_signal", "<signal handler called>"],
          "%s: wraith names the trampoline frame '<signal handler called>' (%s)" % (c.label, names[:5]))
    if c.args[0] in ("spin", "altstack"):
        check(names[4:6] == ["spin", "middle"], "%s: the interrupted frame is spin (%s)" % (c.label, names[4:6]))

check_no_leftovers("after the signal backtraces")
finish()
