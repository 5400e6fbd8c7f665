"""iterators.py - the C++ standard library's iterators printed as gdb's
libstdc++ printers print them, read in the probe: containers.cc's `its`
at iterate() (map, set and multiset iterators, vector's __normal_iterator
over ints, strings, structs and maps, std::string's, list's (end()
too), forward_list's, deque's, vector<bool>'s, value-initialized ones of
map, vector and list, one whose string's characters are gone), each
member of wraith's `print` against gdb's `print` at the same function of
the same binary, and iterate()'s parameters in wraith's `bt args`
against gdb's `bt` (print frame-arguments scalars: a struct element
`...`, a std::pair `{...}`, a scalar whole); g++ and clang-19, -O0 and
-O2, libstdc++.

An iterator shows the element it points at; one that points nowhere,
gdb's `non-dereferenceable iterator for std::vector`.  An end()
iterator's printer reads the container's head as an element (a
list<int>'s size, a map<int, int>'s node count and 0), and wraith reads
the same bytes.  The unordered containers' iterators have no printer:
both show them raw (wraith's raw text writes no `<No data fields>` and
a template argument's const in front; those two are normalized).  gdb
says @entry for a parameter its caller's call site gives: not compared.

libc++ (no gdb printers on Debian: gdb shows __i_, __ptr_, __seg_ and
__ctz_): wraith shows its iterators as libstdc++'s printers show their
counterparts; checked against what the fixture itself says each points
at (`dump`), and the pointer wraith reports against the one gdb's raw
layout shows in the same process.  NDJSON: {"kind", "get", "value"},
valid against doc/event.schema.json, every build."""
import json

from bt_support import *

require_root()

BUILDS = ("O0", "O2", "clang-O0", "clang-O2")
RAW = ("ui", "usi")


def norm(v):
    """printer_norm(), and the way wraith's raw text differs from gdb's:
    no `<No data fields>`."""
    v = printer_norm(v).replace(", <No data fields>", "")
    return v.replace("> = {", ">: {")  # a base class (its only), wraith's shape


def frame0(text, fn="iterate"):
    m = re.search(r"#0 +(?:0x[0-9a-f]+ in )?%s ?\((.*)\) at " % fn, text)
    return split_args(m.group(1)) if m else None


def gdb_side(binary):
    cmds = ["break iterate", "run 1000", "print its", "bt 1", "kill"]
    res = subprocess.run(["gdb", "-batch"] + [x for c in cmds for x in ("-ex", c)] + [binary],
                         capture_output=True, text=True, timeout=180)
    m = re.search(r"^\$1 = (.*)$", res.stdout, re.M)
    return (split_members(norm(m.group(1))) if m else None), frame0(res.stdout)


def wraith_side(name, output="plain"):
    fx = Fixture(name, [1000])
    try:
        return run(["-p", fx.pid, "-s", 'trace iterate { print "I {}", its; bt args; }', "--max-events", 1,
                    "--timeout", 30, "--backtrace-depth", 1, "--script-output", output])
    finally:
        fx.stop()


def both(v):
    name = "containers-%s" % v
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_side, fixture(name))
        return v, wraith_side(name), g.result()


for v, res, (want, want_args) in parallel(both, BUILDS, workers=2):
    label = "containers-%s iterators" % v
    m = re.search(r"^I (.*)$", res.stdout, re.M)
    if not check(res.returncode == 0 and m and want and want_args,
                 "%s: both tools printed its and iterate's frame (rc %s, %r)" % (label, res.returncode,
                                                                                  res.stderr[-300:])):
        continue
    got = split_members(norm(m.group(1)))
    check(len(want) >= 20, "%s: gdb printed every iterator (%d)" % (label, len(want)))
    for member, g in want.items():
        eq(got.get(member, "<missing>"), g, "%s: %s as gdb's printer shows it" % (label, member))
    for member in ("msing", "vsing", "lsing"):
        check(got.get(member, "").startswith("non-dereferenceable iterator for "),
              "%s: a singular %s says so (%r)" % (label, member, got.get(member)))
    eq((got.get("lend"), got.get("mend")), ("3", "{first: 1000, second: 0}"),
       "%s: end() iterators read the head as gdb's printer does" % label)
    mine = frame0(res.stdout) or {}
    for arg, g in want_args.items():
        eq(mine.get(arg, "<missing>"), re.sub(r"^\w+@entry=", "", g), "%s: bt's %s as gdb's bt shows it" % (label, arg))


def dump_of(v):
    out = subprocess.run([fixture("containers-%s" % v), "dump"], capture_output=True, text=True).stdout
    return dict(l[3:].split(": ", 1) for l in out.splitlines() if l.startswith("it "))


