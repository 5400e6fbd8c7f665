"""outer_strings.py - strings as bt full and print show them, against
gdb at the same stops of the same process (outerstr.c, found comparing
zstd with gdb).  holder() keeps three char pointers past its call of
leaf(): at leaf, holder's frame shows a heap string longer than gdb's
200 print elements as 200 characters and "..." (wraith showed the 200
without "...", as though the string ended there: its recipe copied
exactly 200 and a NUL), one of exactly 200 with no "...", and `cut`.
`print s` in leaf and `cut` end in bytes that begin a character and do
not finish it: gdb converts with glibc's iconv, which takes UTF-8's old
5- and 6-byte lead bytes (\\370, \\375) for such a head too, shown as
`<incomplete sequence \\375\\240>` (wraith escaped them), and \\300,
which begins none, escaped (wraith marked it incomplete).  gdb drops
the character before an incomplete sequence and wraith keeps it
(doc/script-reference.md): gdb's quirk is applied to wraith's text
before comparing.  In C.UTF-8, for both.  gcc and clang-19, -O0 and
-O2."""
import subprocess

from wraithtest import *

require_root()
# in a UTF-8 locale, for wraith and gdb alike: where incomplete
# sequences are marked (in C every byte past ASCII is escaped)
os.environ["LC_ALL"] = "C.UTF-8"

HOLDER = re.compile(r"^\s*#1\s+(?:0x[0-9a-f]+ in )?holder ?\((.*)\) at ", re.M)
CUT = re.compile(r"^\s{8,}cut = (.*)$", re.M)
PRINT = re.compile(r"^\s*(?:\$\d+|s) = (.*)$", re.M)
K = re.compile(r"\bk=(?:k@entry=)?(\d+)\)?$")


def gdb_quirk(text):
    """@text with the character before an incomplete sequence left out,
    as gdb prints it."""
    return re.sub(r'(?:\\[0-7]{3}|[^"\\])", <incomplete', '", <incomplete', text)


def stops(text, first):
    """{k: (print s, holder's arguments, cut)} of the stops in @text,
    split at lines that start with @first."""
    out = {}
    for part in re.split(first, text, flags=re.M)[1:]:
        p, h, c = PRINT.search(part), HOLDER.search(part), CUT.search(part)
        if not (p and h and c):
            continue
        k = K.search(h.group(1))
        if k:
            out[int(k.group(1))] = (p.group(1).strip(), h.group(1).strip(), c.group(1).strip())
    return out


for build in ("outerstr-O0", "outerstr-O2", "outerstr-clang-O0", "outerstr-clang-O2"):
    fx = Fixture(build, [20000])
    # three rounds of five calls: the later ones copy what the chain's
    # first event taught its recipe
    res = run(["-p", fx.pid, "-s", "trace leaf { print s; bt full; }", "--max-events", 15])
    ours = stops(res.stdout, r"^\[")
    argv = ["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break leaf"]
    for _ in range(5):
        argv += ["-ex", "continue", "-ex", "print s", "-ex", "bt full 2"]
    out = subprocess.run(argv + ["-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    fx.stop()
    theirs = stops(out, r"^(?=\$\d+ = )")
    eq(sorted(theirs), [0, 1, 2, 3, 4], "%s: gdb stops at leaf for each k (%s)" % (build, out[-300:]))
    eq(sorted(ours), [0, 1, 2, 3, 4], "%s: wraith's events are leaf's calls for each k (%s)" % (build, res.stdout[-300:]))
    for k in sorted(set(ours) & set(theirs)):
        w, g = [gdb_quirk(x) for x in ours[k]], theirs[k]
        eq(w[0], g[0], "%s: print s for k=%d is gdb's" % (build, k))
        eq(w[1], g[1], "%s: holder's arguments for k=%d are gdb's" % (build, k))
        eq(w[2], g[2], "%s: holder's cut for k=%d is gdb's" % (build, k))
    if 0 in ours:
        check(re.search(r'pqr"\.\.\., exact=', ours[0][1]) is not None,
              "%s: the long string is cut with ... (%r)" % (build, ours[0][1][:60]))
        check(re.search(r'QR", k=', ours[0][1]) is not None,
              "%s: the string of exactly 200 is not (%r)" % (build, ours[0][1][-80:]))
check_no_leftovers("after the strings")
finish()
