"""bt_vdso.py - frames in the vdso.  vdsosig spins in clock_gettime(); a
SIGPROF handler calls leaf() only when the signal interrupted the vdso's
code, so every stack at leaf is leaf <- on_prof <- <signal handler called>
<- vdso code <- clock_gettime (libc) <- spin <- main.  The vdso has no file:
wraith reads its image out of the process and unwinds it by the unwind
tables in that image.  Each backtrace is complete and equal to gdb's,
frame by frame (the vdso's own frames taken as one, see vdso_names), in
three builds; the vdso's frames are named as gdb names them."""
from bt_support import *

require_root()


def vdso_names(groups):
    """The frames in the vdso as one: where the signal lands decides
    whether the vdso's inner (unnamed) function is on the stack, so two
    samples differ there; what must agree is that the walk goes through
    the vdso to clock_gettime and on through libc to main.  The vdso
    exports clock_gettime twice (clock_gettime, __vdso_clock_gettime at one
    address); either name is right."""
    out = []
    for names, m in groups:
        names = [n[len("__vdso_"):] if m == "[vdso]" and n.startswith("__vdso_") else n for n in names]
        if m == "[vdso]" and out and out[-1][1] == "[vdso]":
            out[-1] = (names, m)
        else:
            out.append((names, m))
    return out


def one(v):
    c = Case("vdsosig-%s" % v)
    return c.run()


for c in parallel(one, ("O2", "O0-nopie", "clang-O2", "clang-O0")):
    bt, stack = c.ok()
    if bt is None:
        continue
    check(bt["status"] == "complete", "%s: complete (%s, %s)" % (c.label, bt["status"], bt["error"]))
    wg, gg = vdso_names(wraith_groups(bt, cut_main=False)), vdso_names(gdb_groups(stack, cut_main=False))
    check(any(m == "[vdso]" for _, m in gg), "%s: gdb's stack has vdso frames (%s)" % (c.label, gg))
    vdso = [n for names, m in wraith_groups(bt, cut_main=False) if m == "[vdso]" for n in names]
    check(vdso and set(vdso) <= {"??", "clock_gettime", "__vdso_clock_gettime"},
          "%s: the vdso's frames are there and named as gdb names them (%s)" % (c.label, vdso))
    why = diff_groups(wg, gg, c.own)
    check(why is None, "%s: frames past main equal gdb's, the vdso's included%s" % (
        c.label, "" if why is None else "\n       %s\n       wraith: %s\n       gdb:    %s" % (why, wg, gg)))

check_no_leftovers("after the vdso test")
finish()
