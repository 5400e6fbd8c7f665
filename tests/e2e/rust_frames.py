"""rust_frames.py - Rust functions where Rust nests them, against rust-gdb
at the same pc of the same live process: a method in an impl block
(rscopes::net::Conn::handle), a trait method (named by gdb
rscopes::net::{impl#1}::on_event), a function two modules deep, both
instantiations of a generic (rscopes::scale<u8>, rscopes::scale<u32>), a
closure (rscopes::run::{closure#0}) and lines inside nested blocks, in
rscopes.rs built at opt-level 0, 1 and 2 with the legacy symbol mangling
and at 2 with v0.

At each probe wraith runs first (one hit), then rust-gdb attaches to the
same process and stops at the same place; the fixture's values are the
same at every round.  Checked: the probe stands at gdb's pc; `bt args`
and `bt full` of frame 0 equal gdb's `info args` and `info locals`
(parameters folded to a constant, DW_AT_const_value, included: x=200 of a
u8 held as -56); `print` of each parameter, of a struct through a
reference (rscopes::net::Req {id: 42, ...}), of a tuple and a field
equals gdb's `print`; every frame's name equals gdb's, inline frames
included; the parameter list of a frame reads as Rust (`self: *mut
rscopes::net::Conn, n: u32`); and the other spellings of a name a user
may type (the demangled linkage name, a suffix) find the same function.
"""
import json
import os
import re
import subprocess
import tempfile

from wraithtest import *

require_root()

RUST_GDB = os.environ.get("WRAITH_RUST_GDB") or "/usr/bin/rust-gdb"
VARIANTS = ("O0", "O1", "O2", "v0-O2")

# (probe as both tools spell it, what to print there, locals too).  At
# opt-level 1 and 2 the marked lines' code is the end of the function,
# where neither tool sees the block's locals: only bt full is compared
# there (a print of a variable not visible is a script error).
PROBES = [
    ("rscopes::net::Conn::handle", ["self", "req", "n", "*self", "req.id", "req.port", "self.peer"], False),
    ("rscopes::net::{impl#1}::on_event", ["self", "code", "self.fd", "self.open"], False),
    ("rscopes::net::wire::checksum", ["seed"], False),
    ("rscopes::scale<u8>", ["x", "k"], False),
    ("rscopes::scale<u32>", ["x", "k"], False),
    ("rscopes::run::{closure#0}", ["a"], False),
    ("rscopes.rs:%d" % marker_line("rscopes.rs", "MARK: handle-inner"), ["inner", "n"], True),
    ("rscopes.rs:%d" % marker_line("rscopes.rs", "MARK: on-event"), ["port", "scaled", "code"], True),
]


# Slices are read by the container readers (not yet on main): their
# values are compared by rust_std.py.
NOT_COMPARED = {"bytes"}
# A float parameter held in an SSE register (weight at opt-level 1 and
# 2): a uprobe sees only the general-purpose registers, so wraith says
# <unavailable> (as its print does) where gdb, stopping the process,
# reads it.
IN_SSE = {"weight"}


def probes(variant):
    # rustc 1.95 has no line-table row for the handle-inner line even at
    # opt-level 0 (its one call is inlined): both tools stop on the line
    # after the block, where its locals are gone
    return [(w, e if not w.startswith("rscopes.rs:") or variant == "O0" else [], f)
            for w, e, f in PROBES]


def wraith_side(pid, probes):
    """Per probe: frame 0 of its first event (JSON) and its print lines."""
    script = ""
    for i, (where, exprs, full) in enumerate(probes):
        prints = "".join('print "P%d %s={}", %s;' % (i, e, e) for e in exprs)
        script += "trace %s { %s bt %s; }\n" % (where, prints, "full" if full else "args")
    res = run(["-p", pid, "-s", script, "--max-events", 80, "--timeout", 30, "--script-output", "json",
               "-q"])
    got = {}
    for ev in json_events(res.stdout):
        prints, bt = {}, None
        for it in ev["items"]:
            if it["type"] == "print":
                m = re.match(r"P\d+ (\S+)=(.*)", it["text"])
                prints[m.group(1)] = m.group(2)
            elif it["type"] == "backtrace":
                bt = it
        if bt is not None:
            got.setdefault(ev["probe"] - 1, (prints, bt))
    return res, got


