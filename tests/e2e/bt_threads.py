"""bt_threads.py - threads with different chains, in every build: threads.c
reaches leaf from the main thread (main -> main_work), thread A
(worker_a -> a_outer -> a_inner) and thread B (worker_b -> b_step), the
workers started by libc (start_thread, clone3).  The set of distinct
stacks wraith sees equals the set gdb sees, and each thread always shows
the same one."""
from bt_support import *

require_root()
EVENTS = 45
ITERATIONS = 3  # per thread under gdb: 3 threads x 3 stops


def one(v):
    name = "threads-%s" % v
    binary = fixture(name)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, ITERATIONS], 3 * ITERATIONS)
        fx = Fixture(name, [1000, -1])
        try:
            res, bts = wraith_bts(fx.pid, events=EVENTS)
        finally:
            fx.stop()
        return v, binary, res, bts, g.result()


def distinct(stacks, same):
    """One representative per class of `same`."""
    reps = []
    for s in stacks:
        if not any(same(s, r) for r in reps):
            reps.append(s)
    return reps


for v, binary, res, bts, stacks in parallel(one, VARIANTS):
    label = "threads-%s" % v
    own = own_modules(binary)
    if not check(res.returncode == 0 and len(bts) == EVENTS, "%s: wraith exits 0 with %d backtraces (rc %d, %d)"
                 % (label, EVENTS, res.returncode, len(bts))):
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

check_no_leftovers("after the thread backtraces")
finish()
