"""optvals.py - values at probe sites of optimized code (issue 23): each
parameter printed at every site of a probe equals gdb's at the same pc of
the same live process, in the frame of the function traced; where gdb has
no value there (it shows <optimized out>, or no frame of the function at
all: an inlined call entered at an empty address range, which only GCC's
location views place at the pc), wraith prints <optimized out> or the
value optvals.c itself says the variable holds, never another one.  And
`print x` and `bt args` agree on every parameter of the traced function's
frame in the same event.

The fixture is built by gcc and clang at -O2, by gcc at -O3 and by both
with -flto.  The cases (see optvals.c): a function inlined into itself
(add_reply), an inlined function whose parameter `key` shares its name with
its caller's (set_key in module_set), a function whose first instruction
belongs to an inlined accessor (handle_cfg), and a caller's local seen
from an inlined call (round_no at use_local, marked with its frame).

A pointer the compiler optimized away (handle_cfg's key at -O3 and under
gcc's LTO: DW_OP_implicit_pointer) prints <synthetic pointer> and reads
through, as gdb's.  A probe on a line of an inlined function whose two
callers each have a `key` of their own (note_kind in key_void and key_obj)
reads each caller's, marked with its frame; `*key` cannot be read where
key is a `void *`: that site prints <unreadable at this site>, the other
the struct, and the warning and --dry-run name the site.  A {:s.*} dump is
a string in JSON.

`bt args` shows what a frame's caller passed as gdb does (with `set
backtrace past-main on`, which lets gdb see main's caller):
`main(argc=argc@entry=2, ...)`, found through the call site at the return
address in libc (a call through a pointer, in another module), and
`sink(v=v@entry=11)` at sink's entry.  A value its call site says with a
branch (DW_OP_bra: GCC's `q == 0 ? 3 : 7`) is read both ways, as gdb
reads it: take_flags' flags, in print and bt args.

gdb shows no entry value for a function whose tail calls it cannot
follow (get_key tail-calls get_val through GCC's abstract instance of
it): `bt args` at get_key's entry shows the same forms as gdb's `bt`
there, `key=5` or `key=key@entry=5` for each parameter as gdb does.

`trace FN` stops where gdb's `break FN` stops: each out-of-line site
`--dry-run` lists for the fixture's functions is a location of gdb's
breakpoint on the same file, also in the -O0 builds (put_val, whose
first instruction after the prologue is a header's inlined code that
clang marks prologue_end: gdb stops at its entry).

A function that left the stack by a tail call (tail_hop, which jumped to
tail_land) shows in `bt args` with the values gdb shows in its tailcall
frame: what main's call site passed it (o=o@entry=&o, k=k@entry=21), and
tail_land's own entry values come from tail_hop's jump (k=k@entry=42),
as gdb reads them.
"""
import json
import re

from wraithtest import *

require_root()

BUILDS = ["optvals-O2", "optvals-clang-O2", "optvals_O3", "optvals_lto", "optvals_clang-lto"]
# Values that change from one call to the next: compared with bt args
# in the same event only, not with gdb's at a later call.
# (clang keeps add_reply out of line: its entry sees each depth in turn.)
VARYING = {("set_key", "v"), ("handle_cfg", "v"), ("use_local", "k"), ("use_local", "round_no"),
           ("add_reply", "c"), ("add_reply", "depth")}
PROBES = {
    "add_reply": ["c", "obj", "depth"],
    "set_key": ["c", "key", "v"],
    "incr_ref": ["o"],
    "handle_cfg": ["cfg", "key", "v"],
    "handle_cfg ": ["*key", "key[1]"],  # apart: refused where no site has key
    "use_local": ["o", "k", "round_no"],
}
# Variables of a frame out of the probe's: the frame they come from.
OUTER = {("use_local", "round_no"): "run_round"}

