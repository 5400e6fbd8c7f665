"""containers_btfull.py - frame 0's locals in `bt full` as gdb's `bt full`
shows them: whole, as print shows them, a container's elements
included (200 at most, then `...`), where a parameter is short
(`std::vector of length 3, capacity 3 = {...}`).  The probe copies them
at the hit as print does.

containers.cc's tally() keeps a vector of 250 ints, a map, a list, a
vector of strings, a struct holding a string and a map iterator in
memory up to its marked line; wraith's bt full there is compared local
by local with gdb's bt full in the same process at the same pc (gdb
attached after wraith's event, at the pc it reported), g++ and clang-19,
-O0 and -O2, libstdc++.  libc++ (no gdb printers on Debian: gdb shows
raw members): the contents the fixture's source gives them.

Outer frames' locals: stock()'s, frame 1 at stocked(), a vector of 250
ints, a map, a list, a vector of strings, a deque, a set, an
unordered_map and a struct holding a heap string, kept in memory across
the call, a reference to a string and one to a container, and a static
std::string, whose characters the recipe copies with its bytes.  gdb's bt full shows them whole too; wraith copies them at the
hit by the call chain's recipe (its whole walks), learned from the
chain's first event (or, where stocked's CFA is rsp plus a constant at
its entry, written at attach from stock's call site): every event shows
each either short, as the chain's first events do, or whole, as gdb's bt
full at the same pc of the same process shows it, never anything else.
Rust (rstd.rs, opt-level 0, 1, 2): main()'s Vecs at tally(), frame 2,
against the fixture's contents (rust-gdb 1.63's Vec printer fails
here)."""
from wraithtest import *
from bt_support import parallel

require_root()

LINE = marker_line("containers.cc", "tally: bt full here")
SEEN = "std::vector of length 250, capacity 250 = {%s...}" % ", ".join("%d" % (2 * i) for i in range(200))
WANT = {
    "seen": SEEN,
    "counts": 'std::map with 2 elements = {["conn"] = 100, ["rps"] = 2000}',
    "order": "std::list = {[0] = 5, [1] = 6, [2] = 7}",
    "words": 'std::vector of length 2, capacity 2 = {"alpha", "a word long enough for the heap, not the object"}',
    "item": '{id: 4, name: "four"}',
    "at": '{first: "rps", second: 2000}',
}


def hexless(v):
    return re.sub(r"0x[0-9a-f]+", "0x?", v)


def locals_of(text, fn="tally"):
    """The locals under @fn's frame in a bt full's text: {name: value}."""
    m = re.search(r"^ *#\d+ +(?:0x[0-9a-f]+ in )?%s ?\(.*\n((?: {8,}\S.*\n)*)" % fn, text, re.M)
    if not m:
        return None
    return dict(l.strip().split(" = ", 1) for l in m.group(1).splitlines() if " = " in l)


def one(v):
    fx = Fixture("containers-%s" % v, [1000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace containers.cc:%d { print "pc {}", $pc; bt full; }' % LINE,
                   "--max-events", 1, "--timeout", 30, "--backtrace-depth", 3])
        m = re.search(r"^  pc \(void \(\*\)\(void\)\) (0x[0-9a-f]+)", res.stdout, re.M)
        gdb = ""
        if m and not v.startswith("libcxx"):
            gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "set width 0",
                                  "-ex", "break *%s" % m.group(1), "-ex", "continue", "-ex", "bt full 3",
                                  "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    finally:
        fx.stop()
    return v, res, gdb


for v, res, gdb in parallel(one, ("O0", "O2", "clang-O0", "clang-O2", "libcxx-O0", "libcxx-O2"), workers=2):
    label = "containers-%s bt full" % v
    mine = locals_of(res.stdout)
    if not check(res.returncode == 0 and mine, "%s: tally's frame with its locals (rc %s, %r)" % (
            label, res.returncode, res.stdout[-300:] + res.stderr[-300:])):
        continue
    if v.startswith("libcxx"):
        for name, want in WANT.items():
            eq(mine.get(name), want, "%s: %s whole, as the fixture made it" % (label, name))
        continue
    theirs = locals_of(gdb)
    if not check(theirs, "%s: gdb's bt full at the same pc shows tally's locals (%r)" % (label, gdb[-500:])):
        continue
    check(len(theirs) >= 6, "%s: gdb shows them all (%s)" % (label, sorted(theirs)))
    for name, g in theirs.items():
        eq(hexless(mine.get(name, "<missing>")), printer_norm(g),
           "%s: %s as gdb's bt full shows it" % (label, name))
    eq(mine.get("seen"), SEEN, "%s: 250 elements capped at 200, as gdb's print elements" % label)

