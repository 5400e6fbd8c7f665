"""containers_expr.py - expressions on the C++ standard library's values,
read in the probe: `v[i]`, `.size()`, `.length()`, `.empty()`,
`.has_value()`, `.get()` (a deque's size() across its blocks, a
forward_list's empty()), `*p` and `p->m` through unique_ptr and
shared_ptr, a std::string compared with a literal (`==`, starts_with,
s.starts_with),
an optional or a smart pointer as a condition, and a count keyed by one.

Oracles: gdb's print at the same function of the same binary where gdb
can evaluate the expression (libstdc++'s xmethods: vector's [] and
size(), empty(), the maps' size(), unique_ptr's * and ->, shared_ptr's
->); what the fixture says it holds (`containers dump`) for the rest and
for libc++ (gdb cannot call the inlined string methods, and has no
libc++ printers or xmethods here).  Completion in a probe's body and `info
scope` are held to gdb's `complete` and `whatis` at the same function,
and every method they offer must compile.  libstdc++'s xmethod for a deque's
size() says 328 of the fixture's deque of 201 (the program and gdb's
printer say 201): its size() is compared with the program's only."""
from bt_support import *

require_root()

# each is also printed by gdb; wraith's text of a struct differs in shape
GDB_EXPRS = ["cfg.ports[1]", "cfg.ports.size()", "all.vec_empty.empty()", "all.vec.empty()", "all.m.size()",
             "all.up->name", "all.sp->id", "all.lst.size()", "*all.up", "all.vec_250[249]", "all.st.size()",
             "all.big.size()", "all.um.size()", "cfg.items[1]", "all.dq.empty()", "all.flist.empty()",
             # printed alone, the library's values whose printers need
             # only their own bytes (the probe walks nothing of them)
             "all.atom", "all.opt", "all.opt_none", "all.var_int", "all.tup", "all.pr", "cfg.retries",
             "all.opt_str", "all.up_null", "all.var_str"]


def norm(v):
    return re.sub(r"(\{|, )([A-Za-z_]\w*) = ", r"\1\2: ", v)


def gdb_prints(binary, exprs):
    cmds = ["break inspect", "run 1000"] + ["print %s" % x for x in exprs] + ["kill"]
    res = subprocess.run(["gdb", "-batch"] + [a for c in cmds for a in ("-ex", c)] + [binary],
                         capture_output=True, text=True, timeout=180)
    return [norm(m.group(1)) for m in re.finditer(r"^\$\d+ = (.*)$", res.stdout, re.M)]


def wraith_prints(name, exprs, extra=""):
    """Four expressions a probe (a probe's BPF stack holds a few)."""
    probes = ["trace inspect { %s }\n" % " ".join('print "E%d {}", %s;' % (i + k, x)
                                                 for k, x in enumerate(exprs[i:i + 4]))
              for i in range(0, len(exprs), 4)]
    fx = Fixture(name, [1000])
    try:
        # one event from each probe of @extra that prints
        extra_events = len([p for p in re.split(r"(?m)^trace ", extra) if "print" in p])
        res = run(["-p", fx.pid, "-s", "".join(probes) + extra, "--max-events", len(probes) + extra_events,
                   "--timeout", 60])
    finally:
        fx.stop()
    got = {}
    for m in re.finditer(r"^  E(\d+) (.*)$", res.stdout, re.M):
        got.setdefault(int(m.group(1)), m.group(2))
    return res, got


def own_dump(name):
    out = subprocess.run([fixture(name), "dump"], capture_output=True, text=True).stdout
    return dict(line.split(": ", 1) for line in out.splitlines())


def against_gdb(v):
    name = "containers-%s" % v
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_prints, fixture(name), GDB_EXPRS)
        res, got = wraith_prints(name, GDB_EXPRS)
        return v, res, got, g.result()


for v, res, got, want in parallel(against_gdb, ("O0", "O2", "clang-O0", "clang-O2"), workers=2):
    if not check(res.returncode == 0 and len(want) == len(GDB_EXPRS),
                 "containers-%s: both tools printed (rc %s, gdb %d values, %r)" % (
                     v, res.returncode, len(want), res.stderr[-300:])):
        continue
    for i, x in enumerate(GDB_EXPRS):
        eq(got.get(i, "<missing>"), want[i], "containers-%s: %s as gdb evaluates it" % (v, x))

