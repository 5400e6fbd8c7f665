"""cxx_real.py - C++ as real programs write it (ninja's build loop), as
gdb shows it: cxxreal.cc built by g++ and clang-19 at -O0 and -O2.

- A method returning std::string carries the ABI tag [abi:cxx11] in its
  demangled name; gdb's `break Edge::EvaluateCommand` finds it, and so
  must `trace Edge::EvaluateCommand` (it was refused: "no function ...;
  did you mean 'Edge::EvaluateCommand[abi:cxx11]'?", and that spelling
  then "invalid line number").  Its sites are gdb's break addresses, by
  either spelling, and its frames have gdb's name for it,
  "Edge::EvaluateCommand[abi:cxx11](bool) const".
- An enum declared inside a class, a namespace or an anonymous namespace
  has its values named by those scopes, as gdb names them:
  Plan::kEdgeSucceeded, build::VERBOSE, (anonymous namespace)::kRun,
  Edge::VisitInStack inside a struct, (Plan::kEdgeSucceeded | unknown:
  0x4) for a value no enumerator has (wraith printed them bare).  Each is
  compared with gdb at the same pc of the same live process, in print
  and in bt args.
- A reference to a struct whose char pointer points to the heap
  (leveldb's Slice) shows its string in bt args, as gdb's bt does, and a
  reference to a plain struct on the heap (leveldb's Options) its
  members: the probe copies them at the hit.
- ninja's FinishCommand seen from ExtractDeps (bt full at extract()):
  finish()'s unique_ptrs by libstdc++'s printer, as gdb's bt full shows
  them (wraith showed their raw members in outer frames), and strings
  whose last character is a NUL without it, as gdb's printer writes them
  ("gcc" for "gcc\\0", "" for one NUL; wraith wrote "gcc\\000"), in
  frame 0's print too; the types of pointers to a vector<Client *> and
  an array<int, 3> as gdb's canonical names spell them, also where
  clang's debug info writes "Client *" and "3UL" ("Client*", "3ul"),
  and a cast to a type named either way, as gdb finds it; each compared
  with gdb at the same pc.
"""
import re
import subprocess

from gdbvalues import normalize
from wraithtest import *
from wraithtest import _gdb_function as gdb_function

require_root()

BUILDS = ["cxxreal-O0", "cxxreal-O2", "cxxreal-clang-O0", "cxxreal-clang-O2"]
TAGGED = ["Edge::EvaluateCommand"]


def tagged_names(build):
    """`trace NAME` without the ABI tag, and with it, stops where gdb's
    `break NAME` stops."""
    path = fixture(build)
    gdb = gdb_break_sites(path, TAGGED)
    mine = trace_sites(path, TAGGED + [fn + "[abi:cxx11]" for fn in TAGGED])
    for fn in TAGGED:
        check(gdb.get(fn), "%s: gdb breaks at %s" % (build, fn))
        eq(sorted(mine.get(fn, ())), sorted(gdb.get(fn, ())),
           "%s: trace %s stops where break %s stops" % (build, fn, fn))
        eq(sorted(mine.get(fn + "[abi:cxx11]", ())), sorted(gdb.get(fn, ())),
           "%s: trace %s[abi:cxx11] stops there too" % (build, fn))


