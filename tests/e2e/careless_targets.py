"""careless_targets.py - targets that are not what they seem.

A zombie and a missing PID get the same exit status (2) and a message
that says which it was.  A module whose .debug_info is corrupted gets one
warning (not one per probe or lookup) saying what will not work, and
backtraces through it still unwind.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

from wraithtest import *

require_root()
SCRIPT = 'trace main { print "x"; }'

# ---- a zombie and a missing PID ----
zombie = subprocess.Popen(["/bin/sh", "-c", "exit 0"])
deadline = time.time() + 10
while time.time() < deadline:
    with open("/proc/%d/stat" % zombie.pid) as f:
        if f.read().split(") ")[1].startswith("Z"):
            break
    time.sleep(0.05)
r = run(["-p", zombie.pid, "-s", SCRIPT])
eq(r.returncode, 2, "a zombie: exit status 2")
eq(r.stderr, "wraith: process %d has exited (a zombie its parent has not reaped): there is "
   "nothing left to trace\n" % zombie.pid, "a zombie: says it has exited")
zombie.wait()
gone = zombie.pid
r = run(["-p", gone, "-s", SCRIPT])
eq(r.returncode, 2, "a missing PID: the same exit status as a zombie")
eq(r.stderr, "wraith: no process with PID %d\n" % gone, "a missing PID: says so")

# ---- corrupted .debug_info ----
top = tempfile.mkdtemp(prefix="wraith-corrupt-")
copy = os.path.join(top, "vars-corrupt")
shutil.copy(fixture("vars-O0"), copy)
sections = subprocess.run(["readelf", "-S", "-W", copy], capture_output=True, text=True).stdout
m = re.search(r"\.debug_info\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)", sections)
check(m is not None, "the fixture has .debug_info")
with open(copy, "r+b") as f:
    f.seek(int(m.group(1), 16) + 4)  # the first unit's version
    f.write(b"\xff\xff")
fx = Fixture(copy, [20])
r = run(["-p", fx.pid, "-s", 'trace probe_here { print "a"; bt; } trace main { print "b"; }',
         "--max-events", 2, "--script-output", "json"])
eq(r.returncode, 0, "corrupted .debug_info: still traces")
warning = ("wraith: warning: vars-corrupt: its DWARF debug info (.debug_info) is corrupted "
           "(invalid DWARF version): variables, FILE:LINE probes, parameters and source lines "
           "of its code will be missing; backtraces still unwind\n")
eq(r.stderr.count(warning), 1, "corrupted .debug_info: one warning saying what will not work "
   "(%.300r)" % r.stderr)
events = json_events(r.stdout)
bts = [it for ev in events for it in ev["items"] if it["type"] == "backtrace"]
check(bts and bts[0]["status"] == "complete" and
      [f["function"] for f in bts[0]["frames"]][:2] == ["probe_here", "main"],
      "corrupted .debug_info: backtraces still unwind (%.200r)" % bts[:1])
r = run(["-p", fx.pid, "-s", 'trace probe_here { print "{}", n; }'])
eq(r.returncode, 2, "corrupted .debug_info: a variable is an error")
check(r.stderr.startswith(warning), "corrupted .debug_info: the warning comes first")
fx.stop()
shutil.rmtree(top, ignore_errors=True)
check_no_leftovers("careless_targets")
finish()