# strings, optionals, conditions and counts: against the program's own
# account, on every build (libc++'s short and long strings included)
OWN_EXPRS = [
    ("all.s_heap.length()", lambda own: str(len(own["s_heap"]) - 2)),
    ("all.s_15.size()", lambda own: "15"),
    ("all.s_16.size()", lambda own: "16"),
    ("all.s_short[1]", lambda own: "112 'p'"),
    ("all.s_heap[2]", lambda own: "%d '%s'" % (ord(own["s_heap"][3]), own["s_heap"][3])),
    ('all.s_15 == "fifteen-chars!!"', lambda own: "true"),      # 15: the last short string
    ('all.s_16 == "sixteen-chars!!!"', lambda own: "true"),     # 16: the first on the heap
    ('all.s_16 == "sixteen-chars!!"', lambda own: "false"),
    ('all.s_short != "apple"', lambda own: "false"),
    ('starts_with(all.s_heap, "a string long")', lambda own: "true"),
    ('all.s_heap.starts_with("a string long")', lambda own: "true"),  # as C++20 writes it
    ('all.s_short.starts_with("app")', lambda own: "true"),
    ('all.s_16.starts_with("fifteen")', lambda own: "false"),
    ('strncmp(all.s_16, "sixteen-chars!!!", 16)', lambda own: "true"),
    ('all.s_empty == ""', lambda own: "true"),
    ("all.s_moved.empty()", lambda own: "true"),
    ("all.vec_moved.empty()", lambda own: "true"),
    ("all.vec.size()", lambda own: own["vec"].split()[1]),
    ("all.vec[2]", lambda own: own["vec"].split("{")[1].split(", ")[2].rstrip("}")),
    ("all.vec[3]", lambda own: "<index out of range>"),
    ("all.spn[1]", lambda own: own["spn"].split("{")[1].split(", ")[1]),
    ("all.dq.size()", lambda own: own["dq"].split()[1]),           # across blocks
    ("all.flist.empty()", lambda own: "false"),                     # no count: its first node
    ("all.opt.has_value()", lambda own: "true"),
    ("all.opt_none.has_value()", lambda own: "false"),
    ("all.up->id", lambda own: own["up"].split()[0]),
    ("all.up.get() == 0", lambda own: "false"),
    ("all.up_null.get() == 0", lambda own: "true"),
    ("all.sp->name", lambda own: '"shared"'),
    ("(*all.sp).id", lambda own: "2"),
    ("all.m.size()", lambda own: own["m"].split()[1]),
    ("all.ms.size()", lambda own: own["ms"].split()[1]),
    ("all.big.size()", lambda own: own["big"].split()[1]),
]
CONDITIONS = '''trace inspect {
    if all.opt { print "C opt"; }
    if all.opt_none { print "C opt_none"; }
    if all.up_null { print "C up_null"; } else { print "C no up_null"; }
    if all.s_short == "apple" && all.vec.size() == 3 && !all.vec_empty.size() { print "C and"; }
}
trace inspect { count bt, all.m.size(); }
trace inspect { if all.vec[0] == 1 && all.up->id == 1 && all.s_16.length() > 15 { print "C index"; } }
trace inspect { print "S {:s}|{:s}|{}", all.s_short, all.s_16, all.s_short; }
'''


def against_own(v):
    name = "containers-%s" % v
    exprs = [x for x, f in OWN_EXPRS if f(own_dump(name)) is not None]
    return v, own_dump(name), exprs, wraith_prints(name, exprs, CONDITIONS)


for v, own, exprs, (res, got) in parallel(against_own, ("O0", "O2", "clang-O0", "clang-O2", "libcxx-O0",
                                                        "libcxx-O2"), workers=2):
    label = "containers-%s" % v
    if not check(res.returncode == 0, "%s: the script ran (rc %s, %r)" % (label, res.returncode, res.stderr[-400:])):
        continue
    for i, x in enumerate(exprs):
        eq(got.get(i, "<missing>"), dict(OWN_EXPRS)[x](own), "%s: %s holds what the program says" % (label, x))
    conds = re.findall(r"^  C (.*)$", res.stdout, re.M)
    eq(sorted(set(conds)), ["and", "index", "no up_null", "opt"],
       "%s: optionals, smart pointers, sizes and strings in if conditions" % label)
    eq((re.findall(r"^  S (.*)$", res.stdout, re.M) or [None])[0], 'apple|sixteen-chars!!!|"apple"',
       "%s: {:s} of a std::string, short and long: its characters alone" % label)

# a method the probe does not read is an error that says which, before
# anything is attached
fx = Fixture("containers-O0", [1000])
try:
    res = run(["-p", fx.pid, "-s", 'trace inspect { print "{}", all.flist.size(); }', "--max-events", 1,
               "--timeout", 10])
    check(res.returncode == 2 and "size() of std::forward_list" in res.stderr,
          "size() of a forward_list (C++ has none) is refused with its name (%r)" % res.stderr[-300:])
    res = run(["-p", fx.pid, "-s", 'trace inspect { print "{}", all.vec.front(); }', "--max-events", 1,
               "--timeout", 10])
    check(res.returncode == 2 and "front() of std::vector" in res.stderr,
          "an unknown method is refused with its name (%r)" % res.stderr[-300:])
finally:
    fx.stop()