def tagged_frame(build):
    """A frame of a tagged function has gdb's name, its parameters kept
    (gdb cannot take them off a tagged name)."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", "trace Edge::EvaluateCommand { bt; }", "--max-events", 1, "--timeout", 20,
               "--script-output", "json", "-q"])
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break Edge::EvaluateCommand",
                          "-ex", "continue", "-ex", "bt 1", "-ex", "detach"], capture_output=True, text=True,
                         timeout=120).stdout
    fx.stop()
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s: Edge::EvaluateCommand is traced (%s)" % (build, res.stderr[-300:]))
    frame0 = [FRAME_RE.match(l) for l in gdb.splitlines() if l.startswith("#0 ")]
    check(frame0 and frame0[0], "%s: gdb stops at Edge::EvaluateCommand" % build)
    if ev and frame0 and frame0[0]:
        bt = [it for it in ev[0]["items"] if it["type"] == "backtrace"][0]
        eq(bt["frames"][0]["function"], gdb_function(frame0[0].group(2)),
           "%s: the tagged function's frame has gdb's name" % build)


PROBES = {
    "Plan::EdgeFinished": ["result", "edge->mark_", "(Plan::EdgeResult)5"],
    "report": ["verbosity", "phase", "edge.mark_"],
}


# a struct holding an enum member, printed whole
WHOLE = {"Plan::EdgeFinished": "*edge", "report": "edge"}
# and as gdb's Python prints it (a reference's str() is its address)
GDB_WHOLE = {"*edge": "*edge", "edge": "*&edge"}


def gdb_form(v):
    """gdb's struct text with wraith's `name: value` members."""
    return re.sub(r"(?<=[{ ])([A-Za-z_]\w*) = ", r"\1: ", v)


def enum_values(build):
    fx = Fixture(build, [2000])
    got, frames = {}, {}
    for fn, names in PROBES.items():
        exprs = [re.sub(r"^\((\S+)\)(\d+)$", r'cast(\2, "\1")', n) for n in names]
        script = 'trace %s { print "%s", $pc, %s, %s; bt args; }' % (
            fn, " ## ".join(["{}"] * (len(names) + 2)), ", ".join(exprs), WHOLE[fn])
        res = run(["-p", fx.pid, "-s", script, "--max-events", 1, "--timeout", 20, "--script-output", "json", "-q"])
        check(res.returncode == 0, "%s: %s is traced (%s)" % (build, fn, res.stderr.strip()[-300:]))
        for ev in json_events(res.stdout):
            pr = [it for it in ev["items"] if it["type"] == "print"][0]
            vals = pr["text"].split(" ## ")
            pc = int(re.search(r"0x[0-9a-f]+", vals[0]).group(0), 16)
            got[fn] = (pc, dict(zip(names + [WHOLE[fn]], vals[1:])))
            bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
            frames[fn] = dict((a["name"], str(a["value"])) for a in bt["frames"][0].get("args", []))
    gdb = {}
    for fn, (pc, _) in got.items():
        gdb[fn] = gdb_frame_values(fx.pid, [pc], fn, PROBES[fn] + [GDB_WHOLE[WHOLE[fn]]]).get("%x" % pc)
    fx.stop()
    for fn, (pc, vals) in got.items():
        g = gdb.get(fn)
        check(g, "%s: gdb stops at %s's pc 0x%x" % (build, fn, pc))
        if not g:
            continue
        for name in PROBES[fn]:
            eq(vals[name], g[name], "%s: print %s at %s is gdb's" % (build, name, fn))
        mark = re.search(r"mark_: ([\w:]+)", vals[WHOLE[fn]])
        whole = g[GDB_WHOLE[WHOLE[fn]]]
        check(mark and "mark_: %s," % mark.group(1) in gdb_form(whole),
              "%s: the enum member in %s's %s is gdb's (%s; gdb: %s)" % (build, fn, WHOLE[fn], vals[WHOLE[fn]], whole))
        for name in ("verbosity", "phase", "result"):
            if name in frames.get(fn, {}) and "optimized out" not in frames[fn][name]:
                eq(frames[fn][name], g[name], "%s: bt args' %s at %s is gdb's" % (build, name, fn))


def slices(build):
    """bt args at put(): a reference to a struct whose char pointer points
    to the heap (leveldb's Slice) shows its string, read at the hit, as
    gdb's bt (frame-arguments all) shows it."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", "trace put { bt args; }", "--max-events", 1, "--timeout", 20,
               "--script-output", "plain", "-q"])
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "set print frame-arguments all",
                          "-ex", "set print pretty off", "-ex", "set width 0", "-ex", "break put", "-ex", "continue",
                          "-ex", "bt 1", "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    fx.stop()
    mine = re.search(r"^  #0 put\((.*)\) at ", res.stdout, re.M)
    theirs = re.search(r"^#0 +put \((.*)\) at ", gdb, re.M)
    if not check(mine and theirs, "%s: put's frame in wraith's and gdb's bt (%r, %r)" % (
            build, res.stdout[-300:], gdb[-300:])):
        return
    mine, theirs = split_args(mine.group(1)), split_args(theirs.group(1))
    for arg in ("key", "value", "opt"):
        eq(re.sub(r"0x[0-9a-f]+", "0x?", mine.get(arg, "<missing>")),
           re.sub(r"0x[0-9a-f]+", "0x?", normalize(theirs.get(arg, "<missing in gdb>"))),
           "%s: put's %s in bt args is gdb's" % (build, arg))
    check('"a key long enough for the heap"' in mine.get("key", ""), "%s: the key's string shows" % build)
    check("level: 3, sync: true" in mine.get("opt", ""), "%s: the struct on the heap shows" % build)