_GDB = r'''
import gdb, json, os
gdb.execute("set pagination off")
gdb.execute("set width 0")
gdb.execute("attach %d" % PID, to_string=True)
for t in todo:
    gdb.execute("break *0x%x" % t["pc"], to_string=True)
out, want = {}, dict(("%x" % t["pc"], t) for t in todo)
while len(out) < len(want):
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    pc = "%x" % int(gdb.parse_and_eval("$pc"))
    t = want.get(pc)
    if t is None or pc in out:
        continue
    f, vals = gdb.newest_frame(), None
    while f is not None and f.name() != t["fn"]:
        f = f.older() if f.type() == gdb.INLINE_FRAME else None
    if f is not None:
        vals = {}
        for v in t["vars"]:
            # a caller's variable: as `up` shows it in the frame that has it
            g = f
            while g is not None:
                try:
                    g.select()
                    vals[v] = str(gdb.parse_and_eval(v))
                    break
                except Exception as e:
                    vals[v] = "<error %s>" % e
                    g = g.older()
    out[pc] = vals
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("detach", to_string=True)
'''


def core(v):
    """A value's content: a string it points to, else its first address
    as a number, else its text; None for a value that is gone."""
    if v is None or "<optimized out>" in v:
        return None
    if "<synthetic pointer>" in v:
        return "<synthetic pointer>"
    m = re.search(r"^(-?\d+) '", v)  # gdb's char: 104 'h'
    if m:
        return m.group(1)
    m = re.search(r'"[^"]*"', v)
    if m:
        return m.group(0)
    m = re.search(r"0x[0-9a-f]+", v)
    if m:
        return int(m.group(0), 16)
    return v.strip()


def gdb_values(pid, todo):
    got = gdb_python(_GDB, pid, todo=todo)
    return got[0] if got else {}


MARKERS = {"optimized-out": "<optimized out>", "synthetic-pointer": "<synthetic pointer>"}


def shown(arg):
    """A print argument of wraith's JSON as text: a string with its
    quotes, a marker, else the value."""
    if arg["error"] is not None:
        return MARKERS.get(arg["error"], "<%s>" % arg["error"])
    if re.match(r"^(const )?char (\*|\[)", arg["type"]):
        return '"%s"' % arg["value"]
    return str(arg["value"])


def wraith_sites(pid, fn, names):
    """{pc: (printed values, bt args of fn's frame or None)} over a few rounds."""
    probe, fn = fn, fn.strip()
    script = 'trace %s { print "%s", $pc, %s; bt args; }' % (
        fn, "|".join(["{}"] * (len(names) + 1)), ", ".join(names))
    res = run(["-p", pid, "-s", script, "--max-events", 30, "--timeout", 20, "--script-output", "json",
               "-q"])
    if probe != fn and res.returncode == 2 and "pointer is optimized out at this pc of %s" % fn in res.stderr:
        return {}  # no site has the pointer (clang's LTO): nothing to read through, as gdb says
    check(res.returncode == 0, "%s: wraith traces it (%s)" % (fn, res.stderr.strip()[-300:]))
    sites = {}
    for ev in json_events(res.stdout):
        pr = [it for it in ev["items"] if it["type"] == "print"][0]
        vals = [shown(a) for a in pr["args"]]
        for name, a in zip(names, pr["args"][1:]):
            want = OUTER.get((fn, name))
            eq(a.get("frame"), want, "%s %s: %s is marked with the frame it comes from" % (
                fn, vals[0], name))
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        frame = next((f for f in bt["frames"] if f["function"] == fn), None)
        bargs = dict((a["name"], str(a["value"])) for a in frame.get("args", [])) if frame else None
        sites.setdefault(int(vals[0], 16), (dict(zip(names, vals[1:])), bargs, pr["text"]))
    return sites


def known(fn, var, vals, addrs):
    """What optvals.c says @var holds at a site of @fn (None: not said)."""
    if var in ("obj", "o") or (fn == "set_key" and var == "key"):
        return addrs["o"]
    if fn == "set_key" and var == "c":
        return addrs["b"]
    if fn == "add_reply" and var == "c" and core(vals.get("depth")) in ("0", "1", "2"):
        return addrs["b"] if vals["depth"] == "1" else addrs["a"]
    if fn == "handle_cfg" and var == "cfg":
        return addrs["cf"]
    return None


def probes(build):
    return dict(PROBES)


