"""bt_locals.py - `bt full` at leaf of locals.c lists each frame's
parameters and locals as gdb's bt full does, the same names in the same
order: mid's locals, and a struct local's char * member with its string,
as gdb shows it ("alpha", read from the program's read-only data); in
other() and the call of blk() inlined into it, the order of the inlined
copy's parameters, the variables of its abstract instance that no DIE of
the copy stands for (<optimized out>, also where the copy has them in a
block of its own), a label whose code is gone, and a block's six locals
(gdb lists them in the order of its hash table); gcc and clang, -O0 and
-O2.  _start, which has no debug info, is `_start` in bt args as in
bt (no parameter list), and bt full says of it what gdb's says.  mid's enum's enumerators are
among its locals where gdb lists them (`M_OFF = M_OFF`)."""
import subprocess

from wraithtest import *

require_root()

PARAM = re.compile(r"(?:\(|, )(\w+)=")
LOCAL = re.compile(r"^        (\w+) = (.*)$")


def frames(text, frame_re):
    """[(function, [parameter names], [(local, value)])] of one backtrace's
    text, from frame 0 to main."""
    out = []
    for line in text.splitlines():
        if re.match(r"\s*#\d", line) and out and out[-1][0] == "main":
            break
        m = frame_re.match(line)
        if m:
            out.append((m.group(1), PARAM.findall(m.group(2)), []))
        elif out and LOCAL.match(line):
            out[-1][2].append(LOCAL.match(line).groups())
    return out if out and out[-1][0] == "main" else None


def gdb_backtraces(binary):
    """gdb's bt full at the first two stops at leaf (mid's call, then
    other's)."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break leaf", "-ex", "run", "-ex", "bt full",
                          "-ex", "continue", "-ex", "bt full", "-ex", "kill", binary],
                         capture_output=True, text=True, timeout=120).stdout
    return [frames(t, re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \((.*)\) at "))
            for t in re.split(r"^(?=#0 )", out, flags=re.M)[1:]]


for v in ("O0", "O2", "clang-O0", "clang-O2"):
    name = "locals-" + v
    fx = Fixture(name)
    res = run(["-p", fx.pid, "-s", "trace leaf { bt full; }", "--max-events", 2, "--script-output", "plain",
               "-q"])
    fx.stop()
    ours = [frames(t, re.compile(r"^  #\S+ (\w+)\((.*)\)(?: at .*)?(?: \[.*\])?$"))
            for t in re.split(r"^(?=backtrace: )", res.stdout, flags=re.M)[1:]]
    ours = {tuple(f[0] for f in bt): bt for bt in ours if bt}
    gdb = gdb_backtraces(fixture(name))
    check(len(ours) == 2 and len(gdb) == 2 and None not in gdb,
          "%s: both give the backtraces of mid's and other's calls (%r)" % (name, res.stdout[:1500]))
    for theirs in (bt for bt in gdb if bt):
        key = tuple(f[0] for f in theirs)
        mine = ours.get(key)
        check(mine is not None, "%s: wraith has gdb's frames %r (has %r)" % (name, key, list(ours)))
        if mine is None:
            continue
        for (fn, p1, l1), (_, p2, l2) in zip(mine, theirs):
            eq(p1, p2, "%s: %s's parameters are gdb's, in its order" % (name, fn))
            eq([n for n, _ in l1], [n for n, _ in l2], "%s: %s's locals are gdb's, in its order" % (name, fn))
            for (n, val), (_, gval) in zip(l1, l2):
                if gval == "<optimized out>":
                    eq(val, "<optimized out>", "%s: %s's %s is <optimized out> as in gdb" % (name, fn, n))
            if fn == "mid":
                check(("M_OFF", "M_OFF") in l1 and ("M_ON", "M_ON") in l1,
                      "%s: mid's enum's enumerators are locals, each its own value, as in gdb (%r)"
                      % (name, l1))
                theirs_r = dict(l2).get("r", "")
                if '"alpha"' in theirs_r:
                    check(re.match(r'\{name: 0x[0-9a-f]+ "alpha", id: 3\}$', dict(l1).get("r", "")),
                          "%s: r's char * member shows its string as gdb's does (%r)" % (name, dict(l1).get("r")))
    m = re.search(r"^  #\d+ _start(.*)\n(.*)\n", res.stdout, re.M)
    check(m and m.group(1).startswith(" [") and m.group(2) == "        No symbol table info available.",
          "%s: _start without a parameter list, and gdb's words for its locals (%r)"
          % (name, m.group(0) if m else res.stdout[-300:]))

# A bt full whose event has no room left for the copy of the stack its
# values are read from (a print of 120 dumps fills it: 32,504 of its
# 32,736 bytes of payload before the copy's 256 bytes of headers) says
# why they are missing, as every missing copy does.
fx = Fixture("locals-O0")
dumps = ('print "%s", %s; print "{:x.104}", &x;'
         % (" ".join(["{:x.256}"] * 119), ", ".join(["&x"] * 119)))
res = run(["-p", fx.pid, "-s", "trace leaf { %s bt full; }" % dumps, "--backtrace-depth", 6,
           "--max-events", 1, "--script-output", "plain", "-q"])
fx.stop()
m = re.search(r"^  #0 leaf\((.*)\) at ", res.stdout, re.M)
check(m and m.group(1) == "<unavailable: the event carries no copy of the registers and stack: "
      "no room was left for it (an event holds 32 KiB at most)>",
      "a copy the event had no room for says so (%r)" % (m.group(0) if m else res.stdout[-800:]))
check_no_leftovers("after the locals")
finish()
