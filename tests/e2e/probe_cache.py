"""probe_cache.py - compiled probes kept between runs (--probe-cache-dir,
WRAITH_PROBE_CACHE_DIR): on a gcc and a clang build of chain.c, a second
run of the same script against the same process, or another process of the
same program, takes its probe, and the kernel BTF cut for the unwinder,
from the cache (-v says so) and prints the same backtraces as the first,
which compiled it, from the traced process only; the cached program is
loaded under this run's name
(wr<PID>_<N>, as bpftool lists it); a --dry-run fills the cache too; a
directory others may write to is not used (and -v says why), nor is any
with --probe-cache off; a file of the working directory never gets into a
compiled probe; the names of modules' globals are kept there too, and a
second run looking up a libc global reads libc's list and prints
gdb's value, as the first did; nothing is left loaded."""
import os
import subprocess
import tempfile
import time

from wraithtest import *

require_root()
SCRIPT = "trace leaf { bt; }"


def entries(cache):
    return sorted(f for f in os.listdir(cache) if f.endswith(".wpc"))


def stacks_of(res, what):
    check(res.returncode == 0, "%s: exit 0 (got %d, stderr %r)" % (what, res.returncode,
                                                                    res.stderr[-400:]))
    evs = json_events(res.stdout)
    return [wraith_stack(it) for e in evs for it in e["items"] if it["type"] == "backtrace"]


