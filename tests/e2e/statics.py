"""statics.py - C++ classes' static data members as gdb prints them among
a value's members: `{static count = 3, static K = 7, x = 1, ...}` (wraith's
shape `static count: 3`), read at the hit (an int the program changes
every call), constants the compiler folded (static const, constexpr,
a double), a char pointer with its string, a nested class's, a static
member of the class's own type (printed once, then `<same as static
member of an already seen type>`, and its array and struct likewise),
an enum, one declared and never defined (`<optimized out>`), a base
class's, a template's, a std::vector's elements'.  And `bt full` at show():
the same members inside frame values, frame 0's copied at the hit, a
caller's (relay()'s Q::ticks, which frame 0 does not show) by the call
chain's recipe from its second event, against gdb's `bt full`.

statics.cc built by gcc and clang at -O0 and -O2: wraith prints at one
hit of show(), then gdb attaches to the same process, stops at show()
and prints the same expressions.  The count changes between the two
hits: wraith's must equal the parameter `c` of its own event (the count
at the call), and is masked in the comparison with gdb."""
from gdbvalues import gdb_values, normalize
from bt_support import parallel
from wraithtest import *
import os
import re
import subprocess

require_root()

EXPRS = ["s", "o", "d", "b", "ps", "S::self"]


def wraith_lines(pid):
    script = "trace show {\n" + 'print "{}", c;\n' + "".join('print "{}", %s;\n' % e for e in EXPRS) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "--script-output", "plain", "-q"], env={"LANG": "C", "LC_ALL": "C"})
    check(res.returncode == 0, "wraith prints the expressions (%s)" % res.stderr.strip()[-400:])
    return [x.strip() for x in res.stdout.splitlines()]


def shape(w):
    if not w:
        return "<gdb printed nothing>"
    if w.startswith("std::"):  # a container keeps its printer's text
        return re.sub(r"(\{|, )((?:static )?[A-Za-z_]\w*) = ", r"\1\2: ", w)
    return normalize(w)


def mask_count(v):
    return re.sub(r"static count: \d+", "static count: N", v)


def observe(variant):
    fx = Fixture("statics-" + variant, [-1, 2000])
    got = wraith_lines(fx.pid)
    want = [shape(w) for w in gdb_values(fx.pid, EXPRS)]
    fx.stop()
    return got, want


for variant, (got, want) in zip(("O0", "O2", "clang-O0", "clang-O2"),
                                parallel(observe, ("O0", "O2", "clang-O0", "clang-O2"), workers=2)):
    if not eq(len(got), len(EXPRS) + 1, "%s: one line per expression" % variant):
        continue
    counts = set(re.findall(r"static count: (\d+)", got[1] + got[3]))
    eq(counts, {got[0]}, "%s: static count read at the hit (the call's count, %s)" % (variant, got[0]))
    check("static self: {static count" in got[1] and "<same as static member of an already seen type>" in got[1],
          "%s: a static member of the class's own type shown once" % variant)
    for e, g, w in zip(EXPRS, got[1:], want):
        eq(mask_count(g), mask_count(w), "%s: print %s" % (variant, e))

# bt args / bt full: the same static members inside frame values, frame
# 0's (show()) copied by the probe at the hit, a caller's (relay()'s q,
# main's q: Q::ticks, which frame 0 does not show) by the chain's recipe
# from the event after the first.  Against gdb's `bt full` at show() of
# the same process (print frame-arguments all); the counts, which move
# between the two hits, are masked against gdb and must equal the call's
# count c within wraith's event (S::count and Q::ticks count together).
FRAME_RE = r"^ *#(\d+) +(?:0x[0-9a-f]+ in )?([\w:]+) ?\((.*)\) at "


def frames_of(text, locals_indent):
    """{frame number: (function, {arg: value}, {local: value})} of one bt
    full's text."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(FRAME_RE, line)
        if m:
            cur = int(m.group(1))
            out[cur] = (m.group(2), split_args(m.group(3)), {})
            continue
        m = re.match(r"^%s(\w+) = (.*)$" % locals_indent, line)
        if m and cur is not None:
            out[cur][2][m.group(1)] = m.group(2)
    return out


def masked(v, gdb=False):
    v = re.sub(r"0x[0-9a-f]+", "0x?", shape(v) if gdb else v)
    return re.sub(r"static (count|ticks): \d+", r"static \1: N", v)


def bt_observe(variant):
    fx = Fixture("statics-" + variant, [-1, 2000])
    try:
        res = run_until(["-p", fx.pid, "-s", "trace show { bt full; }", "--script-output", "plain", "-q"],
                        lambda lines: sum("static ticks: " in l and "static ticks: <" not in l
                                          for l in lines) >= 4, timeout=60)
        gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "set width 0", "-ex",
                              "set print pretty off", "-ex", "set print frame-arguments all", "-ex", "break show",
                              "-ex", "continue", "-ex", "bt full 3", "-ex", "detach"],
                             capture_output=True, text=True, timeout=120, env=dict(os.environ, LANG="C", LC_ALL="C"))
    finally:
        fx.stop()
    return res.stdout, gdb.stdout


for variant, (got, gdb_out) in zip(("O0", "O2", "clang-O0", "clang-O2"),
                                   parallel(bt_observe, ("O0", "O2", "clang-O0", "clang-O2"), workers=2)):
    label = "%s bt full" % variant
    events = [e for e in got.split("backtrace: ")[1:] if "static ticks: " in e and "static ticks: <" not in e]
    first = got.split("backtrace: ")[1] if "backtrace: " in got else ""
    if not check(events, "%s: a caller's static member copied by the recipe (%r)" % (label, got[-500:])):
        continue
    # the first event's caller frame: its recipe is learned from it
    check("static ticks: <not copied: new call chain>" in first or "static ticks: <" not in first,
          "%s: the first event says why a caller's static is not shown (%r)" % (label, first[-300:]))
    w, g = frames_of(events[-1], " {8}"), frames_of(gdb_out, " {8}")
    c = w.get(0, ("", {}, {}))[1].get("c")
    counts = set(re.findall(r"static (?:count|ticks): (\d+)", events[-1]))
    eq(counts, {c}, "%s: S::count and Q::ticks read at the hit, in every frame (the call's count %s)" % (label, c))
    for k, fn in ((0, "show"), (1, "relay"), (2, "main")):
        if not check(k in w and k in g and w[k][0] == fn and g[k][0] == fn,
                     "%s: frame %d is %s in both (%r, %r)" % (label, k, fn, w.get(k), g.get(k))):
            continue
        for kind, a, b in (("arg", w[k][1], g[k][1]), ("local", w[k][2], g[k][2])):
            for name, gv in b.items():
                if name in ("i", "c", "r", "argc", "argv", "iterations", "interval"):
                    continue  # scalars bt_locals.py compares; c moves between the hits
                eq(masked(a.get(name, "<missing>")), masked(gv, True), "%s: %s's %s %s" % (label, fn, kind, name))
check_no_leftovers("after the static member tests")
finish()
