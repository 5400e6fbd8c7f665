"""bt_support.py - helpers shared by the bt_*.py end-to-end tests (this file
is not a test itself; it runs nothing when executed).

The oracle is gdb: gdb_stacks() runs a fixture under gdb in batch mode, stops
at a function and records every frame gdb's backtrace walks (the same
unwinder and names as `bt`, read through gdb's Python API so that inline
frames, signal trampolines and modules are known exactly instead of parsed
from text).  wraith_bts() runs `wraith -p PID -s 'trace leaf { bt; }'` in
JSON.  compare_stack() checks one wraith backtrace against one gdb stack
physical frame by physical frame: same count, same module, same function
names (inline frames included).  Frames of system libraries (libc, ld.so)
are compared by name only where both tools name them (gdb reads libc's
separate debug file; a tool without it may leave such frames unnamed),
and by module always.  Case runs one fixture under both tools and
check_case() makes the standard checks.
"""
import json
import os
import re
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

from wraithtest import *

# Every fixture is built by gcc and by clang-19 in these variants (see
# tests/fixtures/fixtures.mk): optimisation, frame pointer, PIE.
GCC_VARIANTS = ("O0", "O2", "O2fp", "O0-nopie", "O2-nopie")
VARIANTS = GCC_VARIANTS + tuple("clang-" + v for v in GCC_VARIANTS)

# _dump() prints one "WRSTACK <json>" line: a list of frames {name,
# inline, sigtramp, tailcall, module, tid}, innermost first, past main.
_GDB_DUMP = r'''
import gdb, json, os

_vdso = None

def _vdso_range():
    global _vdso
    if _vdso is None:
        _vdso = (0, 0)
        with open("/proc/%d/maps" % gdb.selected_inferior().pid) as f:
            for line in f:
                if line.rstrip().endswith("[vdso]"):
                    _vdso = tuple(int(x, 16) for x in line.split()[0].split("-"))
    return _vdso

def _module(pc):
    name = gdb.solib_name(pc)
    lo, hi = _vdso_range()
    if name is None and lo <= pc < hi:
        return "[vdso]"   # gdb names it "system-supplied DSO", not a file
    if name is None:
        name = gdb.current_progspace().filename
    return os.path.basename(os.path.realpath(name)) if name else None

def _dump(at=None):
    out = []
    f = gdb.newest_frame()
    while f is not None:
        t = f.type()
        name = f.name()
        if t == gdb.SIGTRAMP_FRAME:
            name = "<signal handler called>"
        out.append({"name": name or "??", "inline": t == gdb.INLINE_FRAME,
                    "sigtramp": t == gdb.SIGTRAMP_FRAME, "tailcall": t == gdb.TAILCALL_FRAME,
                    "module": _module(f.pc()),
                    "tid": gdb.selected_thread().ptid[1]})
        try:
            f = f.older()
        except gdb.error:
            break
    gdb.write("WRSTACK " + json.dumps(out if at is None else {"pc": at, "stack": out}) + "\n")

'''

# Runs inside gdb after EXTRA, FUNCTION, ARGS and COUNT are defined: a
# _dump() per stop.
_GDB_SCRIPT = _GDB_DUMP + r'''
for c in ["set pagination off", "set confirm off", "set breakpoint pending on",
          "set backtrace past-main on", "set print thread-events off",
          "set print inferior-events off"] + EXTRA:
    gdb.execute(c)
gdb.execute("break " + FUNCTION)
gdb.execute("run " + ARGS, to_string=True)
for i in range(COUNT):
    try:
        _dump()
        if i + 1 < COUNT:
            gdb.execute("continue", to_string=True)
    except gdb.error as e:
        gdb.write("WRERROR %s\n" % e)
        break
try:
    gdb.execute("kill")
except gdb.error:
    pass
'''


_gdb_memo = {}
_gdb_memo_lock = threading.Lock()