def loaded_names(args, env):
    """Start wraith with @args, and return the names bpftool lists for its
    programs once it traces, and its pid."""
    e = dict(os.environ)
    e.update(env)
    p = subprocess.Popen([WRAITH] + [str(a) for a in args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=e)
    names, deadline = [], time.time() + 20
    while not names and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
        names = our_programs(p.pid)
    p.send_signal(2)
    err = p.communicate(timeout=20)[1]
    return names, p.pid, err


for binary in ("chain-O2fp", "chain-clang-O2fp"):
    fx = Fixture(binary, [200])
    cache = tempfile.mkdtemp(prefix="wraith-pcache-")
    env = {"WRAITH_PROBE_CACHE_DIR": cache}
    args = ["-v", "-p", fx.pid, "-s", SCRIPT, "--max-events", 3, "--script-output", "json"]

    first = run(args, env=env)
    check("site 1: compiled in" in first.stderr, "%s: the first run compiles the probe" % binary)
    eq(len(entries(cache)), 2, "%s: and stores it, and the kernel BTF cut, in the cache" % binary)
    second = run(args, env=env)
    check("site 1: from the probe cache in" in second.stderr,
          "%s: the second run takes it from the cache (%r)" % (binary, second.stderr[-300:]))
    check("compiled in" not in second.stderr, "%s: and compiles nothing" % binary)
    check("kernel BTF cut made" in first.stderr and "kernel BTF cut from the cache" in second.stderr,
          "%s: the kernel BTF cut for the unwinder is made once, then read from the cache" % binary)
    s1, s2 = stacks_of(first, binary + " first run"), stacks_of(second, binary + " second run")
    eq(len(s2), 3, "%s: the cached probe delivers its events" % binary)
    check(s1 and s1[0][:4] == ["leaf", "middle", "outer", "main"],
          "%s: the backtrace is leaf <- middle <- outer <- main (%r)" % (binary, s1[:1]))
    eq(s2, s1, "%s: both runs print the same backtraces" % binary)

    # loaded under this run's name
    names, pid, err = loaded_names(["-v", "-p", fx.pid, "-s", SCRIPT, "--timeout", 15, "-q"], env)
    check("from the probe cache" in err, "%s: the live run took the probe from the cache" % binary)
    eq(names, ["wr%07d_00001" % pid], "%s: bpftool lists the cached program under this run's name"
       % binary)

    # another process of the same program hits too (which process a probe
    # takes is in its uprobe's cookie, not in the program), and its events
    # are that process's only, while the first one keeps calling leaf
    fx2 = Fixture(binary, [200])
    res = run(["-v", "-p", fx2.pid, "-s", SCRIPT, "--max-events", 3, "--script-output", "json"],
              env=env)
    check("site 1: from the probe cache in" in res.stderr,
          "%s: a new process of the program takes the probe from the cache (%r)"
          % (binary, res.stderr[-300:]))
    eq(stacks_of(res, binary + " other process"), s1, "%s: with the same backtraces" % binary)
    eq(set(e["pid"] for e in json_events(res.stdout)), {fx2.pid},
       "%s: only the traced process's hits are events" % binary)
    fx2.stop()

    # a dry run fills the cache; a real run then uses it
    dry = tempfile.mkdtemp(prefix="wraith-pcache-")
    res = run(["--dry-run", "-p", fx.pid, "-s", SCRIPT], env={"WRAITH_PROBE_CACHE_DIR": dry})
    check(res.returncode == 0 and len(entries(dry)) >= 1, "%s: --dry-run stores its probe" % binary)
    # the probe's line info names no file a user can make: a file
    # "wraith-script" in the working directory stays out of the object
    cwd = tempfile.mkdtemp(prefix="wraith-cwd-")
    marker = "wraith-cwd-marker-%d" % os.getpid()
    with open(os.path.join(cwd, "wraith-script"), "w") as f:
        f.write("// %s\n" % marker * 50)
    other = tempfile.mkdtemp(prefix="wraith-pcache-")
    res = subprocess.run([WRAITH, "--dry-run", "-p", str(fx.pid), "-s", SCRIPT], cwd=cwd,
                         capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, WRAITH_PROBE_CACHE_DIR=other))
    check(res.returncode == 0 and entries(other), "%s: a dry run from another directory stores "
          "its probe (%r)" % (binary, res.stderr[-300:]))
    for name in entries(other):
        with open(os.path.join(other, name), "rb") as f:
            check(marker.encode() not in f.read(), "%s: %s holds nothing of the working "
                  "directory's wraith-script" % (binary, name))
    subprocess.run(["rm", "-rf", cwd, other])
    res = run(args, env={"WRAITH_PROBE_CACHE_DIR": dry})
    check("from the probe cache in" in res.stderr, "%s: a run after the dry run uses it" % binary)
    eq(len(stacks_of(res, binary + " after --dry-run")), 3, "%s: and traces" % binary)

    # a directory others may write to is not used
    os.chmod(cache, 0o777)
    before = entries(cache)
    res = run(args, env=env)
    check("not used: others may write to it (mode 0777)" in res.stderr,
          "%s: -v says why a mode 0777 directory is not used" % binary)
    check("site 1: compiled in" in res.stderr, "%s: the probe is compiled then" % binary)
    eq(stacks_of(res, binary + " unsafe dir"), s1, "%s: and traces as before" % binary)
    eq(entries(cache), before, "%s: nothing is written there" % binary)
    os.chmod(cache, 0o700)

    # --probe-cache off
    res = run(args + ["--probe-cache", "off"], env=env)
    check("site 1: compiled in" in res.stderr and "probe cache" not in res.stderr,
          "%s: --probe-cache off compiles and leaves the cache alone" % binary)

    # the names of each module's globals are kept too: a name no scope of
    # leaf declares is looked up in every module, and a second run skips a
    # module whose list lacks it (-v says which lists it read); the value,
    # a global of libc, is the same in both runs and is gdb's
    names = tempfile.mkdtemp(prefix="wraith-pcache-")
    nenv = {"WRAITH_PROBE_CACHE_DIR": names}
    gargs = ["-v", "-p", fx.pid, "-s", 'trace leaf { print "n={}", __progname; }',
             "--max-events", 1]
    g1 = run(gargs, env=nenv)
    check(g1.returncode == 0, "%s: a libc global prints (%r)" % (binary, g1.stderr[-400:]))
    check("global names of" not in g1.stderr, "%s: the first run reads no list" % binary)
    stored = len(entries(names))
    g2 = run(gargs, env=nenv)
    check(g2.returncode == 0 and "global names of libc.so.6: " in g2.stderr,
          "%s: the second run reads libc's list of globals (%r)" % (binary, g2.stderr[-600:]))
    eq(len(entries(names)), stored, "%s: and stores no list again" % binary)
    v1 = [l for l in g1.stdout.splitlines() if "n=" in l]
    v2 = [l for l in g2.stdout.splitlines() if "n=" in l]
    check(v1 and v1 == v2, "%s: both runs print the same value (%r, %r)" % (binary, v1, v2))
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex",
                          "print __progname"], capture_output=True, text=True,
                         timeout=120)
    want = [l.split(" = ", 1)[1] for l in gdb.stdout.splitlines() if l.startswith("$1 = ")]
    check(want and v1 and v1[0].endswith("n=" + want[0]),
          "%s: the value is gdb's (%r, gdb %r)" % (binary, v1[:1], want))

    subprocess.run(["rm", "-rf", cache, dry, names])
    fx.stop()

check_no_leftovers("after the probe cache runs")
finish()
