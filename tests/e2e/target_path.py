"""target_path.py - `-t PATH`: every process running a binary, those already
running and one started after wraith attached, each with its own mappings so
backtraces are complete in all of them, the new process's from its very
first event (the kernel hands the walk to userspace, which learns the new
process there and then); -t with -p: target_scope.py."""
import shutil
import signal
import subprocess

from wraithtest import *

require_root()
BIN = "chain-O2fp"
# A copy of its own: other tests run the fixture at the same time.
path = os.path.join(TESTDIR, BIN)
shutil.copy(fixture(BIN), path)
a = Fixture(path, [2000])
proc = subprocess.Popen([WRAITH, "-t", path, "-s", 'trace leaf { print "{}", $pid; bt; }',
                         "--script-output", "json"], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
ready = proc.stderr.readline()
check("in every process of" in ready, "-t status line (%r)" % ready)
b = Fixture(path, [2000])
lines = Lines(proc.stdout)
lines.wait(lambda ls: {a.pid, b.pid} <= set(json.loads(l)["pid"] for l in ls))
proc.send_signal(signal.SIGINT)
proc.wait(timeout=30)
err = proc.stderr.read()
eq(proc.returncode, 0, "-t run ends with Ctrl-C, exit 0 (%r)" % err[-300:])
evs = json_events(lines.text())
pids = set(e["pid"] for e in evs)
check(a.pid in pids, "events from the process running before wraith started")
check(b.pid in pids, "events from the process started after wraith attached")
for pid in (a.pid, b.pid):
    mine = [e for e in evs if e["pid"] == pid]
    check(mine and all(e["items"][1]["status"] == "complete" for e in mine),
          "every backtrace in %d is complete, from its first event (%s)" % (
              pid, sorted(set(e["items"][1]["status"] for e in mine))))
    check(mine and all([f["function"] for f in e["items"][1]["frames"]][:4] == ["leaf", "middle", "outer", "main"]
                       for e in mine), "backtraces in %d name the chain" % pid)
a.stop()
b.stop()
check_no_leftovers("after -t")
finish()