GDB_DUMP = r'''python
import gdb
f, out = gdb.newest_frame(), []
while f is not None:
    out.append(f.name() or "??")
    try:
        f = f.older()
    except gdb.error:
        break
gdb.write("FRAMES " + json.dumps(out) + "\n")
end'''


def gdb_side(pid, probes, gdb=RUST_GDB):
    """rust-gdb attached to @pid: per probe, its pc, info args/locals,
    prints and frame names."""
    cmds = ["set pagination off", "set width 0", "set backtrace past-main on", "python import json"]
    for i, (where, exprs, _) in enumerate(probes):
        cmds += ["break %s" % where, "continue", "echo @@%d\\n" % i, "printf \"PC %#lx\\n\", $pc",
                 "echo @@args\\n", "info args", "echo @@locals\\n", "info locals", "echo @@prints\\n"]
        cmds += ["print %s" % e for e in exprs]
        cmds += ["echo @@frames\\n", GDB_DUMP, "delete"]
    cmds.append("detach")
    path = os.path.join(tempfile.gettempdir(), "rust_frames.%d.gdb" % os.getpid())
    with open(path, "w") as f:
        f.write("\n".join(cmds) + "\n")
    try:
        out = subprocess.run([gdb, "-batch", "-p", str(pid), "-x", path], capture_output=True,
                             text=True, timeout=180, env=dict(os.environ, LANG="C.UTF-8")).stdout
    finally:
        os.unlink(path)
    got, cur, part = {}, None, None
    for line in out.splitlines():
        m = re.match(r"^@@(\d+|\w+)$", line)
        if m:
            if m.group(1).isdigit():
                cur = {"args": {}, "locals": {}, "prints": [], "frames": None, "pc": None}
                got[int(m.group(1))] = cur
            else:
                part = m.group(1)
            continue
        if cur is None:
            continue
        m = re.match(r"^PC (0x[0-9a-f]+)$", line)
        if m:
            cur["pc"] = int(m.group(1), 16)
        elif line.startswith("FRAMES "):
            cur["frames"] = json.loads(line[7:])
        elif part in ("args", "locals") and re.match(r"^\w+ = ", line):
            name, _, value = line.partition(" = ")
            cur[part].setdefault(name, value)
        elif part == "prints":
            m = re.match(r"^\$\d+ = (.*)$", line)
            if m:
                cur["prints"].append(m.group(1))
    return got


def frame_vars(frame, key):
    return {v["name"]: v["value"] for v in frame.get(key, []) if v["name"] not in NOT_COMPARED}


