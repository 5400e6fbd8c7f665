"""rust_entry.py - `trace FN` on a Rust function stops where gdb's
`break FN` stops, and the values there are the program's.

rustc marks the end of a function's prologue on the first row of code it
inlined from the standard library (String::len, a Vec's iterator), a row
of another file than the function's own.  gdb 13 takes a prologue_end row
only from the function's own file; it trusts no location at a rustc
function's entry either (its producer is not clang's), and skips the
entry's row by the line table, to where the next row starts.  wraith
stopped at the entry instead, where rustc 1.95 at opt-level 1 and 2 has
not yet stored the Rc and Arc that keep() takes by value into the stack
slots their locations name: it printed an Rc with a strong count of
8657181329966074185 and an Arc's Vec of 13 elements, silently.

rentry.rs, built by Debian's rustc at opt-level 0, 1 and 2 (and 2 with
the v0 mangling) and, where configure found one, by a current rustc:
every function of the crate has its out-of-line sites at gdb's `break`
addresses; live, keep()'s parameters are what the fixture says it passes,
at gdb's pc, and equal rust-gdb's where its printers read them; in `bt
args` too, the Rc and Arc with their counts as rust-gdb's bt shows them,
also where rustc 1.63 keeps them in registers.
"""
import os
import re
import subprocess

from wraithtest import *

require_root()

DEBIAN_GDB = os.environ.get("WRAITH_RUST_GDB") or "/usr/bin/rust-gdb"
CURRENT_GDB = os.environ.get("WRAITH_RUST_GDB_CURRENT")
BUILDS = ["rentry-O0", "rentry-O1", "rentry-O2", "rentry-v0-O2"]
if CURRENT_GDB and os.path.exists(fixture("rentry-cur-O2")):
    BUILDS += ["rentry-cur-O0", "rentry-cur-O1", "rentry-cur-O2"]


def crate_functions(path):
    """The crate's functions as gdb names them."""
    out = subprocess.run(["gdb", "-batch", "-nx", path, "-ex", "info functions -n ^rentry::"],
                         capture_output=True, text=True, timeout=120).stdout
    return sorted(set(re.findall(r"^\d+:\s+(?:static )?fn (rentry::\w+)\(", out, re.M)))


def break_sites(build):
    """Each function's out-of-line sites of `trace FN` are gdb's `break FN`
    locations."""
    path = fixture(build)
    fns = crate_functions(path)
    check(len(fns) >= 4, "%s: gdb lists the crate's functions (%s)" % (build, fns))
    mine, gdb = trace_sites(path, fns), gdb_break_sites(path, fns)
    for f in fns:
        check(gdb.get(f), "%s: gdb breaks at %s" % (build, f))
        eq(sorted(mine.get(f, ())), sorted(gdb.get(f, ())),
           "%s: trace %s stops where break %s stops" % (build, f, f))


def live_values(build):
    """keep()'s Rc, Arc and Box at the probe: the fixture's, at gdb's pc."""
    fx = Fixture(build, [2000])
    line = fx.proc.stdout.readline()
    m = re.match(r"keep name=(\S+) strong=(\d+) shared=\[(.*)\] boxed=(\(.*\))", line)
    check(m, "%s: the fixture says what keep() gets (%r)" % (build, line))
    name, strong, shared, boxed = m.groups()
    want = ['Rc(strong=%s, weak=0) = {value = "%s", strong = %s, weak = 0}' % (strong, name, strong),
            "Arc(strong=2, weak=0) = {value = Vec(size=3) = {%s}, strong = 2, weak = 0}" % shared, boxed]
    res = run(["-p", fx.pid, "-s", 'trace rentry::keep { print "{}|{}|{}|{}", $pc, name, shared, *boxed; bt args; }',
               "--max-events", 1, "--timeout", 20, "--script-output", "plain", "-q"])
    check(res.returncode == 0, "%s: keep is traced (%s)" % (build, res.stderr[-300:]))
    got = res.stdout.strip().splitlines()[0].split("|") if res.stdout.strip() else []
    bt = re.search(r"^  #0 rentry::keep\((.*)\) at ", res.stdout, re.M)
    check(len(got) == 4, "%s: one event (%r)" % (build, res.stdout))
    rust_gdb = CURRENT_GDB if "-cur-" in build else DEBIAN_GDB
    gdb = subprocess.run([rust_gdb, "-batch", "-p", str(fx.pid), "-ex", "break rentry::keep", "-ex", "continue",
                          "-ex", 'printf "PC %#lx\\n", $pc', "-ex", "print name", "-ex", "print shared",
                          "-ex", "print *boxed", "-ex", "bt 1", "-ex", "detach"], capture_output=True, text=True,
                         timeout=120).stdout
    fx.stop()
    pc = re.search(r"^PC (0x[0-9a-f]+)$", gdb, re.M)
    check(pc, "%s: gdb stops at keep (%s)" % (build, gdb[-300:]))
    if len(got) == 4 and pc:
        eq(int(re.search(r"0x[0-9a-f]+", got[0]).group(0), 16), int(pc.group(1), 16),
           "%s: the probe stands at gdb's pc" % build)
    for what, value, expect in zip(("name", "shared", "*boxed"), got[1:], want):
        eq(value, expect, "%s: keep's %s is what the fixture passed" % (build, what))
    prints = re.findall(r"^(Python Exception.*\n)?\$\d+ = (.*)$", gdb, re.M)
    check(len(prints) == 3, "%s: rust-gdb prints keep's values (%s)" % (build, gdb[-500:]))
    for what, value, (failed, g) in zip(("name", "shared", "*boxed"), got[1:], prints):
        if failed or "Python Exception" in g:
            continue  # rust-gdb 1.63's String printer fails on this gdb
        eq(value, g, "%s: keep's %s is rust-gdb's" % (build, what))
    # bt args: the Rc and Arc with their counts as rust-gdb's bt shows
    # them, also where they are held in a register (opt-level 1 and 2 of
    # rustc 1.63: the probe assembles them at the hit, counts and all)
    gbt = re.search(r"^#0 +rentry::keep \((.*)\) at ", gdb, re.M)
    if check(bt and gbt, "%s: keep's frame in wraith's and rust-gdb's bt (%r)" % (build, res.stdout[-300:])):
        mine, theirs = split_args(bt.group(1)), split_args(gbt.group(1))
        for arg in ("name", "shared", "boxed"):
            eq(re.sub(r"0x[0-9a-f]+", "0x?", mine.get(arg, "<missing>")),
               re.sub(r"0x[0-9a-f]+", "0x?", theirs.get(arg, "<missing in gdb>")),
               "%s: keep's %s in bt args is rust-gdb's" % (build, arg))
        eq(mine.get("name"), "Rc(strong=%s, weak=0) = {...}" % strong, "%s: bt args shows the Rc's counts" % build)


for b in BUILDS:
    break_sites(b)
for b in BUILDS:
    if not b.endswith("O0"):
        live_values(b)
check_no_leftovers("after the Rust entry test")
finish()