SCHEMA = schema_validator()


def json_side(v):
    return v, wraith_side("containers-%s" % v, "json")


# NDJSON of every build against the program's own account
for v, res in parallel(json_side, BUILDS + ("libcxx-O0", "libcxx-O2"), workers=2):
    label = "containers-%s iterators json" % v
    events = json_events(res.stdout)
    if not check(res.returncode == 0 and len(events) == 1, "%s: one event (rc %s, %r)" % (
            label, res.returncode, res.stderr[-300:])):
        continue
    errors = sorted(SCHEMA.iter_errors(events[0]), key=str)
    check(not errors, "%s: the event is valid against doc/event.schema.json (%s)" % (label, errors[:1]))
    its = [it for it in events[0]["items"] if it["type"] == "print"][0]["args"][0]["value"]
    own = dump_of(v)
    mi = re.match(r'\["(\w+)"\] = (-?\d+)', own["mi"])
    eq(its["mi"].get("value"), {"first": mi.group(1), "second": int(mi.group(2))}, "%s: a map iterator" % label)
    for k in ("si", "vi", "li", "fi", "di", "ci"):
        eq(its[k].get("value"), int(own[k]), "%s: %s's element (the program's)" % (label, k))
    eq(its["bi"].get("value"), own["bi"] == "true", "%s: vector<bool>'s bit" % label)
    eq((its["msing"]["get"], "value" in its["msing"]), (None, False), "%s: a singular iterator" % label)
    eq(its["vsi"].get("value"), "after", "%s: an iterator of strings" % label)
    eq(its["vbad"].get("value", "<none>"), None, "%s: an unreadable element is null" % label)
    check(its["pi"].get("value", {}).get("name") == "bb" and its["nest"].get("value", {}).get("count") == 2,
          "%s: a struct and a map as elements (%r, %r)" % (label, its["pi"], str(its["nest"])[:100]))
    check(all(re.fullmatch(r"0x[0-9a-f]+", its[k]["get"]) for k in ("mi", "vi", "li", "bi")),
          "%s: get is the pointer (%r)" % (label, its["mi"]))


# libc++: the text against the fixture's account, the pointer against
# gdb's raw layout in the same process
def libcxx(v):
    fx = Fixture("containers-%s" % v, [1000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace iterate { print "I {}", its; }', "--max-events", 1, "--timeout", 30,
                   "--script-output", "json"])
        gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break iterate", "-ex", "continue",
                              "-ex", "print its.mi", "-ex", "print its.vi", "-ex", "detach"],
                             capture_output=True, text=True, timeout=120).stdout
    finally:
        fx.stop()
    return v, res, gdb


for v, res, gdb in parallel(libcxx, ("libcxx-O0", "libcxx-O2"), workers=2):
    label = "containers-%s iterators" % v
    events = json_events(res.stdout)
    if not check(res.returncode == 0 and len(events) == 1, "%s: wraith printed its (%r)" % (label, res.stderr[-300:])):
        continue
    pr = [it for it in events[0]["items"] if it["type"] == "print"][0]
    got, own = split_members(pr["text"][2:]), dump_of(v)
    eq(got.get("mi"), '{first: "rps", second: 2000}', "%s: a map iterator (the program: %s)" % (label, own["mi"]))
    for k in ("si", "vi", "li", "fi", "di", "bi"):
        eq(got.get(k), own[k], "%s: %s shows what the program says it points at" % (label, k))
    eq(got.get("ci"), "%s '%s'" % (own["ci"], chr(int(own["ci"]))), "%s: a string's iterator" % label)
    eq((got.get("msing"), got.get("vsing"), got.get("lsing")),
       ("non-dereferenceable iterator for associative container", "non-dereferenceable iterator for std::vector",
        "non-dereferenceable iterator for std::list"), "%s: singular iterators" % label)
    eq(got.get("lend"), "3", "%s: list's end() reads its head's size" % label)
    raw_mi = re.search(r"^\$1 = \{__i_ = \{__ptr_ = (0x[0-9a-f]+)\}\}$", gdb, re.M)
    raw_vi = re.search(r"^\$2 = \{__i_ = (0x[0-9a-f]+)\}$", gdb, re.M)
    its = pr["args"][0]["value"]
    eq((its["mi"]["get"], its["vi"]["get"]), (raw_mi and raw_mi.group(1), raw_vi and raw_vi.group(1)),
       "%s: the pointers are those gdb's raw layout shows (__i_.__ptr_, __i_)" % label)

check_no_leftovers("after the iterators")
finish()