# ---- outer frames: stock()'s locals at stocked() ----
STOCK = {
    "seen": "std::vector of length 250, capacity 250 = {%s...}" % ", ".join("%d" % (3 * i) for i in range(200)),
    "counts": WANT["counts"],
    "order": WANT["order"],
    "words": WANT["words"],
    "queue": "std::deque with 2 elements = {8, 9}",
    "ids": "std::set with 3 elements = {[0] = 10, [1] = 20, [2] = 30}",
    "hashed": "std::unordered_map with 1 element = {[1] = 10}",
    "item": '{id: 4, name: "a name long enough to live on the heap"}',
}
# what a bt shows of each, short (a chain's events before its recipe ran)
SHORT = {
    "seen": "std::vector of length 250, capacity 250 = {...}",
    "counts": "std::map with 2 elements = {...}",
    "order": "std::list = {...}",
    "words": "std::vector of length 2, capacity 2 = {...}",
    "queue": "std::deque with 2 elements = {...}",
    "ids": "std::set with 3 elements = {...}",
    "hashed": "std::unordered_map with 1 element = {...}",
    "item": "...",
}
# A reference local to a string and to a container, and a function's
# static string (its characters on the heap): as gdb's bt full shows
# them, or, at a chain's first events, short (a reference's container)
# or the chain's marker; a static is copied by the recipe at its address
# with its characters, so every event past the first ones shows it.
REFS = {
    "named": STOCK["item"].split("name: ", 1)[1][:-1],
    "listed": WANT["order"],
    "stocks": '"stock kept in a static string, on the heap"',
}
REFS_SHORT = ("<not copied: new call chain>", SHORT["order"])


def events_of(text):
    return re.split(r"^\[[\d:.]+\] ", text, flags=re.M)[1:]


def unscoped(v):
    """libstdc++'s list as gdb's printer names it, std::__cxx11::list,
    in the fixture's spelling."""
    return v.replace("std::__cxx11::", "std::")


def outer(v):
    fx = Fixture("containers-%s" % v, [1000])
    try:
        # until 3 events show seen whole (the recipe is in), Ctrl-C; the
        # smallest event buffer, so a slow reader does not read minutes
        # of events sent before the recipe was in
        res = run_until(["-p", fx.pid, "-s", 'trace stocked { print "pc {}", $pc; bt full; }',
                         "--backtrace-depth", 2, "--buffer-size", "64K", "--timeout", 90],
                        lambda ls: sum("seen = std::vector of length 250, capacity 250 = {0, 3, 6" in l
                                       for l in ls) >= 3)
        m = re.search(r"^  pc \(void \(\*\)\(void\)\) (0x[0-9a-f]+)", res.stdout, re.M)
        gdb = ""
        if m:  # libc++: for what has no location (gdb's raw values else)
            gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "set width 0",
                                  "-ex", "break *%s" % m.group(1), "-ex", "continue", "-ex", "bt full 2",
                                  "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    finally:
        fx.stop()
    return v, res, gdb