def compare(variant, gdb=RUST_GDB, prints=True):
    """@prints False: bt args, bt full and frame names only (where a
    compiler keeps less, a print of what a pointer it dropped points to
    is a script error)."""
    name = "rscopes-" + variant
    fx = Fixture(name, [20000])  # 50 rounds a second: bt full events are big
    here = [(w, e if prints else [], f) for w, e, f in probes(variant)]
    try:
        res, w = wraith_side(fx.pid, here)
        g = gdb_side(fx.pid, here, gdb)
    finally:
        fx.stop()
    check(res.returncode == 0, "%s: wraith traces every probe (%s)" % (name, res.stderr.strip()[-300:]))
    for i, (where, exprs, full) in enumerate(here):
        label = "%s at %s" % (name, where)
        if not check(i in w and i in g and g[i]["pc"] is not None,
                     "%s: both tools stopped there (wraith %s, gdb %s)" % (label, i in w, i in g)):
            continue
        prints, bt = w[i]
        f0 = bt["frames"][0]
        phys = next(f for f in bt["frames"] if not f["inline"])
        if not eq(int(phys["ip"], 16), g[i]["pc"], "%s: the probe stands at gdb's pc" % label):
            continue
        # frame 0 as gdb's frame 0: the innermost frame wraith shows
        wargs = frame_vars(f0, "args")
        gargs = {k: wargs[k] if k in IN_SSE and wargs.get(k) == "<unavailable>" else v
                 for k, v in g[i]["args"].items() if k not in NOT_COMPARED}
        eq(wargs, gargs, "%s: bt args = gdb's info args" % label)
        if full:
            eq(frame_vars(f0, "locals"), g[i]["locals"], "%s: bt full's locals = gdb's info locals" % label)
        for e, want in zip(exprs, g[i]["prints"]):
            eq(prints.get(e), want, "%s: print %s" % (label, e))
        eq(len(g[i]["prints"]), len(exprs), "%s: gdb printed every expression" % label)
        names = [f["function"] for f in bt["frames"]]
        eq(names[:len(g[i]["frames"])], g[i]["frames"], "%s: frame names = gdb's" % label)


def spellings(variant):
    """Other names of the same functions: the demangled linkage name, a
    suffix at a '::' boundary; and a frame's parameters spelled as Rust."""
    name = "rscopes-" + variant
    fx = Fixture(name, [2000])
    alt = [("<rscopes::net::Conn as rscopes::net::Handler>::on_event", "rscopes::net::{impl#1}::on_event"),
           ("Handler>::on_event", "rscopes::net::{impl#1}::on_event"),
           ("wire::checksum", "rscopes::net::wire::checksum"),
           # both instances are called back to back: the first event is
           # either's, by when each site's probe went in
           ("rscopes::scale", ("rscopes::scale<u8>", "rscopes::scale<u32>"))]
    try:
        for typed, shown in alt:
            res = run(["-p", fx.pid, "-s", "trace %s { bt; }" % typed, "--max-events", 1,
                       "--timeout", 15, "--script-output", "json", "-q"])
            evs = json_events(res.stdout) if res.returncode == 0 else []
            fns = [f["function"] for it in (evs[0]["items"] if evs else []) for f in it.get("frames", [])
                   if not f["inline"]]
            check(res.returncode == 0 and fns[:1] and fns[0] in ((shown,) if isinstance(shown, str) else shown),
                  "%s: trace %s stops in %s (rc %d, %s, %s)" % (name, typed, shown, res.returncode, fns[:1],
                                                                 res.stderr.strip()[-200:]))
        res = run(["-p", fx.pid, "-s", "trace rscopes::net::Conn::handle { bt; }", "--max-events", 1,
                   "--timeout", 15, "-q"])
        check(re.search(r"#0 rscopes::net::Conn::handle\(self: \*mut rscopes::net::Conn, "
                        r"req: \*mut rscopes::net::Req, n: u32\)", res.stdout) is not None,
              "%s: a Rust frame's parameters read as Rust (%r)" % (name, res.stdout[:300]))
        # a cast names a Rust type by its path, or by its own name when
        # one type of the module has it
        res = run(["-p", fx.pid, "-s", 'trace rscopes::net::Conn::handle { print "{} {} {}", req.id, '
                   'cast(req, "rscopes::net::Req *").id, cast(cast(req, "u64"), "Req *").id; }',
                   "--max-events", 1, "--timeout", 15, "--script-output", "plain", "-q"])
        ids = res.stdout.split()
        check(res.returncode == 0 and len(ids) == 3 and ids[0] == ids[1] == ids[2] and ids[0].isdigit(),
              "%s: cast to a Rust struct by path and by name (%r %s)" % (name, res.stdout[:200],
                                                                       res.stderr.strip()[-300:]))
    finally:
        fx.stop()


if __name__ == "__main__":
    for v in VARIANTS:
        compare(v)
    for v in ("O1", "v0-O2"):
        spellings(v)
    check_no_leftovers("after the Rust frames")
    finish()