def gdb_stacks(binary, args=(), count=1, function="leaf", extra=()):
    """Stop `count` times at `function` in `binary args` under gdb; return
    the stacks (lists of frame dicts), innermost first, past main.  Runs
    once per distinct request (tests ask for the same stacks repeatedly)."""
    key = (binary, tuple(str(a) for a in args), count, function, tuple(extra))
    with _gdb_memo_lock:
        slot = _gdb_memo.setdefault(key, [threading.Lock(), None])
    with slot[0]:
        if slot[1] is None:
            slot[1] = _run_gdb(binary, args, count, function, extra)
        return slot[1]


def _run_gdb(binary, args, count, function, extra):
    return gdb_python(_GDB_SCRIPT, binary, tag="WRSTACK", EXTRA=list(extra), FUNCTION=function,
                      ARGS=" ".join(str(a) for a in args), COUNT=count)


# Runs inside gdb after PID and PCS are defined: attached to PID, one
# "WRSTACK <json>" line {"pc": pc, "stack": frames as above} at each of
# PCS the process reaches, once each.
_GDB_AT = _GDB_DUMP + r'''
gdb.execute("set pagination off")
gdb.execute("set backtrace past-main on")
gdb.execute("attach %d" % PID, to_string=True)
bps = dict((pc, gdb.Breakpoint("*0x%x" % pc)) for pc in PCS)
while bps:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    pc = int(gdb.parse_and_eval("$pc"))
    if pc in bps:
        bps.pop(pc).delete()
        _dump(pc)
gdb.execute("detach", to_string=True)
'''


def gdb_stacks_at(pid, pcs, timeout=300):
    """gdb attached to live process @pid, stopped once at each of @pcs:
    {pc: stack (as gdb_stacks())} for each pc the process reached."""
    got = gdb_python(_GDB_AT, pid, timeout=timeout, tag="WRSTACK", PCS=list(pcs))
    return dict((d["pc"], d["stack"]) for d in got)


def wraith_bts(pid, script="trace leaf { bt; }", events=1, timeout=20, depth=None, extra=()):
    """Run wraith in JSON mode; return (CompletedProcess, [(event, bt item)])."""
    argv = ["-p", pid, "-s", script, "--max-events", events, "--timeout", timeout,
            "--script-output", "json"]
    if depth is not None:
        argv += ["--backtrace-depth", depth]
    res = run(argv + list(extra), timeout=timeout + HANG_GUARD)
    out = []
    try:
        for ev in json_events(res.stdout):
            for item in ev["items"]:
                if item["type"] == "backtrace":
                    out.append((ev, item))
    except ValueError as e:
        print("wraith printed invalid JSON (%s): %r" % (e, res.stdout[-500:]))
    return res, out


# ---- names ----

def _strip_params(name):
    """'ns::f<T>(int, char) const' -> 'ns::f<T>'; 'S::operator()(int)' ->
    'S::operator()'; names without a trailing parameter list unchanged."""
    s = re.sub(r"(\s*(const|volatile|&&|&))+$", "", name)
    if not s.endswith(")"):
        return name
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                head = s[:i].rstrip()
                if not head or head.endswith("operator"):
                    return name
                return head
    return name


def _strip_return_type(name):
    """'int ns::f<int>' -> 'ns::f<int>': the demangled name of a function
    template carries its return type; 'operator new' keeps its space."""
    tokens, depth, cur = [], 0, ""
    for ch in name:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        if ch == " " and depth == 0:
            tokens.append(cur)
            cur = ""
        else:
            cur += ch
    tokens.append(cur)
    # "f(int) const::{lambda(int)#1}": a qualifier after a parameter list
    # belongs to the name
    merged = []
    for tok in tokens:
        if merged and merged[-1].endswith(")") and re.match(r"(const|volatile|&)", tok):
            merged[-1] += " " + tok
        else:
            merged.append(tok)
    tokens = merged
    start = len(tokens) - 1
    while start > 0 and tokens[start - 1].endswith("operator"):
        start -= 1
    return " ".join(tokens[start:])


