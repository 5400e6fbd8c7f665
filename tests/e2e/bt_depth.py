"""bt_depth.py - backtrace depth: recursion deeper than 128 frames gives
`truncated`, exactly 128 frames, error_code 0, in every build, and those
128 frames are gdb's first 128; --backtrace-depth 1, 5, 7 and 128 give
exactly that many physical frames (inline frames ride along with theirs);
a stack of exactly 128 frames is complete, one more frame is truncated;
a stack of exactly N frames under --backtrace-depth N is complete; under
--backtrace-depth 1024 a 606-frame recursion is complete and equal to
gdb's, and an 1100-level one is truncated at exactly 1024 frames."""
import re

from bt_support import *

require_root()
DEEP = 200  # recurse.c's default depth: about 205 frames

# recursion deeper than 128, every build
cases = [Case("recurse-%s" % v) for v in VARIANTS]
# --backtrace-depth N on the deep stack
cases += [Case("recurse-%s" % v, depth=n) for v in ("O2fp", "O0-nopie") for n in (1, 5, 7, 128)]
# a stack of exactly 128 frames, and of 129: recurse.c's stack at depth d
# has d + 6 frames here (leaf, d + 1 descend, main, two in libc, _start);
# the cases check that against gdb before trusting it
cases += [Case("recurse-O2", [122]), Case("recurse-O2", [123])]
# chain.c's whole stack is 7 frames; inline.c's has an inline frame
cases += [Case("chain-O2", depth=7), Case("chain-O2", depth=6), Case("inline-O2", depth=2)]
# deeper than the default: 600 levels (606 frames) complete under
# --backtrace-depth 1024, 1100 levels truncated at exactly 1024
cases += [Case("recurse-%s" % v, [600], depth=1024) for v in ("O2", "O0-nopie", "clang-O2")]
cases += [Case("recurse-O2fp", [1100], depth=1024)]
run_cases(cases)


def gdb_physical(c):
    return gdb_groups(c.stacks[0], cut_main=False)


for c in cases:
    bt, stack = c.ok()
    if bt is None:
        continue
    gg = gdb_physical(c)
    wg = wraith_groups(bt, cut_main=False)
    physical = len([f for f in bt["frames"] if not f["inline"]])
    want_depth = c.depth or 128
    label = c.label + ("" if c.depth is None else " --backtrace-depth %d" % c.depth)
    eq(bt["max_depth"], want_depth, "%s: max_depth" % label)
    eq(physical, bt["frame_count"], "%s: frame_count equals the physical frames listed" % label)
    if len(gg) > want_depth:
        eq((bt["status"], bt["error_code"], physical), ("truncated", 0, want_depth),
           "%s: gdb has %d frames: truncated, error_code 0, exactly %d frames" % (label, len(gg), want_depth))
    else:
        eq((bt["status"], bt["error_code"], physical), ("complete", 0, len(gg)),
           "%s: gdb has %d frames, within the depth: complete with all of them" % (label, len(gg)))
    why = diff_groups(wg, gg[:want_depth], c.own)
    check(why is None, "%s: the frames are gdb's first %d%s" % (label, min(want_depth, len(gg)),
                                                               "" if why is None else ": " + why))

# the boundary cases are what they claim to be
by_label = {c.label: c for c in cases if c.depth is None}
for lbl, want in (("recurse-O2 122", 128), ("recurse-O2 123", 129)):
    c = by_label[lbl]
    if c.stacks:
        eq(len(gdb_physical(c)), want, "%s: gdb sees %d frames" % (lbl, want))
for c in cases:
    if c.name == "recurse-O0" and c.stacks:
        check(len(gdb_physical(c)) > 128, "recurse-O0: gdb sees more than 128 frames (%d)" % len(gdb_physical(c)))
    if c.name == "inline-O2" and c.bts:
        frames = c.bts[0][1]["frames"]
        eq([f["inline"] for f in frames], [False, True, False],
           "inline-O2 --backtrace-depth 2: two physical frames plus the inline one")

# the pretty form of a truncated stack
fx = Fixture("recurse-O2", [1000, -1, DEEP])
res = run(["-p", fx.pid, "-s", "trace leaf { bt; }", "--max-events", 1, "--color", "never", "-q"])
fx.stop()
lines = res.stdout.splitlines()
check(len(lines) == 131 and lines[1] == "  backtrace: truncated, 128 frames (max 128)"
      and re.match(r"^  stopped: truncated( \(none, code=0\))?$", lines[-1]),
      "pretty: 'truncated, 128 frames (max 128)', 128 frame lines, a stopped line (%r ... %r)"
      % (lines[:2], lines[-2:]))

check_no_leftovers("after the depth tests")
finish()