_GDB_OUTER = r"""
import gdb, json
gdb.execute("set pagination off")
gdb.execute("attach %d" % PID, to_string=True)
gdb.execute("break *0x%x" % pc, to_string=True)
gdb.execute("continue", to_string=True)


def value(n, printed=False):
    # gdb's text (print's, with a pointer's type, or bt full's), or its
    # error: a printer that fails (clang -O0 declares std::string
    # without its members) leaves an empty text
    try:
        if printed:
            v = gdb.execute("print " + n, to_string=True).split(" = ", 1)[1].strip()
        else:
            v = str(gdb.parse_and_eval(n))
    except Exception as e:
        return "<gdb error: %s>" % e
    return v if v and not v.startswith(("<error", "Python Exception")) else "<gdb error: %r>" % v


out = {"args": dict((n, value(n, True)) for n in args)}
f = gdb.newest_frame().older()
while f is not None and f.name() != "finish":
    f = f.older()
if f is not None:
    f.select()
    out["locals"] = dict((n, value(n)) for n in local_names)
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("detach", to_string=True)
"""
OUTER_ARGS = ["deps_type", "prefix", "nodes", "sizes"]
# a cast to a type named as clang writes it, which gdb finds by either spelling
CAST = ('cast(sizes, "std::vector<Client *, std::allocator<Client *> > *")',
        "(std::vector<Client *, std::allocator<Client *> > *)sizes")
OUTER_LOCALS = ["client", "none", "ended", "nul"]


def same(v):
    return re.sub(r"0x[0-9a-f]+", "0x?", normalize(v))


def outer_locals(build):
    """print at extract() and bt full's finish() frame equal gdb's at the
    same pc (the third event: its outer frame's values by the chain's
    recipe)."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", 'trace extract { print "{} ## {} ## {} ## {} ## {} ## {}", $pc, deps_type, prefix, nodes, sizes, %s; '
               'bt full; }' % CAST[0],
               "--max-events", 3, "--timeout", 20, "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    if not check(res.returncode == 0 and len(ev) == 3, "%s: extract is traced (%s)" % (build, res.stderr[-300:])):
        fx.stop()
        return
    vals = [it for it in ev[-1]["items"] if it["type"] == "print"][0]["text"].split(" ## ")
    pc = int(re.search(r"0x[0-9a-f]+", vals[0]).group(0), 16)
    frames = [it for it in ev[-1]["items"] if it["type"] == "backtrace"][0]["frames"]
    finish_frame = [f for f in frames if f["function"] == "finish"]
    mine = dict((l["name"], str(l["value"])) for l in (finish_frame[0].get("locals", []) if finish_frame else []))
    got = gdb_python(_GDB_OUTER, fx.pid, pc=pc, args=OUTER_ARGS + [CAST[1]], local_names=OUTER_LOCALS)
    fx.stop()
    if not check(got and "locals" in got[0], "%s: gdb stops at extract's pc 0x%x, finish's frame above" % (build, pc)):
        return
    gdb = got[0]
    compared = 0
    for name, v in zip(OUTER_ARGS + [CAST[1]], vals[1:]):
        if "gdb error" not in gdb["args"][name]:
            eq(same(v), same(gdb["args"][name]), "%s: print %s at extract is gdb's" % (build, name))
            compared += 1
    for name in OUTER_LOCALS:
        if "gdb error" not in gdb["locals"][name]:
            eq(same(mine.get(name, "<missing>")), same(gdb["locals"][name]),
               "%s: bt full's %s in finish's frame is gdb's" % (build, name))
            compared += 1
    check(compared >= 5, "%s: gdb showed most of them (%s)" % (build, gdb))
    eq(mine.get("client", "")[:34], "std::unique_ptr<Client> = {get() =", "%s: client by its printer" % build)
    if "gdb error" not in gdb["locals"]["ended"]:
        eq((mine.get("ended"), mine.get("nul")), ('"gcc"', '""'), "%s: no NUL at the strings' ends" % build)


for b in BUILDS:
    outer_locals(b)
    slices(b)
    tagged_names(b)
    tagged_frame(b)
    enum_values(b)
check_no_leftovers("after the real C++ patterns")
finish()
