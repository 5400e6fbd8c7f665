"""wraithtest.py - shared helpers for wraith's end-to-end tests.

Every test is a Python script run by `make check` (automake's test driver):
exit 0 passes, 1 fails, 77 skips.  Tests run wraith as root against live
fixture programs built by `make check` and use gdb as the oracle for
backtraces.  A test skips only when BPF uprobes are truly unavailable here,
and says why.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

WRAITH = os.environ.get("WRAITH", "")
FIXTURES = os.environ.get("WRAITH_FIXTURES", "")
SRCDIR = os.environ.get("WRAITH_SRCDIR", "")

_children = []
_failures = []


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


_lock = None


def require_root():
    """Skip unless BPF uprobes work here; then take the e2e lock: end-to-end
    tests run one at a time (even under make -j) because each checks that
    no BPF program of wraith is left loaded when it ends."""
    global _lock
    if not WRAITH or not FIXTURES:
        print("FAIL: WRAITH and WRAITH_FIXTURES must be set (run through `make check`)")
        sys.exit(1)
    if os.geteuid() != 0:
        skip("end-to-end tests need root to load BPF programs and attach uprobes")
    if not os.path.exists("/sys/bus/event_source/devices/uprobe/type"):
        skip("this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe missing)")
    import fcntl
    _lock = open(os.path.join(tempfile.gettempdir(), "wraith-e2e.lock"), "w")
    fcntl.flock(_lock, fcntl.LOCK_EX)


def fixture(name):
    path = os.path.join(FIXTURES, name)
    if not os.path.exists(path):
        fail("fixture %s was not built" % path)
        finish()
    return path


def fixture_source(name):
    return os.path.join(SRCDIR, "tests", "fixtures", name)


def marker_line(source, marker):
    """Line number (1-based) of the line containing `marker` in a fixture source."""
    with open(fixture_source(source)) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError("marker %r not in %s" % (marker, source))


class Paths:
    """paths.c, driven through its stdin: count_stacks.py and shell_stacks.py."""

    def __init__(self, name):
        self.p = subprocess.Popen([fixture(name)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.pid = int(self.p.stdout.readline().split()[1])

    def go(self, n):
        """Run @n rounds; the program's own counts (a, b, c, k0, k1, k2)."""
        self.p.stdin.write("go %d\n" % n)
        self.p.stdin.flush()
        return [int(x) for x in self.p.stdout.readline().split()[1:]]

    def stop(self):
        self.p.kill()
        self.p.wait()


class Fixture:
    """A running fixture program that printed 'ready <pid>'."""

    def __init__(self, name, args=(), env=None, cwd=None):
        self.path = fixture(name) if not os.path.isabs(name) else name
        self.proc = subprocess.Popen([self.path] + [str(a) for a in args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd)
        _children.append(self.proc)
        line = self.proc.stdout.readline()
        self.first_line = line or ""  # "ready <pid>" and what the fixture says after it
        m = re.match(r"ready (\d+)", line or "")
        if not m:
            self.stop()
            raise AssertionError("fixture %s did not start: %r" % (name, line))
        self.pid = int(m.group(1))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# A command prefix that runs wraith as on a machine without separate debug
# files (no libc6-dbg): /usr/lib/debug is an empty tmpfs in a mount
# namespace of its own.
WITHOUT_DEBUG_FILES = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                       'mount -t tmpfs none /usr/lib/debug && exec "$@"', "sh"]


