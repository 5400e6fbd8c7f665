"""bt_stackcopy.py - a `bt args` event keeps its copy of the stack wherever
that copy happens to end.  The kernel gives back the frames a bt reserved
and did not use, then appends the copy of the stack (registers and stack
words for frame values) after it; when the copy ended exactly where the
given-back frames had ended, the event's last trim took the copy off again,
and the event reached userspace flagged as carrying a copy it did not
hold ("the kernel attached one, which was lost on the way").

shapes.c's sweep mode calls leaf() 16 bytes lower on the stack at each hit,
over 16 KiB, so the copy (from below leaf's sp up to the stack's top, at
most 16 KiB) takes every length of 16-byte steps, the one that ends where a
1024-frame reservation did among them.  At -O0 the probe stops past leaf's
prologue, where sp is 16-byte aligned: the lengths line up with the
reservation's end (at an entry they are 8 bytes off and never meet it).
Every frame 0 must carry leaf's argument, the byte with_alloca() passes
it, and no frame may say its copy was lost."""
import re

from bt_support import *

require_root()

SWEEP = 1024  # hits in one sweep (shapes.c: run_sweep)


def one_variant(v):
    label = "shapes-%s sweep" % v
    fx = Fixture("shapes-" + v, [200, -1, "sweep"])
    try:
        res, bts = wraith_bts(fx.pid, script="trace leaf { bt args; }", events=SWEEP + SWEEP // 4,
                              timeout=30, depth=1024)
    finally:
        fx.stop()
    eq(res.returncode, 0, "%s: wraith exits 0 (%s)" % (label, res.stderr.strip()[-300:]))
    check(len(bts) > SWEEP, "%s: more than a sweep of events (%d)" % (label, len(bts)))
    lost, wrong, checked = [], [], 0
    for _, bt in bts:
        frames = bt["frames"]
        for f in frames:
            if "lost on the way" in (f.get("values_unavailable") or ""):
                lost.append(bt)
                break
        if len(frames) < 2 or norm(frames[1]["function"]) != "with_alloca":
            wrong.append([norm(f["function"]) for f in frames[:3]])
            continue
        n = [a["value"] for a in frames[1].get("args") or [] if a["name"] == "n"]
        x = [a["value"] for a in frames[0].get("args") or [] if a["name"] == "x"]
        if len(x) != 1 or not re.fullmatch(r"-?\d+", x[0]):
            wrong.append((x, frames[0].get("values_unavailable")))
        elif n and re.fullmatch(r"\d+", n[0]):
            # with_alloca's own frame lies above its alloca: past the 16
            # KiB copied for the deepest hits (<unavailable> there)
            checked += 1
            if int(x[0]) != (int(n[0]) & 0xff) - (0x100 if int(n[0]) & 0x80 else 0):
                wrong.append((n, x))
    eq(len(lost), 0, "%s: no event lost its copy of the stack (%d of %d did)" % (label, len(lost), len(bts)))
    eq(wrong[:3], [], "%s: leaf's x in every event, the byte with_alloca's n where that shows" % label)
    check(checked > SWEEP // 2, "%s: x checked against n in most events (%d)" % (label, checked))


parallel(one_variant, ("O0", "clang-O0"), workers=2)
check_no_leftovers("after the stack copies")
finish()
