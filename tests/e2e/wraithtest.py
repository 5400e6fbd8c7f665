"""wraithtest.py - shared helpers for wraith's end-to-end tests.

Every test is a Python script run by `make check` (automake's test driver):
exit 0 passes, 1 fails, 77 skips.  Tests run wraith as root against live
fixture programs built by `make check` and use gdb as the oracle for
backtraces.  A test skips only when BPF uprobes are truly unavailable here,
and says why.
"""
import atexit
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FIXTURES = os.environ.get("WRAITH_FIXTURES", "")
SRCDIR = os.environ.get("WRAITH_SRCDIR", "")
# The wraith executable of the build under test (WRAITH below runs it).
WRAITH_BIN = os.environ.get("WRAITH", "")
BUILDDIR = os.path.dirname(WRAITH_BIN)

_children = []
_failures = []

# ---- isolation: end-to-end tests run in parallel (make -j) ----
# Each test has a directory of its own, NAME.dir beside its log: its
# temporary files (TMPDIR), its probe cache, its XDG configuration, state
# and cache homes (so no one's ~/.config/wraith/config.toml applies), and
# the list of the wraith processes it started; and the C locale.  WRAITH
# is a two-line wrapper in it that appends its PID to that list and execs
# the real wraith under the same PID, so every way a test starts wraith
# (argv, a shell command line, tmux, a prefix such as unshare) is
# recorded, and check_no_leftovers() looks at this test's wraiths only,
# not at those of tests running beside it or of anyone else on the
# machine.
TEST = os.path.splitext(os.path.basename(sys.argv[0]))[0]
TESTDIR = ""
WRAITH = WRAITH_BIN
_PIDS = ""


def _isolate():
    global TESTDIR, WRAITH, _PIDS
    top = os.path.join(os.environ.get("WRAITH_BUILDDIR") or os.getcwd(), "tests", "e2e")
    TESTDIR = os.path.join(top, TEST + ".dir")
    shutil.rmtree(TESTDIR, ignore_errors=True)
    for sub in ("bin", "tmp", "config", "state", "cache", "probe-cache"):
        os.makedirs(os.path.join(TESTDIR, sub))
    _PIDS = os.path.join(TESTDIR, "wraith.pids")
    WRAITH = os.path.join(TESTDIR, "bin", "wraith")
    with open(WRAITH, "w") as f:
        f.write("#!/bin/sh\n{ echo $$ >>'%s'; } 2>/dev/null\nexec '%s' \"$@\"\n" % (_PIDS, WRAITH_BIN))
    os.chmod(WRAITH, 0o755)
    env = {"WRAITH": WRAITH, "TMPDIR": os.path.join(TESTDIR, "tmp"),
           "XDG_CONFIG_HOME": os.path.join(TESTDIR, "config"),
           "XDG_STATE_HOME": os.path.join(TESTDIR, "state"),
           "XDG_CACHE_HOME": os.path.join(TESTDIR, "cache"),
           "WRAITH_PROBE_CACHE_DIR": os.path.join(TESTDIR, "probe-cache"),
           # wraith shows text as gdb does in the locale it runs in: one
           # locale for wraith and its oracles, whatever the machine's (a
           # test of another locale sets LC_ALL for both)
           "LC_ALL": "C"}
    os.environ.update(env)
    tempfile.tempdir = env["TMPDIR"]


if WRAITH_BIN and FIXTURES and sys.argv[0].endswith(".py") and TEST not in ("wraithtest", "bt_support"):
    _isolate()


def wraith_pids():
    """PIDs of the wraith processes this test started, oldest first."""
    try:
        with open(_PIDS) as f:
            return [int(l) for l in f.read().split()]
    except (OSError, ValueError):
        return []


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def require_root():
    """Skip unless BPF uprobes work here."""
    if not WRAITH_BIN or not FIXTURES:
        print("FAIL: WRAITH and WRAITH_FIXTURES must be set (run through `make check`)")
        sys.exit(1)
    if os.geteuid() != 0:
        skip("end-to-end tests need root to load BPF programs and attach uprobes")
    if not os.path.exists("/sys/bus/event_source/devices/uprobe/type"):
        skip("this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe missing)")


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


