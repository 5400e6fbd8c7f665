"""vla.py - C variable-length arrays (vla.c), built by gcc and clang-19 at
-O0 and -O2.  A VLA's length is not a constant in DWARF but an expression
(gcc -O0), an artificial variable with a location list (gcc -O2) or one
named __vla_expr0 (clang): its type is named as gdb names it, `int
[variable length]`, and a VLA printed whole, in print, NDJSON and bt
full, shows <variable length array> (NDJSON: null, error
"variable-length"), never a wrong length (one element, none, its
address).  Where gdb has no value (<optimized out>) wraith has none
either; an element and a row of constant length (vla[2], s[1], s[2][1])
are gdb's, at the same pc of the same process (where gdb cannot index an
array optimized out, wraith's is <optimized out>); an element of a row of
variable length (two[1][1]) is refused, its stride being unknown, and so
is indexing a pointer to a VLA (square's a).

bt full reads each VLA's lengths in the frame as gdb does (the bound's
expression or artificial variable at the pc, frame base included) and
shows the array with them, equal to gdb's bt full, `...` after gdb's 200
elements; a VLA one of whose dimensions has no length at all (gcc -O2
drops two's inner one; gdb shows its address) stays marked.
"""
import json
import os
import re
import subprocess

from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()

MARK = "<variable length array>"
WHOLE = ["vla", "s", "two", "big", "sq"]
PARTS = ["vla[2]", "s[1]", "s[2][1]"]


def wraith_json(pid, point, exprs, extra=""):
    script = "trace %s {\n%s%s}\n" % (point, "".join('print "{}", %s;\n' % e for e in exprs), extra)
    res = run(["-p", pid, "-s", script, "--max-events", 1, "-q", "--script-output", "json"])
    check(res.returncode == 0, "wraith prints %s at %s (%s)" % (exprs, point, res.stderr.strip()[-400:]))
    events = json_events(res.stdout)
    check(len(events) == 1, "one event at %s" % point)
    return events[0]["items"]


def gdb_locals(pid, point):
    """gdb's bt full of frame 0 at @point: {name: value}."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set width 0", "-ex", "break " + point,
                          "-ex", "continue", "-ex", "bt full 1", "-ex", "detach"], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, LANG="C", LC_ALL="C")).stdout
    return dict(re.findall(r"(?m)^        (\w+) = (.*)$", out.split("\n#0", 1)[-1]))


def one(build):
    fill = "vla.c:%d" % marker_line("vla.c", "/* FILL */")
    square = "vla.c:%d" % marker_line("vla.c", "/* SQUARE */")
    fx = Fixture(build)
    items = wraith_json(fx.pid, fill, WHOLE + PARTS, "bt full;")
    args = [it["args"][0] for it in items if it["type"] == "print"]
    frame = [it for it in items if it["type"] == "backtrace"][0]["frames"][0]
    want = gdb_values(fx.pid, WHOLE + PARTS, fill)
    for a, g in zip(args[:len(WHOLE)], want):
        what = "%s: %s (gdb: %s)" % (build, a["expr"], (g or "")[:60])
        if g == "<optimized out>":
            eq((a["value"], a["error"]), (None, "optimized-out"), what)
            continue
        eq((a["value"], a["error"]), (None, "variable-length"), what + " is marked")
        check("[variable length]" in a["type"], what + ": its type is %s" % a["type"])
    for a, g in zip(args[len(WHOLE):], want[len(WHOLE):]):
        if g is None:  # gdb: "no such vector element" of an array optimized out
            g = "<optimized out>"
        text = "<optimized out>" if a["error"] == "optimized-out" else json.dumps(a["value"])
        if a["expr"] != "s[1]":
            text = str(a["value"]) if a["error"] is None else "<optimized out>"
        exp = normalize(g)
        if a["expr"] == "s[1]" and g != "<optimized out>":
            exp = json.dumps(g.strip('"').replace("\\000", ""))
        if a["expr"] == "s[2][1]" and g != "<optimized out>":
            exp = g.split()[0]
        eq(text, exp, "%s: %s is gdb's" % (build, a["expr"]))
    locals_ = dict((v["name"], v["value"]) for v in frame["locals"])
    full = gdb_locals(fx.pid, fill)
    for name in WHOLE:
        g = full.get(name)
        if g is not None and g.startswith("{"):
            eq(locals_.get(name), normalize(g), "%s: bt full shows %s as gdb's bt full" % (build, name))
        elif g == "<optimized out>":
            eq(locals_.get(name), g, "%s: bt full shows %s <optimized out>" % (build, name))
        else:  # gcc -O2 keeps no length for two's inner dimension: gdb shows its address
            eq(locals_.get(name), MARK, "%s: bt full shows %s (gdb: %s) marked" % (build, name, g))
    res = run(["-p", fx.pid, "-s", 'trace %s { print "{}", two[1][1]; }' % fill, "--max-events", 1, "-q"])
    if want[WHOLE.index("two")] == "<optimized out>":
        check(res.stdout.strip().endswith("<optimized out>"), "%s: two[1][1] is <optimized out>" % build)
    else:  # gcc -O2 keeps no length for the inner dimension at all
        check(res.returncode == 2 and "is unknown" in res.stderr,
              "%s: two[1][1] is refused (%s)" % (build, res.stderr.strip()[-300:]))
    items = wraith_json(fx.pid, square, ["*a"])
    a, g = items[0]["args"][0], gdb_values(fx.pid, ["*a"], square)[0]
    if g.startswith("0x"):  # clang names no bound: gdb shows the address
        eq(a["value"], g, "%s: *a is gdb's" % build)
    else:
        eq((a["value"], a["error"]), (None, "variable-length"), "%s: *a (gdb: %s) is marked" % (build, g))
    fx.stop()


for build in ("vla-O0", "vla-O2", "vla-clang-O0", "vla-clang-O2"):
    one(build)
finish()
