"""trace_exec.py - the traced process runs exec().  When it runs the same
program again, wraith says so and goes on: the probes fire in the new
image and its backtraces are complete (the new image sits at other
addresses).  When it runs another program, wraith says so and ends, with
exit status 0, instead of waiting silently for events that cannot come."""
import signal

from wraithtest import *

require_root()


def trace_exec(mode):
    """wraith on execer until the exec() (SIGUSR1) and after it: with
    "self", until an event of the new image (another leaf address) has
    come, then SIGINT; with "other", until wraith ends by itself."""
    fx = Fixture("execer-O2", [1000, mode])
    proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", "trace leaf { bt; }", "--script-output",
                             "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, again, ended = Lines(proc.stdout), "", False
    try:
        ready = proc.stderr.readline()
        out.wait(lambda lines: lines)  # an event of the first image
        os.kill(fx.pid, signal.SIGUSR1)
        if mode == "self":
            again = fx.proc.stdout.readline()
            ips = lambda lines: set(json.loads(l)["items"][0]["frames"][0]["ip"] for l in lines)
            out.wait(lambda lines: len(ips(lines)) >= 2)
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
            ended = True
        except subprocess.TimeoutExpired:
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        fx.stop()
    err = ready + proc.stderr.read()
    return proc.returncode if ended else None, json_events(out.text()), err, again


rc, evs, err, again = trace_exec("self")
check(again.startswith("ready"), "the program ran exec() of itself (%r)" % again)
eq(rc, 0, "exec() of the same program: wraith runs on until Ctrl-C, exit 0 (%r)" % err[-300:])
check("ran exec() of" in err and "again: the probes follow the new image" in err,
      "exec() of the same program: wraith says it follows the new image (%r)" % err[-300:])
bts = [ev["items"][0] for ev in evs]
check(bts and all(bt["status"] == "complete" for bt in bts),
      "every backtrace, before and after the exec(), is complete (%s)" % sorted(set(bt["status"] for bt in bts)))
leaf_ips = sorted(set(bt["frames"][0]["ip"] for bt in bts))
eq(len(leaf_ips), 2, "events come from both images, at their own addresses")
check(all([f["function"] for f in bt["frames"]][:3] == ["leaf", "work", "main"] for bt in bts),
      "the backtraces name leaf <- work <- main in both images")

rc, evs, err, _ = trace_exec("other")
eq(rc, 0, "exec() of another program: wraith ends by itself with exit 0 (%r)" % err[-300:])
check("ran exec() of another program (/usr/bin/sleep)" in err and "the trace ends" in err,
      "exec() of another program: wraith says which and why it ends (%r)" % err[-300:])
check(len(evs) > 0, "events came before the exec()")

check_no_leftovers("after the exec tests")
finish()