class Lines:
    """The lines of a stream (a child's stdout or stderr), read by a thread
    of their own as they come, so a test can wait for one without blocking
    for ever: wait() polls the lines read so far."""

    def __init__(self, stream):
        import threading
        self.lines, self.ended = [], False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self.ended = True
            self._cond.notify_all()

    def wait(self, test, timeout=60):
        """Waits until test(lines) holds (True) or the stream ends or
        @timeout seconds pass (False)."""
        deadline = time.time() + timeout
        with self._cond:
            while not test(self.lines):
                left = deadline - time.time()
                if self.ended or left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def text(self, timeout=60):
        """Everything, once the stream has ended."""
        self._thread.join(timeout)
        with self._cond:
            return "".join(self.lines)


def load_base(pid, binary):
    """Where process @pid has loaded @binary: what to add to its symbols'
    values (0 when it is not position-independent)."""
    with open(binary, "rb") as f:
        if f.read(18)[16] != 3:  # e_type: not ET_DYN
            return 0
    real = os.path.realpath(binary)
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == real and int(parts[2], 16) == 0:
                return int(parts[0].split("-")[0], 16)
    return 0


def fixture_long(fx, symbol):
    """The value of the global long @symbol in the running fixture @fx
    (read from its memory: what the program has done so far)."""
    out = subprocess.run(["nm", fx.path], capture_output=True, text=True).stdout
    value = next(int(l.split()[0], 16) for l in out.splitlines() if l.split()[-1:] == [symbol])
    with open("/proc/%d/mem" % fx.pid, "rb") as mem:
        mem.seek(load_base(fx.pid, fx.path) + value)
        return int.from_bytes(mem.read(8), "little", signed=True)


def wait_until(test, timeout=60, step=0.05):
    """Polls test() until it holds (returns True) or @timeout seconds pass."""
    deadline = time.time() + timeout
    while not test():
        if time.time() >= deadline:
            return False
        time.sleep(step)
    return True


# A command prefix that runs wraith as on a machine without separate debug
# files (no libc6-dbg): /usr/lib/debug is an empty tmpfs in a mount
# namespace of its own.
WITHOUT_DEBUG_FILES = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                       'mount -t tmpfs none /usr/lib/debug && exec "$@"', "sh"]


# How long a wraith run may take before a test calls it hung: far above
# what a run needs, since how long its end takes is the kernel's.  With
# perf event links (a kernel without multi-uprobe links, or
# WRAITH_UPROBE_LINKS=perf) each detach waits for RCU grace periods under
# event_mutex, which every uprobe perf event on the machine takes: beside
# other builds' tests detaching 1,000 probes, a one-probe run of bt_cxx.py
# waited there past its 60 s guard on a loaded 2-CPU machine.
HANG_GUARD = 300