def norm(name):
    """A function name as both tools can agree on it: no parameter list,
    no return type; GCC clone suffixes ("[clone .isra.0]") kept."""
    if name is None:
        return "??"
    name = name.strip()
    m = re.search(r"(\s*\[clone [^]]*\])+$", name)
    suffix = m.group(0).strip() if m else ""
    if m:
        name = name[:m.start()].rstrip()
    name = _strip_return_type(_strip_params(name))
    return name + (" " + suffix if suffix else "")


# ---- frames grouped by physical frame ----

def gdb_groups(stack, cut_main=True, tailcalls=False):
    """[(names innermost first, module)] per physical frame of a gdb stack.
    gdb adds frames for functions that left the stack through a tail call
    (it finds them in DWARF call-site information, not in the stack);
    they are left out unless `tailcalls`."""
    groups, cur = [], []
    for fr in stack:
        if fr.get("tailcall") and not tailcalls:
            continue
        cur.append(fr)
        if not fr["inline"]:
            groups.append(([norm(f["name"]) for f in cur], fr["module"]))
            cur = []
            if cut_main and fr["name"] == "main":
                break
    if cur:
        groups.append(([norm(f["name"]) for f in cur], cur[-1]["module"]))
    return groups


def wraith_groups(bt, cut_main=True, tailcalls=False):
    """The same for a wraith JSON backtrace item; wraith marks the frames it
    recovers from call-site information "tailcall": true."""
    groups, cur = [], []
    for fr in bt["frames"]:
        if fr.get("tailcall") and not tailcalls:
            continue
        cur.append(fr)
        if not fr["inline"]:
            mod = os.path.basename(os.path.realpath(fr["module"])) if fr["module"] else None
            groups.append(([norm(f["function"]) for f in cur], mod))
            cur = []
            if cut_main and fr["function"] == "main":
                break
    if cur:
        groups.append(([norm(f["function"]) for f in cur], None))
    return groups


def flat(groups):
    return [n for names, _ in groups for n in names]


def has_tailcalls(stack):
    return any(fr.get("tailcall") for fr in stack)


def is_system(module, own):
    return module is not None and module not in own


def own_modules(binary, extra=()):
    return {os.path.basename(binary)} | set(os.path.basename(e) for e in extra)


def diff_groups(wg, gg, own, prefix=False):
    """None when wraith's groups `wg` agree with gdb's `gg`, else why not.
    Groups in system modules (not in `own`) that either tool leaves
    unnamed compare by module only; `own` None compares every name.  With
    prefix, wraith may stop early (its groups are a prefix)."""
    if prefix:
        if len(wg) > len(gg):
            return "wraith has %d frames, more than gdb's %d" % (len(wg), len(gg))
    elif len(wg) != len(gg):
        return "wraith has %d physical frames, gdb %d" % (len(wg), len(gg))
    for i, ((wn, wm), (gn, gm)) in enumerate(zip(wg, gg)):
        if wm != gm:
            return "frame %d: wraith's module %s, gdb's %s" % (i, wm, gm)
        if own is not None and is_system(gm, own) and (wn == ["??"] or gn == ["??"]):
            continue
        if wn != gn:
            return "frame %d: wraith %s, gdb %s" % (i, wn, gn)
    return None


def compare_stack(bt, stack, own, what, cut_main=True, prefix=False, tailcalls=False):
    """Checks that wraith's bt item agrees with one gdb stack (see
    diff_groups); returns whether it did."""
    wg, gg = wraith_groups(bt, cut_main, tailcalls), gdb_groups(stack, cut_main, tailcalls)
    why = diff_groups(wg, gg, own, prefix)
    detail = "" if why is None else "\n       %s\n       wraith: %s\n       gdb:    %s" % (
        why, flat(wg), flat(gg))
    return check(why is None, what + detail)


