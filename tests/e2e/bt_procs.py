"""bt_procs.py - processes that take turns on one CPU each unwind with
their own mappings.  The unwinder keeps, per CPU, the slot of wr_proc_maps
its last walk used and takes it again without the hash lookup when the
slot names the event's process (bpf-templates/unwind.bpf.h,
proc_maps_of()).  Processes of one program (memberprog.py, built by
gcc and by clang-19), all pinned to CPU 0, call lib_fn() in libmember.so,
which ASLR maps at a different address in each: a walk that took another
process's mappings would find lib_fn's caller in no mapping or in the
wrong one.  `-t PROGRAM` traces them with `bt` and `count bt`:
every backtrace must be the one gdb shows at lib_fn, complete, from each
process, and so must every stack counted.  (Userspace finishes a `bt`
walk the kernel hands over, from its copy of the stack and the right
process's mappings; a `count bt` walk is never handed over, so its stacks
are the kernel's own.)  Then one process goes away and a fourth, stopped
until then, goes on: its events and stacks are its own too.  (One
started after wraith would have its first stacks counted before wraith
installed its mappings, `offsets-unavailable` by design.)"""
import json
import signal
import threading

from memberprog import build
from wraithtest import *

require_root()
SCRIPT = "trace lib_fn { bt; count bt; }"
PER_PROC = 30  # events wanted from each process


def start(prog):
    """A process of @prog on CPU 0, lib_fn every 300 us."""
    return Fixture("/usr/bin/taskset", ["-c", "0", prog, 300])


def collect(proc, pids):
    """Events from wraith's stdout until each of @pids sent PER_PROC."""
    got = {p: [] for p in pids}
    for line in proc.stdout:
        if not line.strip():
            continue
        ev = json.loads(line)
        got.setdefault(ev.get("pid"), []).append(ev)
        if all(len(got[p]) >= PER_PROC for p in pids):
            break
    return got


def check_events(got, pids, want, cc):
    for pid in pids:
        evs = got.get(pid, [])
        check(len(evs) >= PER_PROC, "%s: %d events from process %d" % (cc, len(evs), pid))
        bts = [i for e in evs for i in e["items"] if i["type"] == "backtrace"]
        statuses = sorted(set(b["status"] for b in bts))
        eq(statuses, ["complete"], "%s: process %d's backtraces end complete" % (cc, pid))
        stacks = set(tuple(wraith_stack(b)) for b in bts)
        eq(stacks, {tuple(want)}, "%s: process %d's backtraces are gdb's at lib_fn" % (cc, pid))
    others = set(got) - set(pids)
    check(not any(got[p] for p in others), "%s: events from those processes only (%s)"
          % (cc, sorted(others)))


def check_counted(folded, want, cc):
    """Every stack `count bt` counted is gdb's (folded: outermost first)."""
    with open(folded) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    stacks = {}
    for line in lines:
        stack, n = line.rsplit(" ", 1)
        frames = stack.split(";")[::-1]
        cut = frames[:frames.index("main") + 1] if "main" in frames else frames
        stacks[tuple(cut)] = stacks.get(tuple(cut), 0) + int(n)
    eq(list(stacks), [tuple(want)], "%s: every stack counted is gdb's at lib_fn (%r)" % (cc, stacks))


def case(cc, prog):
    gdb = gdb_backtraces(prog, "lib_fn", args=[300, 3])
    check(gdb and gdb[0][:3] == ["lib_fn", "work", "main"], "%s: gdb's lib_fn stack (%s)" % (cc, gdb))
    want = gdb[0]
    fxs = [start(prog) for _ in range(4)]
    os.kill(fxs[3].pid, signal.SIGSTOP)
    folded = os.path.join(TESTDIR, "stacks-%s.folded" % cc)
    proc = subprocess.Popen([WRAITH, "-t", prog, "-s", SCRIPT, "--script-output", "json",
                             "--folded", folded],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    hang = threading.Timer(HANG_GUARD, proc.kill)
    hang.start()
    try:
        ready = proc.stderr.readline()
        check("in every process of" in ready, "%s: -t status line (%r)" % (cc, ready))
        pids = [f.pid for f in fxs[:3]]
        check_events(collect(proc, pids), pids, want, cc)
        # One goes, the fourth goes on: the CPU's kept slot may be the
        # one that went, and the fourth must not unwind with it.
        fxs[0].stop()
        os.kill(fxs[3].pid, signal.SIGCONT)
        pids = [f.pid for f in fxs[1:]]
        got = collect(proc, pids)
        got.pop(fxs[0].pid, None)  # what it sent before it went
        check_events(got, pids, want, cc)
    finally:
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
        hang.cancel()
        for f in fxs:
            f.stop()
    eq(proc.returncode, 0, "%s: wraith ends with Ctrl-C, exit 0 (%r)" % (cc, err[-300:]))
    check_counted(folded, want, cc)


progs = build(os.path.join(TESTDIR, "progs"))
for cc, prog in sorted(progs.items()):
    case(cc, prog)
check_no_leftovers("after processes taking turns on one CPU")
finish()