def one(build):
    fx = Fixture(build, [2000])
    addrs = dict((k, int(v, 16)) for k, v in re.findall(r"(\w+)=(0x[0-9a-f]+)", fx.first_line))
    wanted = probes(build)
    per_fn = dict((fn, wraith_sites(fx.pid, fn, names)) for fn, names in wanted.items())
    by_pc = {}  # two probes of one function share its pcs: gdb reads both's
    for probe, sites in per_fn.items():
        for pc in sites:
            t = by_pc.setdefault(pc, {"pc": pc, "fn": probe.strip(), "vars": []})
            t["vars"] += wanted[probe]
    todo = list(by_pc.values())
    gv = gdb_values(fx.pid, todo)
    fx.stop()
    for probe, sites in per_fn.items():
        fn = probe.strip()
        check(sites or probe != fn, "%s %s: events from its sites" % (build, fn))
        for pc, (vals, bargs, text) in sorted(sites.items()):
            g = gv.get("%x" % pc)
            for var in wanted[probe]:
                w, what = vals[var], "%s %s at 0x%x: %s=%s" % (build, fn, pc, var, vals[var])
                gval = g.get(var) if g else None
                if core(gval) is not None and (fn, var) not in VARYING:
                    eq(core(w), core(gval), what + " is gdb's (%s)" % gval)
                else:
                    k = known(fn, var, vals, addrs)
                    check(core(w) is None or k is None or core(w) == k,
                          what + " is <optimized out> or what the program holds (%s; gdb: %s)" %
                          (hex(k) if k else k, gval))
                if fn == "use_local" and var == "round_no" and core(vals["k"]) is not None:
                    eq(core(w), core(vals["k"]), what + " is k, which use_local got it as")
                if bargs is not None and var in bargs:
                    eq(core(bargs[var]), core(w), what + ": bt args in the same event says the same")
    return build


def line_sites(build):
    """note_kind's line: each caller's key, *key unreadable where it is a
    void *."""
    fx = Fixture(build, [2000])
    line = marker_line("optvals.c", "/* LINE:note-kind */")
    script = 'trace optvals.c:%d { print "{}|{}|{}", kind, *key, key; }' % line
    dry = run(["-p", fx.pid, "-s", script, "--dry-run"])
    res = run(["-p", fx.pid, "-s", script, "--max-events", 20, "--timeout", 20, "--script-output", "json",
               "-q"])
    fx.stop()
    if build == "optvals_clang-lto":
        # clang's LTO keeps key at neither site: no site can give *key, and
        # the probe is refused with the first site's reason
        check(dry.returncode == 2 and "points to void" in dry.stderr, "%s: refused, as no site can "
              "give *key (%s)" % (build, dry.stderr[-300:]))
        return
    check(dry.returncode == 0 and res.returncode == 0, "%s: the line's probe runs although `*key` cannot "
          "be read at every site (%s)" % (build, res.stderr[-300:]))
    site = r"site \d+ of \d+ \(%s\+0x[0-9a-f]+ in \w+(, inlined into key_void)?\)" % re.escape(build)
    check(re.search(r"warning: probe 1 \(optvals.c:%d\), %s prints a marker for what it cannot give:\n"
                    r"1:\d+: void \* points to void" % (line, site), res.stderr),
          "%s: the warning names the site that cannot give *key (%r)" % (build, res.stderr[-400:]))
    check("cannot give <script>:1:" in dry.stdout, "%s: --dry-run lists what each site cannot give\n%s" %
          (build, dry.stdout))
    seen = set()
    for ev in json_events(res.stdout):
        kind, deref, key = ev["items"][0]["args"]
        seen.add(kind["value"])
        if kind["value"] == 1:
            # (a caller's: marked; where GCC kept no inlined call, key_void's own)
            check(deref["error"] == "unreadable-at-site" and key["type"] == "void *" and
                  key.get("frame") in (None, "key_void"), "%s: in key_void *key is unreadable, key its void * %r" % (
                      build, ev["items"][0]["args"]))
        else:
            check(deref["error"] is None and deref["value"]["val"] >= 10 and key["type"] == "struct obj *"
                  and key.get("frame") in (None, "key_obj") and deref.get("frame") == key.get("frame"),
                  "%s: in key_obj *key and key are key_obj's %r" % (build, ev["items"][0]["args"]))
    eq(seen, {1, 2}, "%s: both sites fired" % build)


