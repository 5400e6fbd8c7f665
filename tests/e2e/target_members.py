"""target_members.py - `-t PROGRAM` traces that program's processes only.
A probe in a library (clock_nanosleep in a copy of libc beside the program,
lib_fn in the program's own libmember.so) sits on the library's file and fires in every process that
maps it: another program calling the same functions through the same
files must bring no event and no hit.  The program's processes all count:
one running before wraith, one started after it (every call from its
first, complete backtraces), and a child one of them forks; a process
that exec()s another program (/bin/sleep, which calls clock_nanosleep at
once) drops out.  Built by gcc and by clang-19 (memberprog.py), each the
target in turn while the other runs beside it."""
import re
import signal

from memberprog import build, functions, maps_private_libc, private_libc
from wraithtest import *

require_root()
SCRIPT = ('trace clock_nanosleep { print "N {}", $pid; bt; }\n'
          'trace lib_fn { print "L {} {}", $pid, x; bt; }')
ROUNDS = 30


def case(target, other):
    a = Fixture(target, [2000], env=ENV)
    o = Fixture(other, [2000], env=ENV)
    check(maps_private_libc(a.pid, PROGS) and maps_private_libc(o.pid, PROGS),
          "both programs run on the copy of libc")
    proc = subprocess.Popen([WRAITH, "-t", target, "-s", SCRIPT, "--script-output", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = b = None
    try:
        ready = proc.stderr.readline()
        check("in every process of" in ready, "-t status line (%r)" % ready)
        lines = Lines(proc.stdout)
        b = Fixture(target, [1000, ROUNDS])
        eq(b.proc.stdout.readline(), "done\n", "the program started after wraith ran to its end")
        os.kill(a.pid, signal.SIGUSR1)
        m = re.match(r"child (\d+)", a.proc.stdout.readline())
        child = int(m.group(1)) if m else None
        check(child, "the program forked")
        pids = lambda ls: set(json.loads(l)["pid"] for l in ls)
        check(lines.wait(lambda ls: child in pids(ls)), "events from the forked child")
        os.kill(child, signal.SIGUSR2)
        wait_until(lambda: os.path.realpath("/proc/%d/exe" % child).endswith("/sleep"))
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if child and os.path.exists("/proc/%d" % child):
            os.kill(child, signal.SIGKILL)
        a.stop()
        o.stop()
        if b:
            b.stop()
    err = proc.stderr.read()
    eq(proc.returncode, 0, "-t run ends with Ctrl-C, exit 0 (%r)" % err[-300:])
    evs = json_events(lines.text())
    pids = set(e["pid"] for e in evs)
    check(o.pid not in pids, "no event from the other program, which maps the same libraries")
    check(pids <= {a.pid, b.pid, child}, "events from the program's processes only (%s, want %s)"
          % (sorted(pids), sorted({a.pid, b.pid, child})))
    for pid, who in ((a.pid, "running before wraith"), (child, "forked")):
        check(any(e["pid"] == pid and e["probe"] == 2 for e in evs),
              "lib_fn events from the process %s" % who)
    mine = [e for e in evs if e["pid"] == b.pid]
    xs = [int(e["items"][0]["text"].split()[2]) for e in mine if e["probe"] == 2]
    eq(xs, list(range(ROUNDS)), "the process started after wraith: lib_fn from its first call")
    eq(len([e for e in mine if e["probe"] == 1]), ROUNDS,
       "the process started after wraith: clock_nanosleep from its first call")
    check(all(e["items"][1]["status"] == "complete" for e in mine),
          "its backtraces are complete from the first (%s)" % sorted(set(e["items"][1]["status"] for e in mine)))
    check(all(functions(e)[:3] == ["lib_fn", "work", "main"] for e in mine if e["probe"] == 2),
          "its lib_fn backtraces name lib_fn <- work <- main")
    check(all("usleep" in functions(e) for e in evs if e["probe"] == 1),
          "every clock_nanosleep event comes from the program's usleep: none from /bin/sleep "
          "after the exec()")
    for pid_probe, name in ((1, "clock_nanosleep"), (2, "lib_fn")):
        m = re.search(r"#%d %s: (\d+) hits, (\d+) delivered[^\n]*" % (pid_probe, name), err)
        unread = re.search(r"(\d+) not read", m.group(0)) if m else None
        n = len([e for e in evs if e["probe"] == pid_probe])
        check(m and int(m.group(1)) - int(unread.group(1) if unread else 0) == n and int(m.group(2)) == n,
              "%s: the hits counted are the target's events, %d (%r)" % (name, n, m and m.group(0)))


PROGS = os.path.join(TESTDIR, "progs")
progs = build(PROGS)
ENV = private_libc(PROGS)
if "clang" in progs:
    case(progs["gcc"], progs["clang"])
    case(progs["clang"], progs["gcc"])
else:
    case(progs["gcc"], fixture("chain-O2"))
check_no_leftovers("after -t PROGRAM")
finish()
