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

Outer frames' locals (frames 1 and up, read through a chain's recipe)
stay short: what a recipe copies holds no elements."""
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

check_no_leftovers("after bt full's locals")
finish()