def dump_string(build):
    """{:s.*} in JSON: a string."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", 'trace handle_cfg { print "{:s.*}", 5, key; }', "--max-events", 1,
               "--script-output", "json", "-q"])
    fx.stop()
    ev = json_events(res.stdout)
    eq([a["value"] for e in ev for a in e["items"][0]["args"]], ["hello"],
       "%s: a {:s.*} dump is the string in JSON" % build)


def entry_values(build):
    """main's argc, which libc passed through a pointer, at sink's probe."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", "trace sink { bt args; }", "--max-events", 1, "--script-output", "json",
               "-q"])
    text = run(["-p", fx.pid, "-s", "trace sink { bt args; }", "--max-events", 1, "-q"])
    fx.stop()
    frames = [f for e in json_events(res.stdout) for it in e["items"] if it["type"] == "backtrace"
              for f in it["frames"]]
    args = dict((f["function"], dict((a["name"], a) for a in f.get("args", []))) for f in frames)
    argc = args.get("main", {}).get("argc")
    check(argc is not None and argc["value"] in ("2", "<optimized out>"),
          "%s: main's argc is 2 or unknown (%r)" % (build, argc))
    if "clang" not in build:
        check(argc and argc["value"] == "2" and argc.get("entry"),
              "%s: main's argc is what libc's call site passed (%r)" % (build, argc))
        check(re.search(r"main\(argc=argc@entry=2, argv=argv@entry=0x[0-9a-f]+\)", text.stdout),
              "%s: bt args shows main(argc=argc@entry=2, argv=argv@entry=0x...) as gdb\n%s" % (
                  build, text.stdout))
    lib = args.get("__libc_start_call_main", {}).get("argc")
    check(lib is None or (lib["value"] == "2" and lib.get("entry")),
          "%s: __libc_start_call_main's argc=argc@entry=2 (%r)" % (build, lib))


def branch_values(build):
    """take_flags' flags, which only pass_flags' call site says, with a
    branch (DW_OP_bra, gcc): 7 (the fixture runs with an argument), in
    print and bt args alike, and gdb's at the same pc."""
    fx = Fixture(build, [2000])
    line = marker_line("optvals.c", "/* LINE:take-flags */")
    res = run(["-p", fx.pid, "-s", 'trace optvals.c:%d { print "{}|{}", $pc, flags; bt args; }' % line,
               "--max-events", 10, "--timeout", 20, "--script-output", "json", "-q"])
    check(res.returncode == 0, "%s: take_flags' line is traced (%s)" % (build, res.stderr[-300:]))
    sites = {}
    for ev in json_events(res.stdout):
        pr = [it for it in ev["items"] if it["type"] == "print"][0]
        pc, flags = int(pr["args"][0]["value"], 16), shown(pr["args"][1])
        bt = [it for it in ev["items"] if it["type"] == "backtrace"][0]
        frame = next((f for f in bt["frames"] if f["function"] == "take_flags"), None)
        bargs = dict((a["name"], str(a["value"])) for a in frame.get("args", [])) if frame else {}
        if "flags" in bargs:
            eq(core(bargs["flags"]), core(flags), "%s at 0x%x: bt args' flags is print's" % (build, pc))
        sites[pc] = flags
    gv = gdb_values(fx.pid, [{"pc": pc, "fn": "take_flags", "vars": ["flags"]} for pc in sites])
    fx.stop()
    check(sites, "%s: take_flags' line fired" % build)
    for pc, flags in sorted(sites.items()):
        g = (gv.get("%x" % pc) or {}).get("flags")
        what = "%s at 0x%x: flags=%s" % (build, pc, flags)
        if core(g) is not None:
            eq(core(flags), core(g), what + " is gdb's (%s)" % g)
        else:
            check(core(flags) in (None, "7"), what + " is <optimized out> or 7 (gdb: %s)" % g)
        if "clang" not in build:
            eq(core(flags), "7", what + ": the call site's value, through its DW_OP_bra")


def arg_forms(text):
    """gdb's frame arguments `o=0x1 <o>, key=key@entry=5` as {name: form}:
    "entry" for x=x@entry=v, "value" for x=v, and x@entry: "value" for a
    separate entry value."""
    forms = {}
    for arg in re.split(r", (?=[\w@]+=)", text):
        m = re.match(r"([\w@]+)=(?:([\w]+)@entry=)?", arg)
        if m:
            forms[m.group(1)] = "entry" if m.group(2) == m.group(1) else "value"
    return forms