def run_until(args, test, timeout=60):
    """Run wraith with `args` until test(lines of its stdout so far) holds
    or @timeout seconds pass, then stop it with Ctrl-C; returns
    CompletedProcess (text).  For a test that needs some events whose
    number or order depends on the schedule (load, a slow reader)."""
    import signal
    p = subprocess.Popen([WRAITH] + [str(a) for a in args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines = Lines(p.stdout)
    try:
        lines.wait(test, timeout=timeout)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, lines.text(), p.stderr.read())


def run(args, timeout=HANG_GUARD, input=None, env=None, prefix=()):
    """Run wraith with `args` (after the command `prefix`, if any);
    returns CompletedProcess (text)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    return subprocess.run(list(prefix) + [WRAITH] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout, input=input, env=e)


def read_terminal(master):
    """The bytes written to the terminal whose master side is `master`
    until its other side is closed (the program ended); closes `master`."""
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return out


def _no_duplicate_keys(pairs):
    """json's object hook: an object with two members of one name is an
    error (a parser would silently keep only the last)."""
    keys = [k for k, _ in pairs]
    dups = sorted(set(k for k in keys if keys.count(k) > 1))
    if dups:
        raise ValueError("duplicate keys %s in a JSON object" % dups)
    return dict(pairs)


def json_line(line):
    """One line of wraith's NDJSON, refused when an object repeats a key."""
    return json.loads(line, object_pairs_hook=_no_duplicate_keys)


def schema_validator():
    """A validator of doc/event.schema.json (itself checked first), which
    every line of wraith's NDJSON must pass."""
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is not installed (scripts/install-deps.sh installs it)")
        finish()
    with open(os.path.join(SRCDIR, "doc", "event.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def json_events(stdout):
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line:
            events.append(json_line(line))
    return events


def split_top(s, key_re=None):
    """s cut at each ', ' outside quotes and brackets ((), [], {}, <>; not
    the > of ->) and, with key_re, only where a match of it follows (a
    member's or an argument's name): 'a, (b, c), "d, e"' -> ['a', '(b, c)',
    '"d, e"']; '' -> []."""
    out, depth, cur, quoted, i = [], 0, "", False, 0
    while i < len(s):
        ch = s[i]
        if ch == '"' and (i == 0 or s[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "([{<":
            depth += 1
        elif not quoted and ch in ")]}>" and not (ch == ">" and i and s[i - 1] == "-"):
            depth -= 1
        if (not quoted and depth == 0 and s.startswith(", ", i)
                and (key_re is None or re.match(key_re, s[i + 2:]))):
            out.append(cur)
            cur, i = "", i + 2
            continue
        cur += ch
        i += 1
    return out + [cur] if cur or out else []


def split_members(s):
    """A struct's text, '{a: 1, b: {x: 2}}' (or a reference's, '(T &)
    @0x...: {...}'), as {'a': '1', 'b': '{x: 2}'}."""
    s = s.strip()
    if s.startswith("(") and ": {" in s:
        s = s[s.index(": {") + 2:]
    parts = [p.partition(": ") for p in split_top(s[1:-1], r"[A-Za-z_]\w*: ")]
    return {name.strip(): value for name, _, value in parts}


def printer_norm(v):
    """gdb's text of a value its printers show in wraith's shape: struct
    members `x: 1` (a container keeps its printer's text), a failed read
    `<unreadable>`, addresses 0x?."""
    v = re.sub(r"<error: Cannot access memory at address 0x[0-9a-f]+>", "<unreadable>", v)
    v = re.sub(r"0x[0-9a-f]+", "0x?", v)
    return re.sub(r"(\{|, )([A-Za-z_]\w*) = ", r"\1\2: ", v)


def split_args(s, keep_entry=False):
    """A bt's argument list, 'a=1, b={x: 1, y: 2}' -> {'a': '1', 'b': '{x:
    1, y: 2}'}.  gdb's 'a=a@entry=1' (the value is also what the caller
    passed) is '1', as `info args` shows it, unless keep_entry."""
    out = {}
    for a in split_top(s, r"[A-Za-z_][\w@]*="):
        name, eqs, value = a.partition("=")
        name = name.strip()
        if eqs:
            out[name] = value if keep_entry or not value.startswith(name + "@entry=") \
                else value[len(name) + 7:]
    return out


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


def _alive(pid):
    """Whether @pid runs (a zombie has closed its files: not alive)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def our_programs(pid=None):
    """Names of loaded BPF programs of wraith: every program is named
    wr<PID>_<N> (zero-padded) after the wraith process that loaded it.  With `pid`, only
    that process's; without, those of the wraith processes this test
    started that are no longer alive (leaked)."""
    out = subprocess.run(["bpftool", "prog", "list"], capture_output=True, text=True).stdout
    mine = set(wraith_pids()) if pid is None else {pid}
    found = []
    for name, owner in re.findall(r"name (wr(\d+)_\w+)", out):
        owner = int(owner)
        if owner in mine and (pid is not None or not _alive(owner)):
            found.append(name)
    return found


def our_uprobe_events():
    """Uprobe events in tracefs made for this test's wraiths.  wraith makes
    none (it opens uprobes on the uprobe PMU); libbpf's fallback would name
    them libbpf_<PID>_..."""
    mine = set(wraith_pids())
    for base in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        path = os.path.join(base, "uprobe_events")
        if os.path.exists(path):
            with open(path) as f:
                return [l for l in f.read().splitlines()
                        if any(int(p) in mine for p in re.findall(r"(?:libbpf_|\bwr)(\d+)_", l))]
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
    """No BPF program or uprobe event of the wraiths this test started is
    left once they have ended (the kernel frees a program shortly after
    its last file closes: wait for that, not for a time)."""
    deadline = time.time() + 30
    progs = our_programs()
    while progs and time.time() < deadline:
        time.sleep(0.1)
        progs = our_programs()
    check(not progs, "%s: no BPF program of wraith left loaded (found %s)" % (what, progs))
    check(not our_uprobe_events(), "%s: no uprobe event of wraith left" % what)


# ---- pprof profiles, decoded with protoc ----

def parse_text_proto(text):
    """protoc's text format as nested dicts: each field a list of values."""
    root, stack = {}, []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if line.endswith("{"):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        elif line == "}":
            cur = stack.pop()
        elif ":" in line:
            k, v = line.split(":", 1)
            v = v.strip()
            cur.setdefault(k.strip(), []).append(json.loads(v) if v.startswith('"') else int(v)
                                                 if v.lstrip("-").isdigit() else v)
    return root


def decode_pprof(path):
    raw = gzip.open(path).read()
    r = subprocess.run(["protoc", "--decode=perftools.profiles.Profile",
                        "-I", os.path.join(SRCDIR, "src", "render"), "profile.proto"],
                       input=raw, capture_output=True)
    if r.returncode:
        raise AssertionError("protoc --decode failed: %s" % r.stderr.decode())
    return parse_text_proto(r.stdout.decode())


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


def gdb_python(script, target, timeout=120, tag="WRVALUES", **defs):
    """Run the gdb Python @script in batch mode on @target: a PID (bound
    to PID for the script to attach to) or a binary (for the script to
    run).  Each keyword argument is bound to its name before the script
    runs.  Returns the JSON of every line the script wrote starting with
    @tag and a space; with none, shows the end of gdb's output and
    returns []."""
    head = "".join("%s = %r\n" % kv for kv in sorted(defs.items()))
    argv = ["gdb", "-batch", "-nx", "-x"]
    if isinstance(target, int):
        head = "PID = %d\n" % target + head
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(head + script)
        path = f.name
    argv.append(path)
    if not isinstance(target, int):
        argv.append(target)
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(path)
    got = [json.loads(l[len(tag) + 1:]) for l in res.stdout.splitlines() if l.startswith(tag + " ")]
    if not got:
        print("gdb wrote no %s line for %s:\n%s%s" % (tag, target, res.stdout[-1500:], res.stderr[-1500:]))
    return got


_GDB_FRAME_VALUES = r'''
import gdb, json
gdb.execute("set pagination off")
gdb.execute("attach %d" % PID, to_string=True)
for pc in pcs:
    gdb.execute("break *0x%x" % pc, to_string=True)
out = {}
while len(out) < len(pcs):
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    pc = int(gdb.parse_and_eval("$pc"))
    f = gdb.newest_frame()
    while through_inline and f is not None and f.name() != function and f.type() == gdb.INLINE_FRAME:
        f = f.older()
    if f is not None and f.name() == function:
        f.select()
        out["%x" % pc] = dict((n, str(gdb.parse_and_eval(n))) for n in names)
    else:
        out["%x" % pc] = None
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("detach", to_string=True)
'''


def gdb_frame_values(pid, pcs, function, names, timeout=180, through_inline=False):
    """gdb at each of @pcs of live process @pid, once each: {"%x" % pc:
    {name: gdb's print of it}} for each of @names where the newest frame is
    @function (with @through_inline, or a call inlined into it there, as
    `up` reaches it), None where it is not (a pc only location views place
    in an inlined function); a pc the process did not reach is missing."""
    got = gdb_python(_GDB_FRAME_VALUES, pid, timeout=timeout, pcs=list(pcs), function=function,
                     names=list(names), through_inline=through_inline)
    return got[0] if got else {}


def trace_sites(path, patterns):
    """{pattern: set of out-of-line site addresses (module vaddrs)} of
    `trace PATTERN` for each of @patterns in the program or library
    @path, by one --dry-run (it attaches nothing)."""
    res = run(["-t", path, "-s", " ".join("trace %s { }" % p for p in patterns), "--dry-run"])
    check(res.returncode == 0, "%s: --dry-run of %s (%s)" % (path, patterns, res.stderr[-300:]))
    sites, cur = {}, None
    for line in res.stdout.splitlines():
        m = re.match(r"probe (\d+): ", line)
        if m:
            cur = patterns[int(m.group(1)) - 1]
        m = re.match(r"\s+#\d+ \S+\+(0x[0-9a-f]+) \(file offset 0x[0-9a-f]+\) (inline )?", line)
        if m and cur and not m.group(2):
            sites.setdefault(cur, set()).add(int(m.group(1), 16))
    return sites


def gdb_break_sites(path, patterns):
    """{pattern: set of addresses} where gdb's `break PATTERN` stops in
    @path (not run)."""
    args = ["gdb", "-batch", "-nx", path]
    for p in patterns:
        args += ["-ex", "echo @@%s\\n" % p, "-ex", "break %s" % p, "-ex", "info breakpoints", "-ex", "delete"]
    sites, cur = {}, None
    for line in subprocess.run(args, capture_output=True, text=True, timeout=120).stdout.splitlines():
        if line.startswith("@@"):
            cur = line[2:]
            continue
        m = re.match(r"^\d+(?:\.\d+)?\s+(?:breakpoint\s+keep\s+)?y\s+(0x[0-9a-f]+)", line)
        if m and cur:
            sites.setdefault(cur, set()).add(int(m.group(1), 16))
    return sites


def bt_args_frames(pid, point):
    """[(function, args text as gdb writes it)] of the first event's
    backtrace of `trace POINT { bt args; }` in live process @pid, up to
    main."""
    res = run(["-p", pid, "-s", "trace %s { bt args; }" % point, "--max-events", 1, "--script-output",
               "json", "-q"])
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s is traced (%s)" % (point, res.stderr[-300:]))
    out = []
    for f in ([it for it in ev[0]["items"] if it["type"] == "backtrace"][0]["frames"] if ev else []):
        args = ", ".join("%s=%s@entry=%s" % (a["name"], a["name"], a["value"]) if a.get("entry")
                         else "%s=%s" % (a["name"], a["value"]) for a in f.get("args", []))
        out.append((f["function"], args))
        if f["function"] == "main":
            break
    return out


def gdb_bt_args(pid, point, then=()):
    """gdb's `bt` at breakpoint @point of live process @pid (past main on):
    [(function, args text)] up to main, and gdb's whole output, which
    has the commands of @then run after the bt."""
    cmds = ["set backtrace past-main on", "break %s" % point, "continue", "bt 8"] + list(then) + ["detach"]
    argv = ["gdb", "-batch", "-nx", "-p", str(pid)]
    for c in cmds:
        argv += ["-ex", c]
    gdb = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    out = []
    for name, args in re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\w+) \((.*)\) at ", gdb.stdout, re.M):
        out.append((name, args))
        if name == "main":
            break
    return out, gdb.stdout


def wraith_stack(bt_item, stop_at_main=True):
    """Function names of a JSON backtrace item, innermost first (inline frames
    included), cut after main the way gdb cuts by default."""
    names = []
    for fr in bt_item["frames"]:
        names.append(fr["function"] if fr["function"] else "??")
        if stop_at_main and fr["function"] == "main" and not fr["inline"]:
            break
    return names


_tmux_sockets = []


def tmux_socket(tag):
    """A tmux server socket (tmux -L) of this test's own.  Its server, and
    the wraith shells inside it with their probes, end with the test
    however it ends: at exit, or on SIGTERM, SIGHUP or SIGINT (a
    harness's timeout, a user's ^C)."""
    sock = "wraith-%s-%d" % (tag, os.getpid())
    _tmux_sockets.append(sock)
    return sock


def _cleanup():
    for p in _children:
        if p.poll() is None:
            p.kill()
            p.wait()
    while _tmux_sockets:
        subprocess.run(["tmux", "-L", _tmux_sockets.pop(), "kill-server"], capture_output=True,
                       timeout=30)


def _on_signal(signum, frame):
    sys.exit(128 + signum)  # SystemExit runs the atexit cleanup


atexit.register(_cleanup)
for _sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


def finish():
    """Ends the test: exit 1 if a check failed, else 0 (its directory is
    removed then; a failing test's stays for a look)."""
    _cleanup()
    if _failures:
        print("%d check(s) failed; this test's files: %s" % (len(_failures), TESTDIR))
        sys.exit(1)
    if TESTDIR:
        shutil.rmtree(TESTDIR, ignore_errors=True)
    sys.exit(0)