class Case:
    """One fixture run: wraith's first backtrace at leaf in a live process
    and gdb's stacks at leaf in a fresh run of the same binary."""

    def __init__(self, name, args=(), depth=None, gdb_count=1, gdb_extra=(), libs=(), interval=1000):
        self.name, self.args, self.depth, self.interval = name, list(args), depth, interval
        self.gdb_count, self.gdb_extra = gdb_count, list(gdb_extra)
        self.label = " ".join([name] + [str(a) for a in args])
        self.binary = fixture(name)
        self.own = own_modules(self.binary, libs)
        self.res, self.bts, self.stacks, self.error = None, [], [], None

    def _wraith(self):
        fx = Fixture(self.name, [self.interval, -1] + self.args)
        try:
            return wraith_bts(fx.pid, depth=self.depth)
        finally:
            fx.stop()

    def _gdb(self):
        return gdb_stacks(self.binary, [0, self.gdb_count + 2] + self.args, count=self.gdb_count,
                          extra=self.gdb_extra)

    def run(self):
        """gdb, then wraith: never at once, though they do not share a
        process.  They share the program's file, and the kernel, taking
        wraith's uprobe out of the file's code when wraith detaches,
        writes the instruction back where it finds a breakpoint - in gdb's
        process too, whose breakpoint at the same address is then gone
        and its process runs to its end (seen with a slow wraith, ASan's)."""
        try:
            self.stacks = self._gdb()
        except (OSError, subprocess.SubprocessError) as e:
            self.error = "gdb: %s" % e
        try:
            self.res, self.bts = self._wraith()
        except (AssertionError, OSError, subprocess.SubprocessError) as e:
            self.error = "wraith: %s" % e
        return self

    def ok(self):
        """Checks that both tools gave a backtrace; returns (bt, stack)."""
        if self.error:
            fail("%s: %s" % (self.label, self.error))
            return None, None
        good = self.res is not None and self.res.returncode == 0 and len(self.bts) == 1
        got = check(good, "%s: wraith exits 0 with one backtrace%s" % (
            self.label, "" if good else " (rc %s, stderr %r)" % (
                self.res.returncode if self.res else None, self.res.stderr[-300:] if self.res else "")))
        got = check(len(self.stacks) >= 1, "%s: gdb stopped at leaf" % self.label) and got
        return (self.bts[0][1], self.stacks[0]) if got else (None, None)


def check_case(c, past_main=True):
    """The standard checks of one Case against gdb: complete, no error, the
    frame count, frames up to main and past main; the frames of functions
    that left the stack by tail calls separately (neither tool sees them on
    the stack: both recover them from DWARF call-site information)."""
    bt, stack = c.ok()
    if bt is None:
        return
    check(bt["status"] == "complete" and bt["error_code"] == 0,
          "%s: status complete, error_code 0 (got %s, %s)" % (c.label, bt["status"], bt["error"]))
    eq(bt["frame_count"], len([f for f in bt["frames"] if not f["inline"] and not f.get("tailcall")]),
       "%s: frame_count counts the physical frames" % c.label)
    compare_stack(bt, stack, c.own, "%s: frames up to main equal gdb's" % c.label)
    if past_main:
        compare_stack(bt, stack, c.own, "%s: frames past main equal gdb's" % c.label, cut_main=False)
    if has_tailcalls(stack):
        compare_stack(bt, stack, c.own, "%s: frames equal gdb's including the frames gdb infers for "
                      "tail calls" % c.label, tailcalls=True)


def run_cases(cases, workers=3):
    return parallel(lambda c: c.run(), cases, workers)


def parallel(fn, items, workers=3):
    """fn(item) for every item, a few at a time; results in order."""
    with ThreadPoolExecutor(max_workers=workers) as ex:
        return list(ex.map(fn, items))


if __name__ == "__main__":
    print("bt_support.py holds helpers for the bt_*.py tests; it is not a test.")
