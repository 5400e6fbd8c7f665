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
"""
import json
import os
import re
import subprocess
import tempfile

from wraithtest import *

require_root()

BUILDS = ["optvals-O2", "optvals-clang-O2", "optvals_O3", "optvals_lto", "optvals_clang-lto"]
# Values that change from one call to the next: compared with bt args
# in the same event only, not with gdb's at a later call.
VARYING = {("set_key", "v"), ("handle_cfg", "v"), ("use_local", "k")}
PROBES = {
    "add_reply": ["c", "obj", "depth"],
    "set_key": ["c", "key", "v"],
    "incr_ref": ["o"],
    "handle_cfg": ["cfg", "key", "v"],
    "use_local": ["o", "k"],
}

_GDB = r'''
import gdb, json, os
gdb.execute("set pagination off")
gdb.execute("set width 0")
gdb.execute("attach %d" % PID, to_string=True)
todo = json.loads(open(TODO).read())
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
            try:
                vals[v] = str(f.read_var(v))
            except Exception as e:
                vals[v] = "<error %s>" % e
    out[pc] = vals
gdb.write("WRVALUES " + json.dumps(out) + "\n")
gdb.execute("detach", to_string=True)
'''


def core(v):
    """A value's content: a string it points to, else its first address
    as a number, else its text; None for a value that is gone."""
    if v is None or "<optimized out>" in v:
        return None
    m = re.search(r'"[^"]*"', v)
    if m:
        return m.group(0)
    m = re.search(r"0x[0-9a-f]+", v)
    if m:
        return int(m.group(0), 16)
    return v.strip()


def gdb_values(pid, todo):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(todo, f)
        tfile = f.name
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write("PID = %d\nTODO = %r\n" % (pid, tfile) + _GDB)
        sfile = f.name
    try:
        res = subprocess.run(["gdb", "-batch", "-nx", "-x", sfile], capture_output=True, text=True,
                             timeout=120)
    finally:
        os.unlink(tfile)
        os.unlink(sfile)
    for line in res.stdout.splitlines():
        if line.startswith("WRVALUES "):
            return json.loads(line[9:])
    print("gdb gave no values: %s %s" % (res.stdout[-800:], res.stderr[-800:]))
    return {}


def shown(arg):
    """A print argument of wraith's JSON as text: a string with its
    quotes, <optimized out>, else the value."""
    if arg["error"] is not None:
        return "<optimized out>" if arg["error"] == "optimized-out" else "<%s>" % arg["error"]
    if arg["type"].startswith("const char") or arg["type"].startswith("char"):
        return '"%s"' % arg["value"]
    return str(arg["value"])


def wraith_sites(pid, fn, names):
    """{pc: (printed values, bt args of fn's frame or None)} over a few rounds."""
    script = 'trace %s { print "%s", $pc, %s; bt args; }' % (
        fn, "|".join(["{}"] * (len(names) + 1)), ", ".join(names))
    res = run(["-p", pid, "-s", script, "--max-events", 30, "--timeout", 20, "--script-output", "json",
               "-q"])
    check(res.returncode == 0, "%s: wraith traces it (%s)" % (fn, res.stderr.strip()[-300:]))
    sites = {}
    for ev in json_events(res.stdout):
        pr = [it for it in ev["items"] if it["type"] == "print"][0]
        vals = [shown(a) for a in pr["args"]]
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
    """The probes of @build: at -O3 and under gcc's LTO handle_cfg's key
    is an implicit pointer to "hello" (DW_OP_implicit_pointer), which this
    version does not print yet: left out there."""
    p = dict(PROBES)
    if build in ("optvals_O3", "optvals_lto"):
        p["handle_cfg"] = ["cfg", "v"]
    return p


def one(build):
    fx = Fixture(build, [2000])
    addrs = dict((k, int(v, 16)) for k, v in re.findall(r"(\w+)=(0x[0-9a-f]+)", fx.first_line))
    wanted = probes(build)
    per_fn = dict((fn, wraith_sites(fx.pid, fn, names)) for fn, names in wanted.items())
    todo = [{"pc": pc, "fn": fn, "vars": wanted[fn]} for fn, s in per_fn.items() for pc in s]
    gv = gdb_values(fx.pid, todo)
    fx.stop()
    for fn, sites in per_fn.items():
        check(sites, "%s %s: events from its sites" % (build, fn))
        for pc, (vals, bargs, text) in sorted(sites.items()):
            g = gv.get("%x" % pc)
            for var in wanted[fn]:
                w, what = vals[var], "%s %s at 0x%x: %s=%s" % (build, fn, pc, var, vals[var])
                gval = g.get(var) if g else None
                if (fn, var) in VARYING:
                    pass
                elif core(gval) is not None:
                    eq(core(w), core(gval), what + " is gdb's (%s)" % gval)
                else:
                    k = known(fn, var, vals, addrs)
                    check(core(w) is None or k is None or core(w) == k,
                          what + " is <optimized out> or what the program holds (%s; gdb: %s)" %
                          (hex(k) if k else k, gval))
                if bargs is not None and var in bargs:
                    eq(core(bargs[var]), core(w), what + ": bt args in the same event says the same")
    return build


for b in BUILDS:
    one(b)
check_no_leftovers("after the optimized-values test")
finish()
