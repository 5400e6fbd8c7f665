"""always_ends.py - wraith always ends, probes detached.

- `wraith ... | head -2`: the closed output ends the run (status 0, one
  line on stderr), no BPF program or uprobe left behind.
- Every event causing another (wraith tracing malloc in every process that
  maps a copy of libc, itself included): --timeout, SIGINT and SIGTERM
  still end it, since events are read in bounded batches between checks;
  so do events slower to show than to come (`bt full` of a deep Python
  stack), since a batch is bounded in time too.
- Tracing wraith's own PID is refused (status 2).
- Ctrl-C shows the events still in the buffer: hits while wraith was
  stopped (SIGSTOP) come out after SIGINT, in order, none left "not read".
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from wraithtest import *

require_root()
fx = Fixture("vars-O0", [1])

# ---- a reader that stops reading ----
start = time.time()
p = subprocess.Popen("%s -p %d -s 'trace probe_here { print \"n={}\", n; }' | head -2"
                     % (WRAITH, fx.pid), shell=True, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
try:
    out, err = p.communicate(timeout=30)
    check(True, "| head -2: wraith ended (%.1f s)" % (time.time() - start))
    eq(len(out.splitlines()), 2, "| head -2: two lines")
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
    fail("| head -2: wraith ended")
check_no_leftovers("| head -2")

p = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", 'trace probe_here { print "x"; }',
                      "--script-output", "plain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdout.readline()
p.stdout.close()
try:
    rc = p.wait(timeout=30)
    err = p.stderr.read().decode()
    eq(rc, 0, "closed output: exit status 0")
    check("\nwraith: the output was closed; stopping\n" in "\n" + err, "closed output: says so "
          "(%r)" % err[-200:])
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    fail("closed output: wraith ended")
check_no_leftovers("closed output")

# ---- Ctrl-C reads what the buffer holds ----
fx1k = Fixture("vars-O0", [1000])
p = subprocess.Popen([WRAITH, "-p", str(fx1k.pid), "-s", 'trace probe_here { print "n={}", n; }',
                      "--script-output", "plain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
line = p.stderr.readline()
while line and "wraith: tracing" not in line:
    line = p.stderr.readline()
p.send_signal(signal.SIGSTOP)
# about 550 hits while wraith is stopped: their events wait in the ring buffer
calls = fixture_long(fx1k, "counter")
check(wait_until(lambda: fixture_long(fx1k, "counter") >= calls + 550),
      "Ctrl-C: the fixture calls on while wraith is stopped")
p.send_signal(signal.SIGINT)
p.send_signal(signal.SIGCONT)
try:
    out, err = p.communicate(timeout=30)
    ns = [int(l[2:]) for l in out.splitlines() if l.startswith("n=")]
    check(len(ns) >= 300, "Ctrl-C: the buffered events are shown (%d)" % len(ns))
    eq(ns, list(range(ns[0], ns[0] + len(ns))) if ns else [], "Ctrl-C: in order, none missing")
    m = re.search(r", (\d+) not read", err)
    check(not m or int(m.group(1)) <= 20, "Ctrl-C: at most a few hits after the read not read "
          "(%s)" % (m.group(0) if m else "none"))
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
    fail("Ctrl-C with buffered events: wraith ended")
fx1k.stop()
check_no_leftovers("Ctrl-C with buffered events")

# ---- every event causes another ----
# malloc of a copy of libc that only wraith itself and a process that
# calls malloc without end map (LD_LIBRARY_PATH): wraith's own mallocs
# (rendering, reading) fire its probe too, and nothing else on the machine
# is probed (tests run in parallel).  The second process keeps the storm
# going where wraith's malloc is the sanitizers'.
LIBDIR = os.path.join(TESTDIR, "libc")
os.makedirs(LIBDIR)
LIBC = os.path.join(LIBDIR, "libc.so.6")
shutil.copy(os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6"), LIBC)
ENV = dict(os.environ, LD_LIBRARY_PATH=LIBDIR)
STORM = ["-t", LIBC, "-s", 'trace malloc { print "m {}", $pid; }', "--script-output", "plain", "-q"]


# Events slower to show than the hits that make them (`bt full` of a
# deep Python stack, tens of ms each): --timeout still ends the run, since
# a batch is also bounded in time.
SLOW = ["-t", LIBC, "-s", "trace malloc { bt full; }", "--script-output", "plain", "-q"]
DEEP = "def f(n):\n    return bytearray(4096) if n == 0 else f(n - 1)\nwhile True: f(30)"


def storm(stop, how, script=STORM, hog_code="while True: bytearray(4096)"):
    args = [WRAITH] + script + (["--timeout", "2"] if stop is None else [])
    hog = subprocess.Popen([sys.executable, "-c", hog_code], env=ENV)
    out = os.path.join(TESTDIR, "storm.out")
    with open(out, "w") as f:
        p = subprocess.Popen(args, stdout=f, stderr=subprocess.PIPE, env=ENV)
    start = time.time()
    if stop is not None:
        # the storm is on once a good many events are out
        check(wait_until(lambda: os.path.getsize(out) > 200000 or p.poll() is not None),
              "self-feeding events: events flow (%s)" % how)
        p.send_signal(stop)
    try:
        p.wait(timeout=30)
        check(True, "self-feeding events: %s ends it (%.1f s)" % (how, time.time() - start))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        fail("self-feeding events: %s ends it" % how)
    hog.kill()
    hog.wait()
    p.stderr.close()
    check(os.path.getsize(out) > 0, "self-feeding events: events were printed (%s)" % how)
    check_no_leftovers("self-feeding events, " + how)


storm(None, "--timeout")
storm(None, "--timeout, events slower to show than to come", SLOW, DEEP)
storm(signal.SIGINT, "SIGINT")
storm(signal.SIGTERM, "SIGTERM")

# ---- tracing itself ----
r = subprocess.run(["/bin/sh", "-c", "exec %s -p $$ -s 'trace malloc { print \"m\"; }'" % WRAITH],
                   capture_output=True, text=True, timeout=30)
eq(r.returncode, 2, "wraith -p (its own PID): refused")
check("is this wraith itself: tracing it would feed on its own events" in r.stderr,
      "wraith -p (its own PID): says why (%r)" % r.stderr)

fx.stop()
finish()
