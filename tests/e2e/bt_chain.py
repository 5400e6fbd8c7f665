"""bt_chain.py - `bt` at leaf equals gdb's backtrace for plain C call chains
in every build (-O0, -O2, -O2 -fomit-frame-pointer, PIE and non-PIE):
chain.c, inline.c (inline frames as their own entries), chain without
debug info (strip -g: unwound from .eh_frame, named from .symtab, as gdb
names them); three bt statements in one probe. Frames are compared up to main (gdb's default) and past main (gdb's
`set backtrace past-main on`).  Also: libc's frames past main are named
the way gdb names them from libc's separate debug file (build-id)."""
from bt_support import *

require_root()

cases = [Case("%s-%s" % (f, v)) for f in ("chain", "inline", "chain_nodebug")
         for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

# inline.c: the inline frame is there, marked, in both tools
for c in cases:
    if c.name.startswith("inline-") and c.bts and c.stacks:
        bt = c.bts[0][1]
        eq([(f["function"], f["inline"]) for f in bt["frames"][:3]],
           [("leaf", False), ("inlined_helper", True), ("outer", False)],
           "%s: inlined_helper is an inline frame between leaf and outer" % c.label)

# the frames past main in libc: wraith should name them as gdb does, from
# the separate debug file found by build-id (libc6-dbg is installed here)
for c in cases:
    if c.name == "chain-O2" and c.bts and c.stacks:
        compare_stack(c.bts[0][1], c.stacks[0], None,
                      "%s: libc frames past main named as gdb names them" % c.label, cut_main=False)

# several bt statements in one probe, one under a condition: each has a
# slot of its own (the probe is compiled for as many as it has), and each
# is complete and equal to gdb's
for v in ("O2", "clang-O2"):
    name = "chain-" + v
    fx = Fixture(name, [1000, -1])
    try:
        res, bts = wraith_bts(fx.pid, script="trace leaf { bt; if 1 == 1 { bt; } bt; }")
    finally:
        fx.stop()
    stacks = gdb_stacks(fixture(name), [0, 3], count=1)
    eq(len(bts), 3, "%s: three bt statements, three backtraces in the event (rc %s, %r)"
       % (name, res.returncode, res.stderr[-300:]))
    for i, (ev, bt) in enumerate(bts):
        check(bt["status"] == "complete", "%s: backtrace %d complete (%s)" % (name, i + 1, bt["status"]))
        if stacks:
            compare_stack(bt, stacks[0], own_modules(fixture(name)),
                          "%s: backtrace %d of the event equals gdb's" % (name, i + 1))

check_no_leftovers("after the chain backtraces")
finish()
