"""bt_threads.py - threads with different chains, in every build: threads.c
reaches leaf from the main thread (main -> main_work), thread A
(worker_a -> a_outer -> a_inner) and thread B (worker_b -> b_step), the
workers started by libc (start_thread, clone3).  The set of distinct
stacks wraith sees equals the set gdb sees, and each thread always shows
the same one.  `-p TID` of a worker thread traces that thread only."""
import json
import signal
import subprocess
import threading

from bt_support import *

require_root()
EVENTS = 45
ITERATIONS = 3  # per thread under gdb: 3 threads x 3 stops


def bts_of_every_thread(pid, threads=3):
    """wraith's backtraces at leaf, EVENTS of them at least, and until
    `threads` threads have sent some; then Ctrl-C.  (With --max-events
    45, at load average 30 one thread was not scheduled while the
    others made their 45 calls: when each thread runs is the
    scheduler's, so the test waits for them.)  Returns (exit status,
    stderr, [(event, bt item)])."""
    p = subprocess.Popen([WRAITH, "-p", str(pid), "-s", "trace leaf { bt; }", "--script-output",
                          "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    hang = threading.Timer(HANG_GUARD, p.kill)
    hang.start()
    out, tids = [], set()
    try:
        for line in p.stdout:
            if not line.strip():
                continue
            ev = json.loads(line)
            for item in ev.get("items", []):
                if item["type"] == "backtrace":
                    out.append((ev, item))
                    tids.add(ev["tid"])
            if len(out) >= EVENTS and len(tids) >= threads:
                break
    finally:
        p.send_signal(signal.SIGINT)
        err = p.communicate()[1]
        hang.cancel()
    return p.returncode, err, out


def one(v):
    name = "threads-%s" % v
    binary = fixture(name)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, ITERATIONS], 3 * ITERATIONS)
        fx = Fixture(name, [1000, -1])
        try:
            res = bts_of_every_thread(fx.pid)
        finally:
            fx.stop()
        return v, binary, res, g.result()


def distinct(stacks, same):
    """One representative per class of `same`."""
    reps = []
    for s in stacks:
        if not any(same(s, r) for r in reps):
            reps.append(s)
    return reps


for v, binary, (rc, err, bts), stacks in parallel(one, VARIANTS):
    label = "threads-%s" % v
    own = own_modules(binary)
    if not check(rc == 0 and len(bts) >= EVENTS, "%s: wraith exits 0 with %d backtraces at least "
                 "(rc %d, %d, %r)" % (label, EVENTS, rc, len(bts), err[-300:])):
        continue
    eq(len(stacks), 3 * ITERATIONS, "%s: gdb stopped at leaf %d times" % (label, 3 * ITERATIONS))
    bad = [b["status"] for _, b in bts if b["status"] != "complete" or b["error_code"] != 0]
    check(not bad, "%s: every backtrace complete (%s)" % (label, bad))

    def same_w(a, b):
        return diff_groups(wraith_groups(a, False), wraith_groups(b, False), own) is None

    def same_g(a, b):
        return diff_groups(gdb_groups(a, False), gdb_groups(b, False), own) is None

    w_reps = distinct([b for _, b in bts], same_w)
    g_reps = distinct(stacks, same_g)
    eq(len(g_reps), 3, "%s: gdb sees 3 distinct stacks" % label)
    eq(len(w_reps), 3, "%s: wraith sees 3 distinct stacks" % label)
    for w in w_reps:
        wg = wraith_groups(w, False)
        whys = [diff_groups(wg, gdb_groups(g, False), own) for g in g_reps]
        # the reason against the gdb stack of the same thread function
        near = [y for y, g in zip(whys, g_reps) if gdb_groups(g, False)[1:2] == wg[1:2]]
        check(None in whys, "%s: wraith's stack %s is one of gdb's%s" % (
            label, flat(wg), "" if None in whys or not near else ": " + near[0]))
    for g in g_reps:
        check(any(diff_groups(wraith_groups(w, False), gdb_groups(g, False), own) is None for w in w_reps),
              "%s: gdb's stack %s is one of wraith's" % (label, flat(gdb_groups(g, False))))
    # per thread, one stack; three threads
    by_tid = {}
    for ev, b in bts:
        by_tid.setdefault(ev["tid"], []).append(b)
    eq(len(by_tid), 3, "%s: events from 3 threads" % label)
    check(all(len(distinct(bs, same_w)) == 1 for bs in by_tid.values()),
          "%s: each thread always shows the same stack" % label)
    check(bts[0][0]["pid"] in by_tid, "%s: the main thread is among them" % label)

# -p given a thread other than the main one: that thread only, said so
fx = Fixture("threads-O2", [1000, -1])
worker = sorted(int(t) for t in os.listdir("/proc/%d/task" % fx.pid) if int(t) != fx.pid)[0]
res, bts = wraith_bts(worker, events=10)
fx.stop()
check(res.returncode == 0 and len(bts) == 10, "-p %d (a worker thread): 10 events (rc %d, %r)" % (
    worker, res.returncode, res.stderr[-300:]))
check("PID %d is a thread of process %d" % (worker, fx.pid) in res.stderr and "only that thread" in res.stderr,
      "-p of a thread: wraith says it traces that thread only (%r)" % res.stderr[-300:])
check(bts and all(ev["tid"] == worker and ev["pid"] == fx.pid for ev, _ in bts),
      "-p of a thread: every event is that thread's, in its process")
chains = set(tuple(flat(wraith_groups(b))[:2]) for _, b in bts)
check(len(chains) == 1 and list(chains)[0][1] in ("a_inner", "b_step") and
      all(b["status"] == "complete" for _, b in bts),
      "-p of a thread: its own stack, complete (%s)" % chains)

check_no_leftovers("after the thread backtraces")
finish()
