"""trace_exec.py - the traced process runs exec().  When it runs the same
program again, wraith says so and goes on: the probes fire in the new
image and its backtraces are complete (the new image sits at other
addresses).  When it runs another program, wraith says so and ends, with
exit status 0, instead of waiting silently for events that cannot come."""
import signal

from wraithtest import *

require_root()


def trace_exec(mode):
    fx = Fixture("execer-O2", [1000, mode])
    proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", "trace leaf { bt; }", "--script-output",
                             "json", "--timeout", "6"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    try:
        ready = proc.stderr.readline()
        time.sleep(1.0)
        os.kill(fx.pid, signal.SIGUSR1)
        again = fx.proc.stdout.readline() if mode == "self" else ""
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        fx.stop()
    return proc.returncode, json_events(out), ready + err, again, time.time() - t0


rc, evs, err, again, _ = trace_exec("self")
check(again.startswith("ready"), "the program ran exec() of itself (%r)" % again)
eq(rc, 0, "exec() of the same program: wraith runs on to --timeout, exit 0 (%r)" % err[-300:])
check("ran exec() of" in err and "again: the probes follow the new image" in err,
      "exec() of the same program: wraith says it follows the new image (%r)" % err[-300:])
bts = [ev["items"][0] for ev in evs]
check(bts and all(bt["status"] == "complete" for bt in bts),
      "every backtrace, before and after the exec(), is complete (%s)" % sorted(set(bt["status"] for bt in bts)))
leaf_ips = sorted(set(bt["frames"][0]["ip"] for bt in bts))
eq(len(leaf_ips), 2, "events come from both images, at their own addresses")
check(all([f["function"] for f in bt["frames"]][:3] == ["leaf", "work", "main"] for bt in bts),
      "the backtraces name leaf <- work <- main in both images")

rc, evs, err, _, took = trace_exec("other")
eq(rc, 0, "exec() of another program: wraith ends with exit 0 (%r)" % err[-300:])
check("ran exec() of another program (/usr/bin/sleep)" in err and "the trace ends" in err,
      "exec() of another program: wraith says which and why it ends (%r)" % err[-300:])
check(took < 5, "and it ends at once, not at --timeout (%.1f s)" % took)
check(len(evs) > 0, "events came before the exec()")

check_no_leftovers("after the exec tests")
finish()
