"""bt_deferred.py - a module whose unwind tables are deferred (left out of
the kernel until the loader thread has read them) is on the stack from
the very first event, in every build.  twolibs runs main -> drive ->
fix_a_run -> fix_a_inner (libfix_a) -> fix_b_run -> leaf (libfix_b);
wraith traces leaf with the testing aid WRAITH_DEFER_CFI=0:2000 (every
module may be deferred, and the loader waits 2 s before reading those), so
libfix_a, which holds no probe and is not the executable, the dynamic
linker or libc, is deferred at start-up.  A walk reaching it is handed
over and finished in userspace, which reads the module's rows itself; the
module then goes into the kernel and the later walks stay there.  Every
backtrace equals gdb's; wraith -v says what was deferred and when it went
in.  With `count bt` (counted in the kernel, never handed over) nothing is
deferred."""
from bt_support import *

require_root()
ENV = {"WRAITH_DEFER_CFI": "0:2000"}
EVENTS = 60  # 1.2 s: the module goes in while they come


def run_deferred(v):
    name = "twolibs-%s" % v
    fx = Fixture(name, [20000, -1])
    try:
        res = run(["-v", "-p", fx.pid, "-s", "trace leaf { bt; }", "--max-events", EVENTS,
                   "--timeout", 20, "--script-output", "json"], timeout=60, env=ENV)
    finally:
        fx.stop()
    return res


def one(v):
    binary = fixture("twolibs-%s" % v)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, 3], 1)
        res = run_deferred(v)
        return v, binary, res, g.result()


in_kernel = []  # builds where some walks came after the module went in
for v, binary, res, stacks in parallel(one, VARIANTS):
    label = "twolibs-%s" % v
    lib = "libfix_a-%s.so" % v
    own = own_modules(binary, [lib, "libfix_b-%s.so" % v])
    err = res.stderr
    eq(res.returncode, 0, "%s: wraith exits 0 (%r)" % (label, err[-300:]))
    deferred = [l for l in err.splitlines() if "deferred until the loader has read" in l]
    check(len(deferred) == 1 and lib in deferred[0] and "libfix_b" not in deferred[0] and
          "libc.so" not in deferred[0] and "ld-linux" not in deferred[0] and
          label + " (" not in deferred[0],
          "%s: wraith -v says %s was deferred, and nothing with a probe, nor the executable, "
          "libc or ld.so (%s)" % (label, lib, deferred))
    went_in = re.search(r"unwind tables: %s \((\d+) rows\) in the kernel [0-9.]+ ms after the "
                        r"others; walks through deferred modules finished in userspace so far: (\d+)"
                        % re.escape(lib), err)
    check(went_in is not None and int(went_in.group(1)) > 0,
          "%s: wraith -v says when %s went into the kernel" % (label, lib))
    check(went_in is not None and int(went_in.group(2)) >= 1,
          "%s: the first walks through %s were finished in userspace (%s of %d before it went in)"
          % (label, lib, went_in.group(2) if went_in else None, EVENTS))
    if went_in is not None and int(went_in.group(2)) < EVENTS:
        in_kernel.append(label)
    if not check(len(stacks) == 1, "%s: gdb stopped at leaf" % label):
        continue
    bts = []
    try:
        bts = [item for ev in json_events(res.stdout) for item in ev["items"]
               if item["type"] == "backtrace"]
    except ValueError as e:
        fail("%s: wraith printed invalid JSON (%s)" % (label, e))
    eq(len(bts), EVENTS, "%s: %d backtraces" % (label, EVENTS))
    statuses = sorted(set(bt["status"] for bt in bts))
    check(statuses == ["complete"], "%s: every backtrace is complete (%s)" % (label, statuses))
    for i, bt in enumerate(bts):
        if not compare_stack(bt, stacks[0], own, "%s: event %d: frames past main equal gdb's"
                             % (label, i + 1), cut_main=False):
            break

# How soon the reader first looks depends on the load: on a busy machine it
# may read every event of a run in one go, before it puts the module in.
check(in_kernel, "some builds had walks unwound in the kernel after the deferred module went in "
      "(%s)" % in_kernel)

# `count bt` is never handed over: nothing may be deferred for it.
fx = Fixture("twolibs-O2", [1000, -1])
try:
    res = run(["-v", "-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1], timeout=60,
              env=ENV)
finally:
    fx.stop()
eq(res.returncode, 0, "count bt: wraith exits 0 (%r)" % res.stderr[-300:])
check("deferred until" not in res.stderr, "count bt: no module deferred")
check("fix_a_inner" in res.stdout and "offsets-unavailable" not in res.stdout,
      "count bt: the counted stacks go through libfix_a (%r)" % res.stdout[-400:])

check_no_leftovers("after the deferred-module backtraces")
finish()
