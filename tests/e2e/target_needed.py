"""target_needed.py - `-t PROGRAM` before any process runs the program:
its libraries are found as the dynamic linker would find them (its
DT_NEEDED closure: libmember.so through $ORIGIN in DT_RPATH for the gcc
build, DT_RUNPATH for the clang-19 one; libc.so.6 through the linker's
cache, or through $ORIGIN once a copy lies beside the program, as in the
live runs here, whose probes must not sit on the system's libc:
memberprog.private_libc), so a probe on a function of one of them resolves
(--dry-run too) and fires from the first call of a process started later, with complete
backtraces, and only in that program's processes: the other build, on
the same library files, brings no event and no hit."""
import re
import signal

from memberprog import build, functions, maps_private_libc, private_libc
from wraithtest import *

require_root()
SCRIPT = ('trace lib_fn { print "L {} {}", $pid, x; bt; }\n'
          'trace clock_nanosleep { print "N {}", $pid; bt; }')
ROUNDS = 20


def dry(name, target):
    res = run(["--dry-run", "-t", target, "-s", 'trace lib_fn { print "{}", x; }\n'
               'trace nanosleep { print "n"; }'])
    eq(res.returncode, 0, "%s: --dry-run finds lib_fn and nanosleep before the program runs (%r)"
       % (name, res.stderr[-300:]))
    check("libmember.so+" in res.stdout and "libc.so.6+" in res.stdout,
          "%s: in libmember.so ($ORIGIN) and libc.so.6 (%r)" % (name, res.stdout[-300:]))


def case(name, target, other):
    o = Fixture(other, [2000])
    proc = subprocess.Popen([WRAITH, "-t", target, "-s", SCRIPT, "--script-output", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    b = None
    try:
        ready = proc.stderr.readline()
        check("in every process of" in ready, "%s: -t status line (%r)" % (name, ready))
        lines = Lines(proc.stdout)
        b = Fixture(target, [1000, ROUNDS])
        eq(b.proc.stdout.readline(), "done\n", "%s: the program ran its rounds" % name)
        check(maps_private_libc(b.pid, PROGS), "%s: the program ran on the copy of libc" % name)
        lines.wait(lambda ls: len(ls) >= 2 * ROUNDS, timeout=30)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        o.stop()
        if b:
            b.stop()
    err = proc.stderr.read()
    eq(proc.returncode, 0, "%s: ends with Ctrl-C, exit 0 (%r)" % (name, err[-300:]))
    evs = json_events(lines.text())
    eq(sorted(set(e["pid"] for e in evs)), [b.pid], "%s: events from the program's process only" % name)
    xs = [int(e["items"][0]["text"].split()[2]) for e in evs if e["probe"] == 1]
    eq(xs, list(range(ROUNDS)), "%s: lib_fn from the first call" % name)
    eq(len([e for e in evs if e["probe"] == 2]), ROUNDS, "%s: clock_nanosleep from the first call" % name)
    check(all(e["items"][1]["status"] == "complete" for e in evs),
          "%s: every backtrace complete (%s)" % (name, sorted(set(e["items"][1]["status"] for e in evs))))
    check(all(functions(e)[:3] == ["lib_fn", "work", "main"] for e in evs if e["probe"] == 1),
          "%s: lib_fn's backtraces name lib_fn <- work <- main" % name)
    check(all("usleep" in functions(e) for e in evs if e["probe"] == 2),
          "%s: clock_nanosleep's backtraces pass through usleep" % name)
    for probe, fn in ((1, "lib_fn"), (2, "clock_nanosleep")):
        m = re.search(r"#%d %s: (\d+) hits" % (probe, fn), err)
        check(m and int(m.group(1)) == ROUNDS, "%s: %s counts the program's hits only (%r)"
              % (name, fn, m and m.group(0)))


PROGS = os.path.join(TESTDIR, "progs")
progs = build(PROGS)
for name, path in progs.items():
    dry(name, path)
# The live runs find libc.so.6 through $ORIGIN: a copy beside the programs
private_libc(PROGS)
if "clang" in progs:
    case("gcc", progs["gcc"], progs["clang"])
    case("clang", progs["clang"], progs["gcc"])
else:
    case("gcc", progs["gcc"], fixture("chain-O2"))
check_no_leftovers("after -t PROGRAM started later")
finish()