def entry_forms(build, fn):
    """@fn's parameters in bt args at its entry, in gdb's forms."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", 'trace %s { print "{}", $pc; bt args; }' % fn, "--max-events", 1,
               "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s: %s is traced (%s)" % (build, fn, res.stderr[-300:]))
    if not ev:
        fx.stop()
        return
    pc = int(ev[0]["items"][0]["args"][0]["value"], 16)
    frame = [it for it in ev[0]["items"] if it["type"] == "backtrace"][0]["frames"][0]
    mine = dict((a["name"], "entry" if a.get("entry") else "value") for a in frame.get("args", []))
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break *0x%x" % pc, "-ex", "continue",
                          "-ex", "bt 1", "-ex", "detach"], capture_output=True, text=True, timeout=120)
    fx.stop()
    m = re.search(r"^#0 +(?:0x[0-9a-f]+ in )?%s \((.*)\) at " % fn, gdb.stdout, re.M)
    check(m, "%s: gdb's bt at %s (%s)" % (build, fn, gdb.stdout[-400:]))
    if m:
        eq(mine, arg_forms(m.group(1)), "%s: %s's parameters at 0x%x in gdb's forms (gdb: %s)" % (
            build, fn, pc, m.group(1)))


BREAK_FNS = ["put_val", "get_key", "module_set", "handle_cfg", "take_flags", "pass_flags", "key_obj",
             "run_round", "incr_ref", "sink", "main"]


def break_sites(build):
    """The out-of-line sites of `trace FN` are gdb's `break FN` locations."""
    path = fixture(build)
    mine, gdb = trace_sites(path, BREAK_FNS), gdb_break_sites(path, BREAK_FNS)
    for fn in BREAK_FNS:
        check(mine.get(fn), "%s: %s has an out-of-line site" % (build, fn))
        for a in sorted(mine.get(fn, ())):
            check(a in gdb.get(fn, ()), "%s: trace %s stops at 0x%x, where break %s stops (gdb: %s)" % (
                build, fn, a, fn, [hex(x) for x in sorted(gdb.get(fn, ()))]))


def frame_args(text):
    """`o=o@entry=0x1 <o>, k=5` as {name: (form, value)}."""
    args = {}
    for arg in re.split(r", (?=[\w@]+=)", text):
        m = re.match(r"([\w@]+)=(?:([\w]+)@entry=)?(.*)", arg)
        if m:
            args[m.group(1)] = ("entry" if m.group(2) == m.group(1) else "value", core(m.group(3)))
    return args


def tail_frames(build):
    """bt args at tail_land's entry: tail_land's and tail_hop's
    parameters as gdb's bt shows them."""
    fx = Fixture(build, [2000])
    res = run(["-p", fx.pid, "-s", "trace tail_land { bt args; }", "--max-events", 1, "--script-output", "json",
               "-q"])
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s: tail_land is traced (%s)" % (build, res.stderr[-300:]))
    mine = {}
    for f in ([it for it in ev[0]["items"] if it["type"] == "backtrace"][0]["frames"] if ev else []):
        if f["function"] in ("tail_land", "tail_hop") and f["function"] not in mine:
            mine[f["function"]] = dict((a["name"], ("entry" if a.get("entry") else "value", core(str(a["value"]))))
                                       for a in f.get("args", []))
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break tail_land", "-ex", "continue",
                          "-ex", "bt 3", "-ex", "detach"], capture_output=True, text=True, timeout=120)
    fx.stop()
    frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(tail_land|tail_hop) \((.*)\) at ", gdb.stdout, re.M)
    check(frames and frames[0][0] == "tail_land", "%s: gdb's bt at tail_land (%s)" % (build, gdb.stdout[-400:]))
    for fn, text in frames:
        eq(mine.get(fn), frame_args(text), "%s: %s's parameters in bt args at tail_land's entry (gdb: %s)" % (
            build, fn, text))
    if "clang" not in build:
        check(len(frames) == 2, "%s: gdb shows tail_hop's frame (%s)" % (build, gdb.stdout[-400:]))


for b in BUILDS:
    tail_frames(b)
for b in ["optvals-O0", "optvals-clang-O0"] + BUILDS:
    break_sites(b)
for b in BUILDS:
    entry_forms(b, "get_key")
for b in BUILDS:
    branch_values(b)
for b in BUILDS:
    entry_values(b)
for b in BUILDS:
    line_sites(b)
dump_string("optvals-O2")
for b in BUILDS:
    one(b)
check_no_leftovers("after the optimized-values test")
finish()
