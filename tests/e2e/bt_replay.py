"""bt_replay.py - a walk is taken again from the last one only when every
word of the stack it read holds the same value.  shapes.c's alternate mode
reaches leaf() with the same registers on every hit, through mid(), from
via_one() and via_other() in turn: two hits in a row have the same frame 0
and the same return address into mid, and differ only in mid's return
address, the walk's second word.  Every backtrace must name the caller it
was taken in, the two in turn, in every build; `count bt` must count the
two stacks apart, half the hits each.  (bpf-templates/unwind.bpf.h:
walk_replay().)"""
import tempfile

from bt_support import *

require_root()

EVENTS = 12


def callers(bts):
    """The function above mid in each backtrace, or what the stack was."""
    out = []
    for _, bt in bts:
        names = [norm(f["function"]) for f in bt["frames"] if not f["inline"]]
        out.append(names[2] if names[:2] == ["leaf", "mid"] and len(names) > 2 else names[:4])
    return out


def one_variant(v):
    label = "shapes-%s alternate" % v
    fx = Fixture("shapes-" + v, [300, -1, "alternate"])
    try:
        res, bts = wraith_bts(fx.pid, events=EVENTS)
    finally:
        fx.stop()
    eq(res.returncode, 0, "%s: wraith exits 0 (%s)" % (label, res.stderr.strip()[-300:]))
    got = callers(bts)
    eq(len(got), EVENTS, "%s: %d backtraces" % (label, EVENTS))
    check(all(c in ("via_one", "via_other") for c in got),
          "%s: leaf <- mid <- via_one or via_other in every backtrace (%r)" % (label, got))
    check(all(a != b for a, b in zip(got, got[1:])),
          "%s: the callers alternate as the program calls them (%r)" % (label, got))
    check(all(bt["status"] == "complete" for _, bt in bts),
          "%s: every walk complete (%r)" % (label, [bt["status"] for _, bt in bts]))


def count_variant(v):
    label = "shapes-%s alternate, count bt" % v
    tmp = tempfile.mkdtemp(prefix="wraith-replay.")
    folded = os.path.join(tmp, "out.folded")
    fx = Fixture("shapes-" + v, [300, -1, "alternate"])
    try:
        res = run(["-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1.5, "--folded", folded],
                  timeout=30)
    finally:
        fx.stop()
    eq(res.returncode, 0, "%s: wraith exits 0 (%s)" % (label, res.stderr.strip()[-300:]))
    counts = {}
    with open(folded) as f:
        for line in f.read().splitlines():
            stack, n = line.rsplit(" ", 1)
            frames = [norm(x) for x in stack.split(";")][::-1]
            key = frames[2] if frames[:2] == ["leaf", "mid"] and len(frames) > 2 else stack
            counts[key] = counts.get(key, 0) + int(n)
    shutil.rmtree(tmp, ignore_errors=True)
    check(set(counts) == {"via_one", "via_other"}, "%s: two stacks, via_one and via_other (%r)" % (label, counts))
    one, other = counts.get("via_one", 0), counts.get("via_other", 0)
    check(one > 100 and abs(one - other) <= 1,
          "%s: the hits counted half under each (%d and %d)" % (label, one, other))


# A replayed walk writes its frames into this hit's event: the per-CPU
# buffer it is built in still holds the last event's bytes, which are the
# same frames when that event was this walk's, and another probe's items
# when another probe ran between.  run_mutual's print (16 arguments over
# the bytes where leaf's frames go) runs before every leaf hit and walks
# nothing, so leaf's walks all replay the first and all must still be gdb's.
OVERWRITE = "trace run_mutual { print \"%s\", %s; } trace leaf { bt; }" % (
    " ".join(["{}"] * 16), ", ".join(["x * 1000003 + %d" % i for i in range(16)]))


def overwrite_variant(v):
    label = "shapes-%s mutual, a print between the walks" % v
    stacks = gdb_stacks(fixture("shapes-" + v), [0, 3, "mutual"])
    fx = Fixture("shapes-" + v, [300, -1, "mutual"])
    try:
        res, bts = wraith_bts(fx.pid, script=OVERWRITE, events=2 * EVENTS)
    finally:
        fx.stop()
    eq(res.returncode, 0, "%s: wraith exits 0 (%s)" % (label, res.stderr.strip()[-300:]))
    check(len(bts) >= EVENTS - 1 and stacks, "%s: backtraces (%d) and gdb's stack" % (label, len(bts)))
    own = own_modules(fixture("shapes-" + v))
    for i, (_, bt) in enumerate(bts):
        check(bt["status"] == "complete", "%s: walk %d complete (%s)" % (label, i, bt["status"]))
        if stacks:
            compare_stack(bt, stacks[0], own, "%s: backtrace %d equals gdb's, past main too" % (
                label, i), cut_main=False)


parallel(one_variant, VARIANTS)
parallel(overwrite_variant, ("O2", "O0", "clang-O2", "clang-O0-nopie"))
parallel(count_variant, ("O2", "O0", "clang-O2", "clang-O0-nopie"))
check_no_leftovers("after the replayed walks")
finish()
