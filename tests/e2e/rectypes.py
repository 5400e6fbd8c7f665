"""rectypes.py - values of recursive types printed whole, as gdb prints
them: the probe's walk program (what it copies of a value beyond its own
bytes: strings, elements, nodes) holds 64 ops, and a recursive type needs
more than that to its full depth.  Compiled depth first to the end, the
recursion took every op and the members after it were not copied: the
root's `tag` and `attrs` of rectypes.cc's Node (a vector of Nodes, then a
map and two strings) showed `...` and `{...}`, and an interpreter's value
(rmonkey's Object; rrectypes.rs's Value, whose first variants hold an
environment of Values) `Value::Str(...)` where gdb shows the string.

- C++ (g++ and clang-19, -O0 and -O2): `print n` at visit(), each member
  of the root against gdb's (libstdc++'s printers) at the same pc of the
  same live process, nothing of the three-level tree left out.
- The same builds: the types of pointers to std::pair<const std::string,
  int> and std::function<void(const Node &)> as gdb's `whatis` names
  them: gdb's canonical names write a template argument's const after
  what it qualifies (`std::pair<std::__cxx11::basic_string<...> const,
  int> *`), but leave a name holding a function type as written; wraith
  wrote the pair's `const` in front, as the DWARF has it.
- Rust (rustc, opt-level 0 and 2): `print *key` and `*left` at lookup(),
  the string and the elements the fixture holds; gdb at the same pc for
  the variants and the Vec's length (rust-gdb 1.63's printers fail on
  String and Vec on this gdb).
"""
import re
import subprocess

from wraithtest import *

require_root()

CXX = ["rectypes-O0", "rectypes-O2", "rectypes-clang-O0", "rectypes-clang-O2"]
RUST = ["rrectypes-O0", "rrectypes-O2"]
NODE = ["name", "kids", "attrs", "tag", "note"]


def traced(build, fn, exprs):
    """The pc and the values of @exprs of one event at @fn of a live
    @build, and its process (still running)."""
    fx = Fixture(build, [1000])
    script = 'trace %s { print "%s", $pc, %s; }' % (fn, " ## ".join(["{}"] * (len(exprs) + 1)), ", ".join(exprs))
    res = run(["-p", fx.pid, "-s", script, "--max-events", 1, "--timeout", 20, "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s: %s is traced (%s)" % (build, fn, res.stderr.strip()[-300:]))
    if not ev:
        fx.stop()
        return fx, 0, {}
    pr = [it for it in ev[0]["items"] if it["type"] == "print"][0]
    vals = pr["text"].split(" ## ")
    return fx, int(re.search(r"0x[0-9a-f]+", vals[0]).group(0), 16), dict(zip(exprs, vals[1:]))


def members(text):
    """A struct's or a reference's text as {member: value}, gdb's shape made
    wraith's (printer_norm)."""
    text = printer_norm(text)
    return split_members(text[text.index("{"):])


POINTERS = ["pair_p", "fn_p"]


def type_of(text):
    """A pointer's type as print shows it: '(T *) 0x...' -> 'T *'."""
    m = re.match(r"\((.*)\) 0x[0-9a-f]+", text)
    return m.group(1) if m else text


def gdb_whatis(build, names):
    """{name: gdb's `whatis name`} in @build (a type's name does not
    depend on the pc)."""
    argv = ["gdb", "-batch", "-nx"] + [a for n in names for a in ("-ex", "whatis " + n)] + [fixture(build)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    return dict(zip(names, re.findall(r"^type = (.*)$", out, re.M)))


def cxx(build):
    fx, pc, vals = traced(build, "visit", ["n"] + POINTERS)
    # gdb's str() of a reference is its address: *&n is the Node
    gdb = gdb_frame_values(fx.pid, [pc], "visit", ["*&n"], through_inline=True).get("%x" % pc) if pc else None
    fx.stop()
    check(gdb, "%s: gdb stops at visit's pc 0x%x" % (build, pc))
    if not gdb or not vals:
        return
    got, want = members(vals["n"]), members(gdb["*&n"])
    eq(sorted(want), sorted(NODE), "%s: gdb prints Node's members" % build)
    for name in NODE:
        eq(got.get(name), want.get(name), "%s: print n: %s is gdb's" % (build, name))
    check("..." not in vals["n"], "%s: nothing of the tree is left out (%s)" % (build, vals["n"][-200:]))
    whatis = gdb_whatis(build, POINTERS)
    for p in POINTERS:
        eq(type_of(vals[p]), whatis.get(p), "%s: print %s has gdb's type name" % (build, p))


RUST_WANT = {
    "*key": 'rrectypes::Value::Str("key")',
    "*left": 'rrectypes::Value::List(Vec(size=3) = {rrectypes::Value::Int(1), rrectypes::Value::Str("x"), '
             'rrectypes::Value::List(Vec(size=1) = {rrectypes::Value::Int(2)})})',
}


def rust(build):
    fx, pc, vals = traced(build, "rrectypes::lookup", list(RUST_WANT))
    gdb = gdb_frame_values(fx.pid, [pc], "rrectypes::lookup", list(RUST_WANT),
                           through_inline=True).get("%x" % pc) if pc else None
    fx.stop()
    check(gdb, "%s: gdb stops at lookup's pc 0x%x" % (build, pc))
    if not gdb or not vals:
        return
    for expr, want in RUST_WANT.items():
        eq(vals.get(expr), want, "%s: print %s shows what the fixture holds" % (build, expr))
        variant = want[:want.index("(") + 1]
        check(gdb[expr].startswith(variant), "%s: gdb's %s is %s... too (%s)" % (build, expr, variant, gdb[expr][:80]))
    check(re.search(r"\blen: 3\}\)$", gdb["*left"]), "%s: gdb's *left holds 3 elements" % build)


for b in CXX:
    cxx(b)
for b in RUST:
    rust(b)
check_no_leftovers("rectypes")
finish()
