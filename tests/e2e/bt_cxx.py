"""bt_cxx.py - `bt` at leaf equals gdb's backtrace for C++ in every build:
cxx.cc (namespace, class template, constructor, operator, virtual method,
lambda, std::function with libstdc++ frames inlined at -O2, and a lambda
of main that _M_invoke inlines, whose operator() GCC gives no linkage
name: gdb names its frame "operator()"), templates.cc
(a deep exception-free template chain, nested and anonymous namespaces,
a functor, a variadic template, an overload) and cxx without debug info
(names demangled from .symtab, GCC clone suffixes kept).  Names are
compared without parameter lists and return types, which gdb prints only
for some frames.

C++ values at cxx.cc's refs() and Counter::bump(), gcc and clang, -O0 and
-O2: `print` of each parameter equals gdb's `print` (references as
`(int &) @0x...: 5`, an rvalue reference, a const struct reference, a
class with two bases, a diamond through a virtual base (shown once, where
its vtable places it), an enum class, bool, pointers to a data member and
to a member function, `this` and `*this`; at geo::describe() names
qualified by their namespace, geo::Color::green; at geo::scale_by(), a
static function in a namespace, which DWARF names without a linkage name;
`$pc` in a function template and an extern "C" function, which gdb names
by their DWARF functions, not by their ELF symbols),
and `bt args` shows each
as gdb's `info args` does.  Addresses differ between the two processes and
are compared as 0x?; structs in wraith's shape {x: 1}."""
import re

from bt_support import *

require_root()

cases = [Case("%s-%s" % (f, v)) for f in ("cxx", "templates", "cxx_nodebug") for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

# names: C++ frames are demangled and qualified, not mangled symbols
for c in cases:
    if c.bts:
        names = [f["function"] or "" for f in c.bts[0][1]["frames"]]
        check(not any(n.startswith("_Z") for n in names), "%s: no mangled names (%s)" % (c.label, names))
        if c.name.startswith("templates-"):
            check("deep::detail::Level<12>::run" in names and "deep::(anonymous namespace)::pick" in names,
                  "%s: template and anonymous-namespace frames named (%s)" % (c.label, names))

# ---- C++ values against gdb ----

REFS = ["r", "cr", "rr", "p", "d", "m", "b", "pm", "pf", "sr", "vd", "vd.vb", "vd.r", "vd.l"]


def norm_value(v):
    v = re.sub(r"0x[0-9a-f]+", "0x?", v.strip())
    return v.replace(" = ", ": ")  # gdb's {x = 1}, wraith's {x: 1}


# (probe, what to print): refs() and Counter::bump() at file scope,
# geo::describe() for names qualified by their namespace
# (globals of two namespaces by one name, and a class's static member,
# by their paths)
# (in the order main calls them: gdb stops at each in turn)
PROBES = [("refs", REFS + ["geo::hits", "tally::hits", "Limits::total", "tally::Caps::caps", "tally::Caps::cap",
                   "capl.v[1]", "capp"]), ("Counter::bump", ["this", "*this", "$pc"]),
          ("geo::scale_by", ["v", "k", "$pc"]), ("geo::larger<long>", ["a", "$pc"]),
          ("c_hook", ["tag", "n", "$pc"]),
          ("geo::describe", ["color", "origin", "member", "method"])]
# note: a std::string, which gdb shows through libstdc++'s pretty printer;
# flag: n & 1, different in the two processes' calls; scale: a double that
# -O2 keeps in an SSE register, which a probe does not see
NOT_COMPARED = {"note", "flag", "scale"}


def gdb_cxx_values(binary, this_deref):
    cmds = ["break refs", "run 1000"]
    for i, (fn, names) in enumerate(PROBES):
        if i:
            cmds += ["break " + fn, "continue"]
        cmds += ["echo @@%d\\n" % i, "info args", "echo @@p\\n"]
        cmds += ["print " + n for n in names if n != "*this" or this_deref]
    argv = ["gdb", "-batch", "-nx"] + [a for c in cmds + ["kill"] for a in ("-ex", c)] + [binary]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    args, prints, at, printing = [{} for _ in PROBES], [{} for _ in PROBES], -1, False
    for line in res.stdout.splitlines():
        m = re.match(r"@@(\d|p)$", line)
        if m:
            printing = m.group(1) == "p"
            at = at if printing else int(m.group(1))
            continue
        m = re.match(r"\$\d+ = (.*)", line)
        if m and printing:
            names = [n for n in PROBES[at][1] if n != "*this" or this_deref]
            prints[at][names[len(prints[at])]] = m.group(1)
            continue
        m = re.match(r"(\w+) = (.*)", line)
        if m and at >= 0 and not printing:
            args[at][m.group(1)] = m.group(2)
    return args, prints


def wraith_cxx_values(name, this_deref):
    script = " ".join("trace %s { %s bt args; }" % (fn, " ".join(
        'print "P%d %s={}", %s;' % (i, n, n) for n in names if n != "*this" or this_deref))
        for i, (fn, names) in enumerate(PROBES))
    # a script's probes start together: 60 events reach all three
    fx = Fixture(name, [1000])
    try:
        res = run(["-p", fx.pid, "-s", script, "--max-events", 60, "--timeout", 20])
    finally:
        fx.stop()
    fns = [fn for fn, _ in PROBES]
    prints, args = [{} for _ in PROBES], [None for _ in PROBES]
    for line in res.stdout.splitlines():
        m = re.match(r"  P(\d) ([*$\w:.\[\]]+)=(.*)", line)
        if m and m.group(2) not in prints[int(m.group(1))]:
            prints[int(m.group(1))][m.group(2)] = m.group(3)
        m = re.match(r"\s+#0 (\S+?)\((.*)\) at ", line)
        # the first backtrace with values (one without, seen once under
        # load, shows parameter types: a frame-values miss of its own)
        if m and m.group(1) in fns and args[fns.index(m.group(1))] is None and "=" in m.group(2):
            args[fns.index(m.group(1))] = split_args(m.group(2))
    return res, prints, args


def cxx_values(v):
    name = "cxx-%s" % v
    this_deref = v != "O2"  # gcc -O2 drops bump's this (IPA-SRA): both say <optimized out>
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_cxx_values, fixture(name), this_deref)
        w = wraith_cxx_values(name, this_deref)
        return v, w, g.result()


