"""string_pieces.py - a std::string local the compiler keeps in pieces
(DW_OP_piece: clang-19 -O2 holds containers.cc's pieces() `s` as its
pointer in one register and its length in another, no object in
memory) prints as gdb's printer prints it, "a string long enough to
live on the heap", wherever its pointer and length are known, in print,
bt full and NDJSON; where one is not (libc++'s, whose first word, the
long-or-short flag, clang does not keep), its members, the ones not kept
`<optimized out>`, as before.  Compared with gdb attached to the same
process at the pc wraith reported, for g++ and clang-19, -O0 and -O2
(the -O2 clang build must have `s` in pieces there: checked from its
DWARF); libc++ by the fixture's source."""
from wraithtest import *
from bt_support import parallel

require_root()

LINE = marker_line("containers.cc", "pieces: here")
TEXTS = ('"a string long enough to live on the heap"', '"another string long enough for the heap"')


def in_pieces(v, pc):
    """Whether containers-@v's pieces() `s` is in pieces (DW_OP_piece) at
    module address @pc, by llvm-dwarfdump's location list."""
    out = subprocess.run(["llvm-dwarfdump-19", "--name=s", "--show-children", fixture("containers-%s" % v)],
                         capture_output=True, text=True).stdout
    for entry in out.split("DW_TAG_variable"):
        if "containers.cc" not in entry or "DW_AT_decl_line\t(%d)" % (LINE - 3) not in entry:
            continue
        for lo, hi, ops in re.findall(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\): ([^\n]*)", entry):
            if int(lo, 16) <= pc < int(hi, 16):
                return "DW_OP_piece" in ops
    return False


def one(v):
    fx = Fixture("containers-%s" % v, [1000])
    try:
        res = run(["-p", fx.pid, "-s", 'trace containers.cc:%d { print "S {} {}", $pc, s; bt full; }' % LINE,
                   "--max-events", 1, "--timeout", 30, "--backtrace-depth", 1])
        js = run(["-p", fx.pid, "-s", 'trace containers.cc:%d { print "{}", s; }' % LINE,
                  "--max-events", 1, "--timeout", 30, "--script-output", "json"])
        m = re.search(r"^  S \(void \(\*\)\(void\)\) (0x[0-9a-f]+) <pieces\(int\)\+\d+> (.*)$", res.stdout, re.M)
        gdb = ""
        if m and not v.startswith("libcxx"):
            gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "set width 0",
                                  "-ex", "break *%s" % m.group(1), "-ex", "continue", "-ex", "print s",
                                  "-ex", "bt full 1", "-ex", "continue", "-ex", "print s", "-ex", "bt full 1",
                                  "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
        base = load_base(fx.pid, fixture("containers-%s" % v)) if m else 0
    finally:
        fx.stop()
    return v, res, js, m, gdb, base


for v, res, js, m, gdb, base in parallel(one, ("O0", "O2", "clang-O0", "clang-O2", "libcxx-O2"), workers=2):
    label = "containers-%s pieces" % v
    if not check(res.returncode == 0 and m, "%s: wraith printed s at pieces() (rc %s, %r)" % (
            label, res.returncode, res.stdout[-300:] + res.stderr[-300:])):
        continue
    pc = int(m.group(1), 16) - base
    mine = m.group(2)
    local = re.search(r"^ +s = (.*)$", res.stdout, re.M)
    ev = json_events(js.stdout)
    value = ev[0]["items"][0]["args"][0]["value"] if ev else None
    if v in ("clang-O2", "libcxx-O2"):
        check(in_pieces(v, pc), "%s: s is in pieces at 0x%x (the case under test)" % (label, pc))
    if v == "libcxx-O2":
        # its first word, libc++'s long-or-short flag, is not kept: its
        # members, those not kept <optimized out> (no gdb printer here)
        check("__is_long_: <optimized out>" in mine and local and "<optimized out>" in local.group(1),
              "%s: its members where the flag is not kept (%r)" % (label, mine[:200]))
        check(isinstance(value, dict), "%s: NDJSON has its members (%r)" % (label, str(value)[:100]))
        continue
    # pieces() alternates between two strings: gdb's two hits show both,
    # wraith's one hit must show one of them, in print and bt full alike
    hits = re.findall(r"^\$\d+ = (.*)\n(?:.*\n)*? +s = (.*)$", gdb, re.M)
    if not check(len(hits) == 2, "%s: gdb printed s at the same pc, twice (%r)" % (label, gdb[-300:])):
        continue
    eq((mine, local and local.group(1)), [h for h in hits if h[0] == mine][0] if mine in dict(hits) else hits[0],
       "%s: print s and bt full's s as gdb's printer shows them" % label)
    check(mine in TEXTS, "%s: the string's text (%r)" % (label, mine))
    check(isinstance(value, str) and '"%s"' % value in TEXTS, "%s: NDJSON's string (%r)" % (label, value))

check_no_leftovers("after strings in pieces")
finish()
