"""count_slots.py - `count bt` counts a stack in its CPU's slot, or in the
hash map when that slot holds another stack, and never in another key's
count.

With one slot a CPU (WRAITH_COUNT_SLOTS=1) the first key a CPU sees takes
its slot and every other key collides with it; the fixture (paths.c) is
moved from CPU to CPU while it runs, so a key counted in one CPU's slot is
counted from another in the hash map, and userspace must add the two.  The
counts must be the program's own, per path and per `v % 3`, and the
listing (stack, key and count of each line) the same as with no slots at
all (WRAITH_COUNT_SLOTS=0, the hash map alone): one slot a CPU, the
default slots and none list the same lines, for gcc and clang builds
alike.  What fails: a key counted under another's (a slot taken without
comparing its key), a count lost, or a key listed twice (its slot's and
the hash map's counts not added up)."""
import threading
import time
from wraithtest import *

require_root()

ROUNDS = 4000
SCRIPT = "trace leaf { count bt; }\ntrace leaf { count bt, v % 3; }\n"
VARIANTS = [v for v in ("O2", "clang-O2") if os.path.exists(os.path.join(FIXTURES, "paths-" + v))]
CPUS = sorted(os.sched_getaffinity(0))


def mover(pid, stop):
    """Move process @pid to the next CPU every millisecond until @stop."""
    i = 0
    while not stop.is_set():
        try:
            os.sched_setaffinity(pid, {CPUS[i % len(CPUS)]})
        except OSError:
            return
        i += 1
        time.sleep(0.001)


def counted(label, slots):
    """wraith with @slots slots a CPU (None: the default) on a new fixture
    @label moved between the CPUs while it runs; (the program's own
    counts, exit status, stdout, stderr)."""
    env = dict(os.environ)
    env.pop("WRAITH_COUNT_SLOTS", None)
    if slots is not None:
        env["WRAITH_COUNT_SLOTS"] = str(slots)
    fx = Paths(label)
    stop = threading.Event()
    t = threading.Thread(target=mover, args=(fx.pid, stop))
    try:
        w = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", SCRIPT, "--script-output", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = w.stderr.readline()
        check("tracing" in line, "%s: wraith starts (%r)" % (label, line))
        t.start()
        for _ in range(5):  # several runs of rounds: the mover lands between and inside them
            own = fx.go(ROUNDS // 5)  # the counts so far
        stop.set()
        t.join()
        w.send_signal(signal.SIGINT)
        out, err = w.communicate(timeout=60)
    finally:
        stop.set()
        fx.stop()
    return own, w.returncode, out, err


def path_of(frames):
    """Which path a stack (innermost first) took to leaf: a, b or c."""
    if frames[:3] == ["leaf", "mid", "via_b"] and "main" in frames[3:]:
        return "b"
    if frames[:2] == ["leaf", "via_a"] and "main" in frames[2:]:
        return "a"
    if frames[:2] == ["leaf", "main"]:
        return "c"
    return None


def expected(own):
    """The fixture's counts per (probe, path, key): via_a passes 0, 1, 2,
    mid 0..4, main 0, 1, once each per round."""
    a, b, c = own[:3]
    r = a // 3
    want = {(1, "a", None): a, (1, "b", None): b, (1, "c", None): c}
    for path, args in (("a", range(3)), ("b", range(5)), ("c", range(2))):
        for v in args:
            want[(2, path, v % 3)] = want.get((2, path, v % 3), 0) + r
    return want


for v in VARIANTS:
    lines = {}
    for slots in (0, 1, None):
        what = "paths-%s, %s" % (v, {0: "no slots", 1: "one slot a CPU", None: "the default slots"}[slots])
        own, rc, out, err = counted("paths-" + v, slots)
        eq(rc, 0, "%s: exit 0 (%s)" % (what, err.strip()[-300:]))
        stacks = [o for o in json_events(out) if o.get("type") == "stack"]
        got = {}
        for s in stacks:
            k = (s["probe"], path_of(s["frames"]), s.get("key"))
            got[k] = got.get(k, 0) + s["count"]
        eq(got, expected(own), "%s: the counts are the program's own" % what)
        lines[slots] = sorted((s["probe"], tuple(s["frames"]), s.get("key"), s["status"], s["count"])
                              for s in stacks)
        if slots != 0:
            eq(lines[slots], lines[0], "%s: the listing is the one without slots, line for line" % what)
        for probe in (1, 2):
            check("#%d leaf: %d hits, 0 delivered, 0 filtered, 0 lost; %d stacks counted, 0 not"
                  % (probe, sum(own[:3]), sum(own[:3])) in err,
                  "%s: the summary counts every hit of probe %d (%r)" % (what, probe, err[-300:]))

check(len(VARIANTS) >= 2, "the fixture is built with gcc and clang (%s)" % VARIANTS)
check(len(CPUS) >= 2, "the fixture moved between %d CPUs" % len(CPUS))
check_no_leftovers("count_slots")
finish()
