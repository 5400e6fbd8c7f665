"""bt_pending.py - `trace F` on a function of a library the process has not
loaded yet (-p).  dlhost loads libfix_dl with dlopen() when told (SIGUSR1)
and from then on calls dl_run() in it once per iteration, passing the
iteration number.

- The library sits next to the program, where it loads its own libraries
  from: wraith finds it on disk and places the probe on its file at once,
  so the probe fires from the very first call (the first event's x is the
  iteration the library was loaded in), with a complete backtrace; gcc and
  clang builds.
- The library sits in a directory wraith has no reason to look in: without
  --pending the probe is refused, with a hint naming --pending; with
  --pending it waits, attaches when the library is loaded (wraith says so)
  and its backtraces are complete."""
import shutil
import signal
import tempfile

from bt_support import *

require_root()
V = "O2"
SCRIPT = 'trace dl_run { print "x={}", x; bt; }'


def start_wraith(pid, extra=()):
    proc = subprocess.Popen([WRAITH, "-p", str(pid), "-s", SCRIPT, "--script-output", "json",
                             "--max-events", "5", "--timeout", "20"] + list(extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = ""
    while True:
        line = proc.stderr.readline()
        err += line
        if not line or "tracing" in line:
            return proc, err


def finish_wraith(proc, err):
    try:
        out, rest = proc.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, rest = proc.communicate()
    return proc.returncode, json_events(out), err + rest


def check_events(label, evs, first_x):
    check(len(evs) == 5, "%s: 5 events (%d)" % (label, len(evs)))
    if not evs:
        return
    if first_x is not None:
        eq(evs[0]["items"][0]["text"], "x=%d" % first_x,
           "%s: the first event is the first call, in the iteration that loaded the library" % label)
    bts = [ev["items"][1] for ev in evs]
    # The first call can come before wraith has read the process's new
    # mapping (the uprobe is on the file, armed before dlopen maps it):
    # that one backtrace may then say offsets-unavailable, never a wrong
    # frame; every later one is complete.
    first_ok = bts[0]["status"] in ("complete", "offsets-unavailable")
    if bts[0]["status"] != "complete":
        bts = bts[1:]
    check(first_ok and all(bt["status"] == "complete" for bt in bts),
          "%s: complete backtraces (%s)" % (label, sorted(set(bt["status"] for bt in bts))))
    check(all(flat(wraith_groups(bt))[:3] == ["dl_run", "through_lib", "main"] for bt in bts),
          "%s: dl_run <- through_lib <- main (%s)" % (label, bts and flat(wraith_groups(bts[0]))))


# 1. the library next to the program: placed on its file before the dlopen
for v in (V, "clang-" + V):
    label = "next to the program (%s)" % v
    fx = Fixture("dlhost-%s" % v, [20000, -1])
    proc, err = start_wraith(fx.pid)
    check("has not loaded yet" in err and "libfix_dl-" in err,
          "%s: wraith found the library on disk (%r)" % (label, err[-300:]))
    time.sleep(0.2)
    os.kill(fx.pid, signal.SIGUSR1)
    loaded = fx.proc.stdout.readline().strip()
    rc, evs, err = finish_wraith(proc, err)
    fx.stop()
    check(loaded.startswith("loaded at "), "%s: dlhost loaded its library (%r)" % (label, loaded))
    eq(rc, 0, "%s: wraith exits 0 (%r)" % (label, err[-300:]))
    check_events(label, evs, int(loaded.split()[-1]) if loaded.startswith("loaded at ") else None)

# 2. the library elsewhere: refused, or pending with --pending
prog_dir, lib_dir = tempfile.mkdtemp(prefix="wraith-pend-"), tempfile.mkdtemp(prefix="wraith-pend-")
try:
    shutil.copy(fixture("dlhost-%s" % V), prog_dir)
    shutil.copy(fixture("libfix_dl-%s.so" % V), lib_dir)
    fx = Fixture(os.path.join(prog_dir, "dlhost-%s" % V), [1000, -1, -1, lib_dir])
    res = run(["-p", fx.pid, "-s", SCRIPT])
    check(res.returncode == 2 and "no function 'dl_run'" in res.stderr and "--pending" in res.stderr,
          "elsewhere, without --pending: refused, with a hint on --pending (%r)" % res.stderr[-400:])
    proc, err = start_wraith(fx.pid, ["--pending"])
    check("is pending" in err, "elsewhere, with --pending: wraith says the probe waits (%r)" % err[-300:])
    os.kill(fx.pid, signal.SIGUSR1)
    rc, evs, err = finish_wraith(proc, err)
    fx.stop()
    eq(rc, 0, "with --pending: wraith exits 0 (%r)" % err[-300:])
    check("loaded just now" in err, "with --pending: wraith says when the probe attached (%r)" % err[-300:])
    check_events("with --pending", evs, None)
finally:
    shutil.rmtree(prog_dir)
    shutil.rmtree(lib_dir)

check_no_leftovers("after the pending-probe tests")
finish()
