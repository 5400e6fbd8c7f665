"""containers.py - C++ standard library values printed as gdb's
pretty-printers print them, read in the probe: containers.cc's `cfg` and
`all` at inspect(), each member of wraith's `print` against gdb's `print`
at the same function of the same binary (libstdc++: g++ and clang-19, -O0
and -O2; gdb auto-loads libstdc++'s printers), and, for libc++ (no gdb
printers on Debian), against what the fixture itself prints (`dump`).

Shapes: wraith writes struct members as `x: 1` and C arrays as [1, 2]
(gdb: `x = 1`, {1, 2}); a container keeps its printer's text.  Addresses
differ between the processes (0x?).  A string whose characters are on an
unmapped page is `<unreadable>` where gdb says `<error: Cannot access
memory at address 0x...>`.  Not compared: `pr` (wraith shows std::pair's
empty base class, gdb does not), `arr` and `raw` (C arrays, shape only)."""
from bt_support import *

require_root()

NOT_COMPARED = {"pr", "arr", "raw"}


def split_members(s):
    """'{a: 1, b: {x: 2}}' -> {'a': '1', 'b': '{x: 2}'}"""
    s = s.strip()
    if s.startswith("(") and ": {" in s:
        s = s[s.index(": {") + 2:]
    s = s[1:-1]
    out, depth, cur, quoted = {}, 0, "", False
    for i, ch in enumerate(s):
        if ch == '"' and (i == 0 or s[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "({[<":
            depth += 1
        elif not quoted and ch in ")}]>":
            depth -= 1
        if not quoted and depth == 0 and s[i:i + 2] == ", " and re.match(r"[A-Za-z_]\w*: ", s[i + 2:]):
            name, _, value = cur.partition(": ")
            out[name.strip()] = value
            cur = ""
            continue
        cur += ch
    name, _, value = cur.partition(": ")
    out[name.strip()] = value
    return out


def norm(v):
    v = re.sub(r"<error: Cannot access memory at address 0x[0-9a-f]+>", "<unreadable>", v)
    v = re.sub(r"0x[0-9a-f]+", "0x?", v)
    return re.sub(r"(\{|, )([A-Za-z_]\w*) = ", r"\1\2: ", v)


def gdb_values(binary):
    cmds = ["break inspect", "run 1000", "print cfg", "print all", "kill"]
    argv = ["gdb", "-batch"] + [a for c in cmds for a in ("-ex", c)] + [binary]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    vals = [m.group(1) for m in re.finditer(r"^\$\d+ = (.*)$", res.stdout, re.M)]
    return [split_members(norm(v)) for v in vals] if len(vals) == 2 else None


def wraith_values(name):
    fx = Fixture(name, [1000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace inspect { print "C {}", cfg; print "A {}", all; }',
                   "--max-events", 1, "--timeout", 30])
    finally:
        fx.stop()
    got = {}
    for line in res.stdout.splitlines():
        m = re.match(r"  ([CA]) (.*)", line)
        if m:
            got[m.group(1)] = split_members(norm(m.group(2)))
    return res, got


def libstdcxx(v):
    name = "containers-%s" % v
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_values, fixture(name))
        return v, wraith_values(name), g.result()


for v, (res, got), want in parallel(libstdcxx, ("O0", "O2", "clang-O0", "clang-O2"), workers=2):
    label = "containers-%s" % v
    if not check(res.returncode == 0 and want and "C" in got and "A" in got,
                 "%s: both tools printed cfg and all (rc %s, %r)" % (label, res.returncode, res.stderr[-300:])):
        continue
    for which, gdb_side in zip("CA", want):
        for member, g in gdb_side.items():
            if member not in NOT_COMPARED:
                eq(got[which].get(member, "<missing>"), g, "%s: %s as gdb's printer shows it" % (label, member))

# libc++: the fixture's own account of what it holds
for v in ("libcxx-O0", "libcxx-O2"):
    label = "containers-%s" % v
    dump = subprocess.run([fixture("containers-%s" % v), "dump"], capture_output=True, text=True).stdout
    own = dict(line.split(": ", 1) for line in dump.splitlines())
    res, got = wraith_values("containers-%s" % v)
    if not check(res.returncode == 0 and "A" in got, "%s: wraith printed all (%r)" % (label, res.stderr[-300:])):
        continue
    a = got["A"]
    for s in ("s_short", "s_15", "s_16", "s_heap", "s_empty", "s_moved", "sv"):
        eq(a.get(s), own[s], "%s: %s holds what the program says" % (label, s))
    for seq, head in (("vec", "std::vector of length 3"), ("lst", "std::list"), ("spn", "std::span of length 3")):
        elems = re.sub(r"\[\d+\] = ", "", a.get(seq, "").split(" = ", 1)[-1])
        check(a.get(seq, "").startswith(head) and elems == own[seq].split(" ", 2)[-1],
              "%s: %s is %r (the program: %r)" % (label, seq, a.get(seq), own[seq]))
    eq(a.get("m"), "std::map with 3 elements = " + own["m"].split(" ", 2)[2], "%s: m in order" % label)
    check(a.get("st", "").endswith("{[0] = 1, [1] = 2, [2] = 3}") and a.get("ms", "").endswith("{[0] = 1, [1] = 4, [2] = 4}"),
          "%s: sets in order (%r, %r)" % (label, a.get("st"), a.get("ms")))
    check(a.get("big", "").startswith("std::map with 1000 elements = {[0] = 0, [1] = 1, [2] = 4")
          and a.get("big", "").endswith("[99] = 9801...}"), "%s: a map of 1,000 capped at 100 pairs" % label)
    check(a.get("dq", "").startswith("std::deque with 201 elements = {-1, 0, 1,") and a["dq"].endswith("198...}"),
          "%s: a deque across blocks, capped (%r)" % (label, a.get("dq", "")[-40:]))
    eq(a.get("dangling"), 'std::vector of length 3, capacity 4 = {"before", <unreadable>, "after"}',
       "%s: a dangling string inside a container" % label)
    eq(a.get("opt"), "std::optional<int> = {[contained value] = 3}", "%s: optional" % label)
    eq(a.get("var_str"), 'std::variant<int, std::string> [index 1] = {"alt"}', "%s: variant" % label)
    check("(use count 2, weak count 1)" in a.get("sp", ""), "%s: shared_ptr counts (%r)" % (label, a.get("sp")))

# a container another thread keeps changing: every event is one line, no crash
fx = Fixture("containers-O2", [200])
try:
    res = run(["-p", fx.pid, "-s", 'trace watch { print "W {} {}", changing, changing_map; }',
               "--max-events", 50, "--timeout", 30])
finally:
    fx.stop()
lines = [l for l in res.stdout.splitlines() if l.startswith("  W ")]
check(res.returncode == 0 and len(lines) == 50 and all("std::vector of length" in l and "std::map with" in l
                                                       for l in lines),
      "a vector and a map changed by another thread print 50 whole lines (rc %s, %d lines)" % (
          res.returncode, len(lines)))

check_no_leftovers("after the containers")
finish()
