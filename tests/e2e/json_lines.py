"""json_lines.py - every kind of line wraith writes as NDJSON validates
against doc/event.schema.json and has no object with two members of one
name (parsed with a hook that refuses them): prints of structs with char
pointer members, C++ objects with two base classes, bt, bt args, bt full,
expression errors, and the stacks `count bt` counts (whole and stopped
early) at the end of a run.

Then the values themselves: a base class is keyed by its name in angle
brackets as gdb's print names it (<Base>, <Base2>), an anonymous struct's
members sit in its holder, and a char pointer member is its string, as the
text shows it (gdb shows the same string)."""
import json
import os
import re
import subprocess

from wraithtest import *

require_root()
VALIDATOR = schema_validator()
KINDS = set()


def lines_of(what, stdout):
    """The NDJSON lines of @stdout, each checked: no duplicate key, valid."""
    objs = []
    for line in stdout.splitlines():
        if not line.strip():
            continue
        try:
            obj = json_line(line)
        except ValueError as e:
            fail("%s: %s in %r" % (what, e, line[:300]))
            continue
        errors = sorted(VALIDATOR.iter_errors(obj), key=lambda e: list(e.path))
        if not check(not errors, "%s: a %s line is valid against the schema" % (what, obj.get("type", "event"))):
            for e in errors[:5]:
                print("       at %s: %s" % ("/".join(map(str, e.path)), e.message))
        KINDS.add(obj.get("type", "event"))
        for it in obj.get("items", []):
            KINDS.add(it["type"] + (" args" if any("args" in f for f in it.get("frames", [])) else "")
                      + (" full" if any("locals" in f for f in it.get("frames", [])) else ""))
        objs.append(obj)
    check(objs, "%s: some lines" % what)
    return objs


def traced(fixture, script, events=2, args=(), extra=()):
    fx = Fixture(fixture, args)
    res = run(["-p", fx.pid, "-s", script, "--max-events", events, "--script-output", "json", "-q"]
              + list(extra))
    fx.stop()
    check(res.returncode == 0, "%s: exit 0 (%s)" % (fixture, res.stderr[-300:]))
    return lines_of(fixture, res.stdout)


def first_value(objs):
    return objs[0]["items"][0]["args"][0]["value"] if objs and objs[0].get("items") else None


def gdb_print(binary, function, expr):
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break %s" % function, "-ex", "run",
                          "-ex", "print %s" % expr, "-ex", "kill", binary],
                         capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"^\$1 = (.*)$", out, re.M)
    return m.group(1) if m else out[-300:]


for v in ("O2", "clang-O0"):
    # a struct with char pointer members, an array of them and an anonymous struct
    o = first_value(traced("values-" + v, 'trace show { print "{}", *o; }'))
    if o:
        eq((o["in"]["name"], o["names"], o["lo"], o["hi"]), ("hello", ["x", "yy", None], -2, 3),
           "values-%s: char pointer members are their strings, the anonymous struct's members "
           "sit in the struct" % v)
        g = gdb_print(fixture("values-" + v), "show", "o->in")
        check(re.search(r'name = 0x[0-9a-f]+ "hello"', g), "values-%s: gdb shows the same string for "
              "in.name (%r)" % (v, g))
    # two base classes; a base and a char pointer member
    objs = traced("cxx-" + v, 'trace refs { print "{}", d; }')
    d = first_value(objs)
    if d:
        eq(sorted(d), ["<Base2>", "<Base>", "ok", "x"], "cxx-%s: each base its own key" % v)
        eq((d["<Base>"]["b"], d["<Base2>"]["s"], d["x"], d["ok"]), (7, 3, 1, True),
           "cxx-%s: the bases' members" % v)
        g = gdb_print(fixture("cxx-" + v), "refs", "d")
        check("<Base> = {" in g and "<Base2> = {s = 3}" in g, "cxx-%s: gdb names the bases so (%r)" % (v, g))
    box = first_value(traced("cxx-" + v, 'trace geo::Box::area { print "{}", *this; }'))
    if box:
        eq((sorted(box), box["tag_"]), (["<geo::Shape>", "side_", "tag_"], "box"),
           "cxx-%s: the base of Box and its char pointer member tag_" % v)

# backtraces, with and without values
traced("fvals-O2", "trace leaf { bt; } trace leaf { bt args; } trace leaf { bt full; }", 6)
# expression errors
objs = traced("lang-O2", 'trace visit { if memcmp(cast(16, "unsigned char *"), hex("00")) { print "x"; } '
              'print "after"; }', 1)
check(any(it["type"] == "expr_error" for o in objs for it in o.get("items", [])),
      "lang-O2: an expression error item came")

# counted stacks at the end of a run, whole and stopped by the depth
fx = Fixture("inline-O2", [0])
for depth, status in ((128, "complete"), (2, "truncated")):
    res = run(["-p", fx.pid, "-s", "trace leaf { count bt; }", "--timeout", 1, "--backtrace-depth", depth,
               "--script-output", "json"])
    stacks = lines_of("count bt, depth %d" % depth, res.stdout)
    check(stacks and all(s["type"] == "stack" and s["status"] == status for s in stacks),
          "count bt, depth %d: every stack says it is %s (%r)" % (depth, status, res.stdout[:300]))
fx.stop()

eq(sorted(KINDS), ["backtrace", "backtrace args", "backtrace args full", "event", "expr_error", "print",
                   "stack"], "every kind of line was validated")
check_no_leftovers("after the json lines")
finish()