def run(args, timeout=60, input=None, env=None, prefix=()):
    """Run wraith with `args` (after the command `prefix`, if any);
    returns CompletedProcess (text)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    return subprocess.run(list(prefix) + [WRAITH] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout, input=input, env=e)


def json_events(stdout):
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line:
            events.append(json.loads(line))
    return events


def check(cond, what):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what)
        _failures.append(what)
    return cond


def fail(what):
    check(False, what)


def eq(got, want, what):
    ok = got == want
    if not ok:
        what = "%s\n       got:  %r\n       want: %r" % (what, got, want)
    return check(ok, what)


def our_programs(pid=None):
    """Names of loaded BPF programs of wraith: every program is named
    wr<PID>_<N> after the wraith process that loaded it.  With `pid`, only
    that process's; without, those of wraith processes no longer alive
    (leaked), ignoring wraiths that other tests may be running."""
    out = subprocess.run(["bpftool", "prog", "list"], capture_output=True, text=True).stdout
    found = []
    for name, owner in re.findall(r"name (wr(\d+)_\w+)", out):
        owner = int(owner)
        if pid is not None:
            if owner == pid:
                found.append(name)
        elif not os.path.exists("/proc/%d" % owner):
            found.append(name)
    return found


def our_uprobe_events():
    for base in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        path = os.path.join(base, "uprobe_events")
        if os.path.exists(path):
            with open(path) as f:
                return [l for l in f.read().splitlines() if "wraith" in l or "wr_" in l]
    return []


def map_values(pid, name):
    """{key: value} of the BPF array map @name held by process @pid (a
    running wraith), as the kernel holds it (bpftool), or None."""
    ids = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                m = re.search(r"^map_id:\s*(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    for i in sorted(ids):
        show = subprocess.run(["bpftool", "-j", "map", "show", "id", str(i)], capture_output=True,
                              text=True).stdout
        if show and json.loads(show).get("name") == name:
            dump = subprocess.run(["bpftool", "-j", "map", "dump", "id", str(i)],
                                  capture_output=True, text=True).stdout
            return {e["formatted"]["key"]: e["formatted"]["value"] for e in json.loads(dump)}
    return None


def check_no_leftovers(what):
    deadline = time.time() + 5
    progs = our_programs()
    while progs and time.time() < deadline:
        time.sleep(0.1)
        progs = our_programs()
    check(not progs, "%s: no BPF program of wraith left loaded (found %s)" % (what, progs))
    check(not our_uprobe_events(), "%s: no uprobe event of wraith left" % what)


# ---- gdb, the oracle ----

FRAME_RE = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(.*)$")


def _gdb_function(rest):
    """The function name of one gdb `bt` line (text after '#N  [0x.. in ]')."""
    rest = re.sub(r" (at|from) \S+$", "", rest.strip())
    if rest.startswith("<signal handler called>"):
        return "<signal handler called>"
    # the argument list starts at the first ' (' (names may contain '()', e.g. operator())
    depth, i = 0, 0
    idx = rest.find(" (")
    name = rest if idx < 0 else rest[:idx]
    return name.strip()


def gdb_backtraces(binary, function, args=(), count=1, past_main=False, extra=()):
    """Run `binary args` under gdb, stop at `function` `count` times and
    return each backtrace as a list of function names, innermost first."""
    cmds = ["set pagination off", "set confirm off", "set print frame-arguments none"]
    if past_main:
        cmds.append("set backtrace past-main on")
    cmds += list(extra)
    cmds += ["break %s" % function, "run %s" % " ".join(str(a) for a in args)]
    for _ in range(count):
        cmds += ["bt", "continue"]
    cmds.append("kill")
    argv = ["gdb", "-batch", "-nx"]
    for c in cmds:
        argv += ["-ex", c]
    argv.append(binary)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    stacks, cur = [], None
    for line in out.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            continue
        if m.group(1) == "0":
            cur = []
            stacks.append(cur)
        if cur is not None:
            cur.append(_gdb_function(m.group(2)))
    return stacks


def wraith_stack(bt_item, stop_at_main=True):
    """Function names of a JSON backtrace item, innermost first (inline frames
    included), cut after main the way gdb cuts by default."""
    names = []
    for fr in bt_item["frames"]:
        names.append(fr["function"] if fr["function"] else "??")
        if stop_at_main and fr["function"] == "main" and not fr["inline"]:
            break
    return names


def finish():
    for p in _children:
        if p.poll() is None:
            p.kill()
            p.wait()
    if _failures:
        print("%d check(s) failed" % len(_failures))
        sys.exit(1)
    sys.exit(0)
