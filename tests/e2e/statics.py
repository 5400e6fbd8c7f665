"""statics.py - C++ classes' static data members as gdb prints them among
a value's members: `{static count = 3, static K = 7, x = 1, ...}` (wraith's
shape `static count: 3`), read at the hit (an int the program changes
every call), constants the compiler folded (static const, constexpr,
a double), a char pointer with its string, a nested class's, a static
member of the class's own type (printed once, then `<same as static
member of an already seen type>`, and its array and struct likewise),
an enum, one declared and never defined (`<optimized out>`), a base
class's, a template's, a std::vector's elements'.

statics.cc built by gcc and clang at -O0 and -O2: wraith prints at one
hit of show(), then gdb attaches to the same process, stops at show()
and prints the same expressions.  The count changes between the two
hits: wraith's must equal the parameter `c` of its own event (the count
at the call), and is masked in the comparison with gdb."""
from gdbvalues import gdb_values, normalize
from bt_support import parallel
from wraithtest import *
import re

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
check_no_leftovers("after the static member tests")
finish()