for v, res, gdb in parallel(outer, ("O0", "O2", "clang-O0", "clang-O2", "libcxx-O0", "libcxx-O2"), workers=2):
    label = "containers-%s bt full, frame 1" % v
    evs = [locals_of(e, "stock") for e in events_of(res.stdout)]
    if not check(res.returncode == 0 and evs and None not in evs,
                 "%s: stock's frame with its locals in every event (rc %s, %r)" % (
                     label, res.returncode, res.stderr[-300:])):
        continue
    whole = [e for e in evs if e.get("seen") == STOCK["seen"]]
    if not check(len(whole) >= 3, "%s: later events show seen whole (%d of %d)" % (label, len(whole), len(evs))):
        continue
    want = STOCK
    if not v.startswith("libcxx"):
        theirs = locals_of(gdb, "stock")
        if not check(theirs and len(theirs) >= 8, "%s: gdb's bt full at the same pc shows stock's locals (%r)" % (
                label, gdb[-500:])):
            continue
        want = {name: unscoped(printer_norm(theirs.get(name, "<missing in gdb>"))) for name in STOCK}
        for name in STOCK:
            eq(want[name], STOCK[name], "%s: gdb shows %s as the fixture made it" % (label, name))
    for name in STOCK:
        eq(unscoped(hexless(whole[-1].get(name, "<missing>"))), want[name],
           "%s: %s whole, as gdb's bt full shows it" % (label, name))
        odd = [e.get(name) for e in evs if unscoped(e.get(name) or "") not in (want[name], SHORT[name])]
        check(not odd, "%s: %s in every event whole or short, nothing else (%r)" % (label, name, odd[:2]))
    theirs = locals_of(gdb, "stock") or {}
    for name, made in REFS.items():
        # clang -O2 with libc++ keeps no location for named: gdb's
        # <optimized out>; else libc++'s values against the fixture's
        want = unscoped(printer_norm(theirs.get(name, "<missing in gdb>")))
        if v.startswith("libcxx") and want != "<optimized out>":
            want = made
        if want != "<optimized out>":
            eq(want, made, "%s: gdb shows %s as the fixture made it" % (label, name))
        eq(unscoped(whole[-1].get(name, "<missing>")), want, "%s: %s as gdb's bt full shows it" % (label, name))
        odd = [e.get(name) for e in evs if unscoped(e.get(name) or "") not in (want,) + REFS_SHORT]
        check(not odd, "%s: %s in every event as gdb's, short or its marker (%r)" % (label, name, odd[:2]))

# ---- Rust: main()'s Vecs, frame 2 at rstd::tally ----
# rust-gdb 1.63's Vec printer fails on this gdb: the fixture's contents
# are the oracle.  A Vec of ints, of enums holding Strings, of 200
# Strings (print elements: 200), in every event short or whole.
RUST = {
    "v": ("Vec(size=3) = {1, -2, 3}", "Vec(size=3) = {...}"),
    "cmds": ('Vec(size=3) = {rstd::Cmd::Put{key: "k0", value: 438}, rstd::Cmd::Get("k1"), rstd::Cmd::Quit}',
             "Vec(size=3) = {...}"),
    "names": ("Vec(size=200) = {%s}" % ", ".join('"name-%d"' % i for i in range(200)), "Vec(size=200) = {...}"),
}


def rust(v):
    fx = Fixture("rstd-%s" % v, [1000])
    try:
        return v, run_until(["-p", fx.pid, "-s", "trace rstd::tally { bt full; }", "--backtrace-depth", 3,
                             "--buffer-size", "64K", "--timeout", 90],
                            lambda ls: sum(("v = " + RUST["v"][0]) in l for l in ls) >= 3)
    finally:
        fx.stop()


for v, res in parallel(rust, ("O0", "O1", "O2"), workers=2):
    label = "rstd-%s bt full, frame 2" % v
    evs = [locals_of(e, "rstd::main") for e in events_of(res.stdout)]
    if not check(res.returncode == 0 and evs and None not in evs,
                 "%s: main's frame with its locals in every event (rc %s, %r)" % (
                     label, res.returncode, res.stderr[-300:])):
        continue
    whole = [e for e in evs if e.get("v") == RUST["v"][0]]
    if not check(len(whole) >= 3, "%s: later events show v whole (%d of %d)" % (label, len(whole), len(evs))):
        continue
    for name, (want, short) in RUST.items():
        # at opt-level 0 main's values before names took the recipe's 32
        # walk ops (names stayed short); 64 hold them all
        eq(whole[-1].get(name), want, "%s: %s whole, as the fixture made it" % (label, name))
        odd = [e.get(name) for e in evs if e.get(name) not in (want, short)]
        check(not odd, "%s: %s in every event whole or short, nothing else (%r)" % (label, name, odd[:2]))

check_no_leftovers("after bt full's locals")
finish()
