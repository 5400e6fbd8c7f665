"""bt_deferred.py - a module whose unwind tables are deferred (left out of
the kernel until the loader thread has read them) is on the stack from
the very first event, in every build.  twolibs runs main -> drive ->
fix_a_run -> fix_a_inner (libfix_a) -> fix_b_run -> leaf (libfix_b);
wraith traces leaf with the testing aid WRAITH_DEFER_CFI=0:3600000 (every
module may be deferred, and the loader holds those for an hour: never,
in a test), so libfix_a, which holds no probe and is not the executable,
the dynamic linker or libc, is deferred at start-up and read only by the
first walk that reaches it: that walk is handed over and finished in
userspace, which reads the module's rows itself; the module then goes
into the kernel and the later walks stay there.  The run goes on until
ten more events than walks finished in userspace have come.  Every
backtrace equals gdb's; wraith -v says what was deferred and when it went
in.  With `count bt` (counted in the kernel, never handed over) nothing is
deferred."""
import signal

from bt_support import *

require_root()
ENV = dict(os.environ, WRAITH_DEFER_CFI="0:3600000")
WENT_IN = (r"unwind tables: %s \((\d+) rows\) in the kernel [0-9.]+ ms after the others; walks "
           r"through deferred modules finished in userspace so far: (\d+)")
AFTER = 10  # events after the module went in


def run_deferred(v):
    """wraith -v on twolibs-@v until AFTER events more than walks finished
    in userspace; (exit status, stdout, stderr)."""
    fx = Fixture("twolibs-%s" % v, [20000, -1])
    rx = re.compile(WENT_IN % re.escape("libfix_a-%s.so" % v))
    proc = subprocess.Popen([WRAITH, "-v", "-p", str(fx.pid), "-s", "trace leaf { bt; }",
                             "--script-output", "json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    try:
        went_in = []
        err.wait(lambda ls: went_in.extend(rx.findall("".join(ls))) or went_in)
        if went_in:
            out.wait(lambda ls: len(ls) >= int(went_in[0][1]) + AFTER)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        fx.stop()
    return proc.returncode, out.text(), err.text()


def one(v):
    binary = fixture("twolibs-%s" % v)
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, 3], 1)
        res = run_deferred(v)
        return v, binary, res, g.result()


for v, binary, (rc, stdout, err), stacks in parallel(one, VARIANTS):
    label = "twolibs-%s" % v
    lib = "libfix_a-%s.so" % v
    own = own_modules(binary, [lib, "libfix_b-%s.so" % v])
    eq(rc, 0, "%s: wraith exits 0 (%r)" % (label, err[-300:]))
    deferred = [l for l in err.splitlines() if "deferred until the loader has read" in l]
    check(len(deferred) == 1 and lib in deferred[0] and "libfix_b" not in deferred[0] and
          "libc.so" not in deferred[0] and "ld-linux" not in deferred[0] and
          label + " (" not in deferred[0],
          "%s: wraith -v says %s was deferred, and nothing with a probe, nor the executable, "
          "libc or ld.so (%s)" % (label, lib, deferred))
    went_in = re.search(WENT_IN % re.escape(lib), err)
    check(went_in is not None and int(went_in.group(1)) > 0,
          "%s: wraith -v says when %s went into the kernel" % (label, lib))
    userspace = int(went_in.group(2)) if went_in else 0
    check(userspace >= 1, "%s: the first walks through %s were finished in userspace (%d before "
          "it went in)" % (label, lib, userspace))
    if not check(len(stacks) == 1, "%s: gdb stopped at leaf" % label):
        continue
    bts = []
    try:
        bts = [item for ev in json_events(stdout) for item in ev["items"]
               if item["type"] == "backtrace"]
    except ValueError as e:
        fail("%s: wraith printed invalid JSON (%s)" % (label, e))
    check(len(bts) >= userspace + AFTER, "%s: %d backtraces, %d after %s went in"
          % (label, len(bts), len(bts) - userspace, lib))
    statuses = sorted(set(bt["status"] for bt in bts))
    check(statuses == ["complete"], "%s: every backtrace is complete (%s)" % (label, statuses))
    for i, bt in enumerate(bts):
        if not compare_stack(bt, stacks[0], own, "%s: event %d: frames past main equal gdb's"
                             % (label, i + 1), cut_main=False):
            break

# `count bt` is never handed over: nothing may be deferred for it.
fx = Fixture("twolibs-O2", [1000, -1])
try:
    res = run(["-v", "-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1],
              env={"WRAITH_DEFER_CFI": ENV["WRAITH_DEFER_CFI"]})
finally:
    fx.stop()
eq(res.returncode, 0, "count bt: wraith exits 0 (%r)" % res.stderr[-300:])
check("deferred until" not in res.stderr, "count bt: no module deferred")
check("fix_a_inner" in res.stdout and "offsets-unavailable" not in res.stdout,
      "count bt: the counted stacks go through libfix_a (%r)" % res.stdout[-400:])

check_no_leftovers("after the deferred-module backtraces")
finish()
