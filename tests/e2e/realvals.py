"""realvals.py - values in patterns taken from real optimized programs
(Redis at -O3 -flto, issue 23) that wraith showed differently from gdb:
each parameter printed at every site of the probe equals gdb's at the
same pc of the same live process, and `bt args` in the same event shows
the same value, never <unavailable> or <optimized out> where print and
gdb read one.

The fixture (realvals.c) is built by gcc and clang at -O2, by gcc at -O3
and by both with -flto.  Its cases: set_key inlined into mset, whose
parameters at its first instruction are still the caller's c->argv[j]
and c->db, in memory on the heap at an address a register holds
(Redis's setKey inlined into msetGenericCommand); and set_name, whose
name GCC's LTO places at an address read through c on the heap
(DW_OP_deref).  The probe copies such values, and the words their
locations read, at the hit.  And notify's event, only an entry value at
mk (inlined into it) with 64 callers, which a copy at the hit would take
over the BPF stack at gcc -O2: the probe is compiled without that copy,
not refused, and bt args shows event as gdb does; `print event` (one
switch case per caller in the probe) is not refused either and shows
what bt args shows.  And at store's
entry, called directly from set_key, set_key's parameters in registers a
callee may clobber are still what they were at the call: bt args shows
them, as gdb does.  And op_add's b, called through a const table of
functions (Python's binary_ops[oparg]): its call site's target is read
through the table, which cannot have changed since the hit (RELRO), so
the value the site passed shows, as gdb shows it.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["realvals-O2", "realvals-clang-O2", "realvals_O3", "realvals_lto", "realvals_clang-lto"]
PROBES = {"set_key": ["c", "db", "key", "val", "flags"], "set_name": ["c", "name", "j"]}


def core(v):
    """A value's content: its string, else its first address as a number,
    else its text; None for <optimized out>."""
    if v is None or "<optimized out>" in v:
        return None
    m = re.search(r'"[^"]*"', v)
    if m:
        return m.group(0)
    m = re.search(r"0x[0-9a-f]+", v)
    return int(m.group(0), 16) if m else v.strip()


def shown(arg):
    if arg["error"] is not None:
        return "<%s>" % arg["error"].replace("-", " ")
    if re.match(r"^(const )?char \*", arg["type"]):
        return '"%s"' % arg["value"]
    return str(arg["value"])


def wraith_sites(pid, fn, names):
    """{pc: ({name: print's value}, {name: bt args' value} of fn's frame)}."""
    script = 'trace %s { print "%s", $pc, %s; bt args; }' % (
        fn, "|".join(["{}"] * (len(names) + 1)), ", ".join(names))
    res = run(["-p", pid, "-s", script, "--max-events", 6, "--timeout", 20, "--script-output", "json", "-q"])
    check(res.returncode == 0, "%s: wraith traces it (%s)" % (fn, res.stderr.strip()[-300:]))
    sites = {}
    for ev in json_events(res.stdout):
        pr = [it for it in ev["items"] if it["type"] == "print"][0]
        vals = [shown(a) for a in pr["args"]]
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        frame = next((f for f in bt["frames"] if f["function"] == fn), None)
        bargs = dict((a["name"], str(a["value"])) for a in frame.get("args", [])) if frame else None
        sites.setdefault(int(vals[0], 16), (dict(zip(names, vals[1:])), bargs))
    return sites


def one(build):
    fx = Fixture(build, [2000])
    addrs = dict((k, int(v, 16)) for k, v in re.findall(r"(\w+)=(0x[0-9a-f]+)", fx.first_line))
    known = {"c": addrs["c"], "db": addrs["db"], "key": addrs["k"], "val": addrs["v"], "name": '"alpha"',
             "flags": "0", "j": "1"}
    per_fn = dict((fn, wraith_sites(fx.pid, fn, names)) for fn, names in PROBES.items())
    gv = dict((fn, gdb_frame_values(fx.pid, sites, fn, PROBES[fn], through_inline=True))
              for fn, sites in per_fn.items())
    fx.stop()
    shown_heap = 0
    for fn, sites in per_fn.items():
        check(sites, "%s %s: events from its sites" % (build, fn))
        for pc, (vals, bargs) in sorted(sites.items()):
            g = gv[fn].get("%x" % pc)
            for var in PROBES[fn]:
                w, what = vals[var], "%s %s at 0x%x: %s=%s" % (build, fn, pc, var, vals[var])
                check(core(w) is None or core(w) == known[var],
                      what + " is <optimized out> or what the program holds (%s)" % known[var])
                if g is not None and core(g.get(var)) is not None:
                    eq(core(w), core(g[var]), what + " is gdb's (%s)" % g[var])
                if bargs is None:
                    continue  # no frame of fn at this pc (an empty inlined range)
                b = bargs.get(var)
                eq(core(b), core(w), what + ": bt args in the same event says the same (%s)" % b)
                if var in ("db", "key", "val", "name") and core(b) is not None:
                    shown_heap += 1
    return shown_heap


def entry_string(build):
    """bt args at mk, inlined into notify, where notify's event is only
    what its caller passed: the probe is not refused (GCC -O2: copying
    event at the hit runs over the BPF stack), and event is the literal
    its caller passed, as gdb shows it, or <optimized out> where gdb has
    no value."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", 'trace mk { print "{}", $pc; print event; print "{:s}", event; bt args; }',
               "--max-events", 4, "--timeout", 20, "--script-output", "json", "-q"])
    check(res.returncode == 0, "%s: print and bt args at mk are not refused (%s)" % (build, res.stderr.strip()[-300:]))
    pcs, shown = set(), []
    for ev in json_events(res.stdout):
        pcs.add(int(ev["items"][0]["args"][0]["value"], 16))
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        frame = next((f for f in bt["frames"] if f["function"] == "notify"), None)
        args = dict((a["name"], str(a["value"])) for a in frame.get("args", [])) if frame else {}
        what = "%s: notify's event=%s in bt args (type=%s)" % (build, args.get("event"), args.get("type"))
        check(frame is not None, "%s: notify's frame is in the backtrace" % build)
        if core(args.get("event")) is not None and re.match(r"^\d+$", args.get("type", "")):
            eq(core(args["event"]), '"event%s"' % args["type"], what + " is what its caller passed")
        elif core(args.get("event")) is not None:
            check(re.match(r'^"event\d\d"$', str(core(args["event"]))), what + " is a caller's literal")
        shown.append(core(args.get("event")) is not None)
        # print reads the same variable at the same pc: the same value
        # (from the 64 callers' cases, one switch in the probe)
        printed = [it for it in ev["items"] if it["type"] == "print"]
        texts = [re.sub(r" \(in notify\)$", "", it["text"]) for it in printed]
        mine = texts[1].split(" = ", 1)[-1] if len(texts) > 2 else None
        eq(mine, args.get("event"), what + ": print event says the same")
        if core(args.get("event")) is not None:
            eq(texts[2], str(core(args["event"])).strip('"'), what + ": {:s} is its characters")
    got = gdb_frame_values(fx.pid, pcs, "notify", ["event"], through_inline=True)
    fx.stop()
    check(shown, "%s: mk fired" % build)
    for pc, g in sorted(got.items()):
        if g and core(g["event"]) is not None:
            check(all(shown), "%s at 0x%s: event is shown in bt args where gdb shows %s" % (build, pc, g["event"]))
    return all(shown) and bool(shown)


def caller_at_entry(build):
    """bt args at store's entry: its caller set_key (inlined into mset)
    has its parameters in the registers it passes them in, which a callee
    may clobber: at the callee's first instruction, entered by a direct
    call, they still hold them, and bt args shows them as gdb's bt does."""
    fx = Fixture(build, [2000])
    mine = dict(bt_args_frames(fx.pid, "store"))
    gdb, text = gdb_bt_args(fx.pid, "store")
    fx.stop()
    check(gdb, "%s: gdb's bt at store (%s)" % (build, text[-300:]))
    shown = 0
    for fn, args in gdb:
        if fn not in ("set_key", "mset"):
            continue
        w, g = split_args(mine.get(fn, "")), split_args(args)
        for name, value in g.items():
            if "@" in name or core(value) is None:
                continue  # (clang's inlined db@entry=0x0: gdb's, not the program's)
            eq(core(w.get(name)), core(value), "%s: %s's %s in bt args at store's entry is gdb's (%s)" % (
                build, fn, name, mine.get(fn)))
            shown += 1
    return shown


def table_call(build, addrs_of):
    """bt args at op_leaf: op_add's (or op_sub's) b is what eval_op
    passed, by a call site whose target is read through a const table
    (RELRO): gdb's value (gcc), never another than the program's."""
    fx = Fixture(build, [2000])
    addrs = dict((k, int(v, 16)) for k, v in re.findall(r"(\w+)=(0x[0-9a-f]+)", fx.first_line))
    mine = dict(bt_args_frames(fx.pid, "op_leaf"))
    gdb, text = gdb_bt_args(fx.pid, "op_leaf")
    fx.stop()
    truth = {"a": addrs["k"], "b": addrs["v"]}
    shown = 0
    for fn, args in gdb:
        if fn not in ("op_add", "op_sub", "eval_op"):
            continue
        w, g = split_args(mine.get(fn, "")), split_args(args)
        for name in ("a", "b"):
            what = "%s: %s's %s=%s in bt args at op_leaf" % (build, fn, name, w.get(name))
            check(core(w.get(name)) in (None, truth[name]), what + " is <optimized out> or what it is (%#x)" %
                  truth[name])
            if "clang" not in build and core(g.get(name)) is not None:
                eq(core(w.get(name)), core(g[name]), what + " is gdb's (%s)" % args)
            shown += core(w.get(name)) is not None and fn != "eval_op"
    return shown


heap = dict((b, one(b)) for b in BUILDS)
tables = dict((b, table_call(b, None)) for b in BUILDS)
for b in ["realvals-O2", "realvals_O3", "realvals_lto"]:
    check(tables[b] >= 1, "%s: a value passed through a call by table is shown (%d)" % (b, tables[b]))
entered = dict((b, caller_at_entry(b)) for b in BUILDS)
entry = dict((b, entry_string(b)) for b in BUILDS)
check(entry["realvals-O2"], "realvals-O2: the entry value that takes the probe over the stack is there to be read")
# GCC keeps the parameters in memory at set_key's entry (at -O2 and -O3)
# and name behind c under LTO: the cases are there to be read
for b in ["realvals-O2", "realvals_O3", "realvals_lto"]:
    check(heap[b] >= 3, "%s: bt args shows values kept in memory off the stack (%d)" % (b, heap[b]))
check_no_leftovers("after the real-patterns values test")
finish()