# completion and `info scope` inside a probe's body: the names gdb
# completes at the same function, the methods the probe reads, and only
# those (each offered method compiles)
def complete(pid, text):
    res = run(["-p", pid, "--complete", text])
    return [w for w in res.stdout.splitlines() if w]


def gdb_scope(binary):
    cmds = ["break inspect", "run 1000", "complete print cfg.", "whatis cfg", "whatis all", "kill"]
    out = subprocess.run(["gdb", "-batch", "-nx"] + [a for c in cmds for a in ("-ex", c)] + [binary],
                         capture_output=True, text=True, timeout=120).stdout
    members = [l[len("print "):] for l in out.splitlines() if l.startswith("print cfg.") and "~" not in l]
    return members, re.findall(r"^type = (.*)$", out, re.M)


HEAD = 'trace inspect { print "{}", '
for v in ("O0", "clang-O2"):
    label = "containers-%s" % v
    fx = Fixture(label, [1000])
    try:
        members, types = gdb_scope(fixture(label))
        got = complete(fx.pid, HEAD + "cfg.")
        check(members and sorted(got) == sorted(members),
              "%s: members of cfg completed as gdb completes them (%r; gdb %r)" % (label, got, members))
        offered = {}
        for path in ("cfg.ports", "all.s_short", "all.m", "all.opt", "all.up", "all.flist", "all.dq"):
            offered[path] = [w[len(path) + 1:] for w in complete(fx.pid, HEAD + path + ".")
                             if w.endswith("()")]
        eq(offered["cfg.ports"], ["size()", "empty()"], "%s: a vector's methods" % label)
        eq(offered["all.s_short"], ["size()", "length()", "empty()"], "%s: a string's methods" % label)
        eq(offered["all.opt"], ["has_value()"], "%s: an optional's method" % label)
        eq(offered["all.up"], ["get()"], "%s: a unique_ptr's method" % label)
        eq(offered["all.flist"], ["empty()"], "%s: a forward_list has no size()" % label)
        calls = [p + "." + m for p in offered for m in offered[p]]
        res = run(["-p", fx.pid, "--dry-run", "-s",
                   "".join("trace inspect { print \"{}\", %s; }\n" % c for c in calls)])
        check(res.returncode == 0, "%s: every method offered compiles (%s; %r)" % (label, calls, res.stderr[-400:]))
        got = complete(fx.pid, HEAD + "cfg.owner->")
        check("cfg.owner->name" in got and "cfg.owner->id" in got,
              "%s: `->` through a unique_ptr completes its target's members (%r)" % (label, got))
        got = complete(fx.pid, HEAD + "a")
        check("all" in got, "%s: a parameter by its first letter (%r)" % (label, got))
        eq(complete(fx.pid, HEAD + "$p"), ["$pid", "$pc"], "%s: special variables" % label)
        check({"strncmp", "starts_with"} <= set(complete(fx.pid, HEAD + "st")),
              "%s: built-ins" % label)
        eq(complete(fx.pid, 'trace inspect { print "cfg.'), [], "%s: nothing inside a string" % label)
        cmds = os.path.join(TESTDIR, "scope-%s.cmd" % v)
        with open(cmds, "w") as f:
            f.write("info scope inspect\ninfo scope handle\n")
        res = run(["-p", fx.pid, "--batch", cmds])
        shown = dict(re.findall(r"^    (\w+): (.*?), (?:parameter|local)", res.stdout, re.M))
        eq([shown.get("cfg"), shown.get("all")], types, "%s: info scope names cfg's and all's types as gdb's "
           "whatis (%r)" % (label, res.stdout[-600:]))
        check(re.search(r"^    limits: .*; reads size\(\), empty\(\)$", res.stdout, re.M),
              "%s: info scope says which methods a probe reads on a map" % label)
    finally:
        fx.stop()

# Rust: the idiomatic names, through a reference (`v: &Vec<i32>`)
fx = Fixture("rstd-O0", [1000])
try:
    head = 'trace rstd::show { print "{}", '
    eq(complete(fx.pid, head + "v."), ["v.buf", "v.len", "v.len()", "v.is_empty()"],
       "rstd-O0: a &Vec's members and the methods the probe reads on it")
    check("cfg.ports" in complete(fx.pid, head + "cfg.p"), "rstd-O0: a struct's members through &")
    eq(complete(fx.pid, 'trace rstd::inspect { print "{}", opt.'), ["opt.is_some()", "opt.is_none()"],
       "rstd-O0: an Option's methods")
    res = run(["-p", fx.pid, "--dry-run", "-s", 'trace rstd::show { print "{} {}", v.len(), v.is_empty(); } '
               'trace rstd::inspect { print "{}", opt.is_some(); }'])
    check(res.returncode == 0, "rstd-O0: each Rust method offered compiles (%r)" % res.stderr[-400:])
finally:
    fx.stop()

check_no_leftovers("after the container expressions")
finish()