for v, (res, wprints, wargs), (gargs, gprints) in parallel(cxx_values, ("O0", "O2", "clang-O0", "clang-O2")):
    label = "cxx-%s values" % v
    if not check(res.returncode == 0 and all(gprints) and None not in wargs,
                 "%s: both tools stopped at each probe (rc %s, gdb %s, %r)" % (
                     label, res.returncode, [len(p) for p in gprints], res.stderr[-300:])):
        continue
    for i, (fn, _) in enumerate(PROBES):
        for n, g in gprints[i].items():
            w = wprints[i].get(n, "<missing>")
            if n == "$pc":
                # the symbol (a copy GCC made, bump.isra.0, by its
                # function's name); gdb types $pc void (*)(void) in C++,
                # wraith void (*)() in every language
                w, g = w.partition(" <")[2], g.partition(" <")[2]
            eq(norm_value(w), norm_value(g), "%s: print %s in %s as gdb prints it" % (label, n, fn))
        eq(sorted(wargs[i]), sorted(gargs[i]), "%s: %s has gdb's parameters" % (label, fn))
        for n, g in gargs[i].items():
            if n not in NOT_COMPARED:
                eq(norm_value(wargs[i].get(n, "<missing>")), norm_value(g),
                   "%s: bt args shows %s's %s as gdb's info args" % (label, fn, n))

# ---- parameter packs ----
# clang names every parameter of a pack by the pack's name: forward_all's
# `Args... args` is three `args`, std::__invoke_impl's and _M_invoke's
# `_Args&&... __args` two `__args` each (gcc numbers them, __args#0).
# `bt args` lists each, in order, as gdb lists the frame's arguments, and
# reads each one's own location.
_PACK_GDB = r'''
import gdb, json
gdb.execute("set pagination off")
gdb.execute("break leaf")
gdb.execute("run 1000", to_string=True)
out, f = [], gdb.newest_frame()
while f is not None:
    b = f.block()
    while b.function is None and b.superblock is not None:
        b = b.superblock
    out.append([f.name(), [s.name for s in b if s.is_argument]])
    f = f.older()
gdb.write("WRARGS " + json.dumps(out) + "\n")
gdb.execute("kill")
'''
PACKED = ("forward_all", "__invoke_impl", "_M_invoke")


def pack_args(name):
    fx = Fixture(name, [1000])
    try:
        res, bts = wraith_bts(fx.pid, "trace leaf { bt args; }")
    finally:
        fx.stop()
    frames = [(f["function"] or "", [a["name"] for a in f.get("args", [])])
              for _, bt in bts[:1] for f in bt["frames"]]
    starts = [f.get("args", []) for _, bt in bts[:1] for f in bt["frames"]
              if f["function"] == "__libc_start_call_main"]
    # main's pointer is named <main(int, char**)> (or <main> by its ELF
    # symbol), its name computed while the frame's other values are in
    # the same text: no value runs into another
    check(not starts or ([a["name"] for a in starts[0]] == ["main", "argc", "argv"] and
                         re.fullmatch(r"0x[0-9a-f]+ <main(\(int, char\*\*\))?>", starts[0][0]["value"])),
          "%s: __libc_start_call_main(main=... <main(int, char**)>, argc, argv) (%r)" % (name, starts[:1]))
    return name, res, frames, gdb_python(_PACK_GDB, fixture(name), tag="WRARGS")


PACK_BUILDS = ["%s-%s" % (f, c) for f in ("templates", "cxx") for c in ("clang-O2", "clang-O0", "O2")]
for v, res, got, want in parallel(pack_args, PACK_BUILDS, workers=2):
    if not check(res.returncode == 0 and got and want, "%s: both tools listed the frames (rc %s)" % (v, res.returncode)):
        continue
    wf = [(n, a) for n, a in got if any(p in n for p in PACKED)]
    gf = [(n or "", a) for n, a in want[0] if any(p in (n or "") for p in PACKED)]
    check(wf, "%s: frames with packs in wraith's bt (%r)" % (v, [n for n, _ in got]))
    eq([a for _, a in wf], [a for _, a in gf], "%s: each pack's parameters listed as gdb lists them" % v)

check_no_leftovers("after the C++ backtraces")
finish()
