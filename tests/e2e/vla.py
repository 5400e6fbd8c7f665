"""vla.py - C variable-length arrays (vla.c), built by gcc and clang-19 at
-O0 and -O2.  A VLA's length is not a constant in DWARF but an expression
(gcc -O0), an artificial variable with a location list (gcc -O2) or one
named __vla_expr0 (clang).  print reads each length at the hit as gdb
reads it at the pc and shows the array with it, equal to gdb's print at
the same pc of the same process: whole (1-D, char rows, 2-D, 300 shorts
cut after gdb's 200 elements with `...`), a row (two[1]), an element
indexed by expressions (vla[n-1], two[n-1][m-1]), what a pointer to a
VLA points to (*p of int (*p)[m], *a of a parameter int a[n][n]), a
parameter int a[n] (a pointer), one larger than gdb's max-value-size
(gdb's error) and one of no elements (its address).  NDJSON gives its
type as gdb names it at the pc (int [5]), {:x} its bytes.  Where gdb
has no value (<optimized out>) wraith has none either; where gdb cannot
index (a pointer to a VLA, an array optimized out) wraith refuses or says
<optimized out>; a VLA one of whose lengths the pc does not have (gcc -O2
keeps none for two's inner dimension, where gdb shows the address) stays
<variable length array>, never a guess.

bt full reads each VLA's lengths in the frame as gdb does and shows the
array with them, equal to gdb's bt full.
"""
import json
import os
import re
import struct
import subprocess

from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()

MARK = "<variable length array>"
WHOLE = ["vla", "s", "two", "big", "sq"]
FILL = WHOLE + ["two[1]", "vla[n-1]", "two[n-1][m-1]", "vla[2]", "s[1]", "s[2][1]"]


def wraith_print(pid, point, expr, fmt="{}"):
    """wraith's print of @expr at @point: (text, type, error), or None when
    it refuses the script."""
    script = 'trace %s { print "%s", %s; }' % (point, fmt, expr)
    res = run(["-p", pid, "-s", script, "--max-events", 1, "-q", "--script-output", "json"])
    if res.returncode == 2:
        return None
    check(res.returncode == 0, "wraith prints %s at %s (%s)" % (expr, point, res.stderr.strip()[-400:]))
    events = json_events(res.stdout)
    check(len(events) == 1, "one event at %s" % point)
    item = events[0]["items"][0]
    return item["text"], item["args"][0]["type"], item["args"][0]["error"]


def gdb_types(pid, point, exprs):
    """gdb's whatis of each of @exprs at @point."""
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break " + point, "-ex", "continue"]
    for e in exprs:
        argv += ["-ex", "echo @@\\n", "-ex", "whatis " + e]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, LANG="C", LC_ALL="C")).stdout
    parts = out.split("@@\n")[1:]
    return [(re.search(r"^type = (.*)$", p, re.M) or [None, None])[1] for p in parts]


def gdb_locals(pid, point):
    """gdb's bt full of frame 0 at @point: {name: value}."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set width 0", "-ex", "break " + point,
                          "-ex", "continue", "-ex", "bt full 1", "-ex", "detach"], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, LANG="C", LC_ALL="C")).stdout
    return dict(re.findall(r"(?m)^        (\w+) = (.*)$", out.split("\n#0", 1)[-1]))


def compare(build, pid, point, exprs):
    want = gdb_values(pid, exprs, point)
    types = gdb_types(pid, point, exprs)
    for expr, g, gt in zip(exprs, want, types):
        got = wraith_print(pid, point, expr)
        what = "%s: print %s at %s (gdb: %s)" % (build, expr, point, (g or "an error")[:70])
        if g is None and expr == "huge" and gt:  # gdb: "value requires N bytes, which is more ..."
            size = gdb_values(pid, ["sizeof(huge)"], point)[0]
            eq(got and got[0], "<error: value requires %s bytes, which is more than max-value-size>" % size,
               "%s: print huge at %s is gdb's error" % (build, point))
            continue
        if g is None:  # gdb: "no such vector element", "Cannot perform pointer math ..."
            check(got is None or got[0] == "<optimized out>", what + " is refused or <optimized out>")
            continue
        check(got is not None, what + " is not refused")
        if g.startswith("value requires"):
            eq(got[0], "<error: %s>" % g, what)
        elif expr == "two" and g.startswith("0x") and build == "vla-O2":
            # gcc -O2 keeps no length for the inner dimension
            eq((got[0], got[2]), (MARK, "variable-length"), what + " stays marked")
        else:
            eq(got[0], normalize(g), what)
            if got[2] is None and gt:
                eq(got[1], gt, "%s: %s's type is gdb's whatis" % (build, expr))


def one(build):
    fill = "vla.c:%d" % marker_line("vla.c", "/* FILL */")
    square = "vla.c:%d" % marker_line("vla.c", "/* SQUARE */")
    row = "vla.c:%d" % marker_line("vla.c", "/* ROW */")
    empty = "vla.c:%d" % marker_line("vla.c", "/* EMPTY */")
    wide = "vla.c:%d" % marker_line("vla.c", "/* WIDE */")
    fx = Fixture(build)
    compare(build, fx.pid, fill, FILL)
    compare(build, fx.pid, square, ["*a"])
    compare(build, fx.pid, row, ["a", "*a"])
    if not build.startswith("vla-clang-O0"):  # clang -O0: no z at the line
        compare(build, fx.pid, empty, ["z"])
    compare(build, fx.pid, wide, ["huge"])
    compare(build, fx.pid, "vla.c:%d" % marker_line("vla.c", "/* ROWS */"), ["*p", "p", "p[1]", "two[1]"])
    g = gdb_values(fx.pid, ["vla"], fill)[0]
    if g.startswith("{"):
        got = wraith_print(fx.pid, fill, "vla", "{:x}")
        raw = b"".join(struct.pack("<i", int(x)) for x in g.strip("{}").split(", "))
        eq(got[0], " ".join("%02x" % b for b in raw), "%s: {:x} of vla is its bytes" % build)

    items = json_events(run(["-p", fx.pid, "-s", "trace %s { bt full; }" % fill, "--max-events", 1, "-q",
                             "--script-output", "json"]).stdout)[0]["items"]
    frame = [it for it in items if it["type"] == "backtrace"][0]["frames"][0]
    locals_ = dict((v["name"], v["value"]) for v in frame["locals"])
    full = gdb_locals(fx.pid, fill)
    for name in WHOLE:
        g = full.get(name)
        if g is not None and g.startswith("{"):
            eq(locals_.get(name), normalize(g), "%s: bt full shows %s as gdb's bt full" % (build, name))
        elif g == "<optimized out>":
            eq(locals_.get(name), g, "%s: bt full shows %s <optimized out>" % (build, name))
        elif name == "s":  # gcc -O2 gives it no bound at all (char [][4]): gdb shows its address
            eq(locals_.get(name), g, "%s: bt full shows %s (%s) as gdb does" % (build, name, g))
        else:  # gcc -O2 keeps no length for two's inner dimension: gdb shows its address
            eq(locals_.get(name), MARK, "%s: bt full shows %s (gdb: %s) marked" % (build, name, g))
    fx.stop()


for build in ("vla-O0", "vla-O2", "vla-clang-O0", "vla-clang-O2"):
    one(build)
finish()
