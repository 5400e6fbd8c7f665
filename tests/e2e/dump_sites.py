"""dump_sites.py - a memory dump of a probe with several sites, one of
which lacks the dump's length (issue 23 item 5): dumpsites.c's put() is
inlined into a(), b() and c(), and at b()'s copy its length has no
location at the probe's line.  `print "{:s.*} {}", len, buf, $pc` at
PUT-LINE traces every site (no site refused, none silently dumped with a
length it does not have): each prints what gdb prints at the same pc of
the same process, the string of buf where gdb has len, <optimized out>
where gdb prints len as <optimized out> (or has no len at that pc at
all).  gcc and clang-19 at -O2.
"""
import re
import subprocess

from wraithtest import *

require_root()

PUT = "dumpsites.c:%d" % marker_line("dumpsites.c", "/* PUT-LINE")


def gdb_sites(pid):
    """{pc: (gdb's print len, gdb's print buf)} at each location of PUT."""
    cmds = ["break " + PUT]
    for _ in range(3):
        cmds += ["continue", "print $pc", "print len", "print buf"]
    argv = ["gdb", "-batch", "-nx", "-p", str(pid)]
    for c in cmds:
        argv += ["-ex", c]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    sites = {}
    for chunk in out.split("Breakpoint 1.")[1:]:
        pc = re.search(r"= \(void \(\*\)\(\)\) (0x[0-9a-f]+)", chunk)
        ln = re.search(r"^\$\d+ = (\d+|<optimized out>)$", chunk, re.M)
        bf = re.search(r'^\$\d+ = 0x[0-9a-f]+ <bufs(?:\+\d+)?> "([^"]*)"$', chunk, re.M)
        if pc:
            sites[int(pc.group(1), 16)] = (ln.group(1) if ln else None, bf.group(1) if bf else None)
    return sites


for build in ("dumpsites-O2", "dumpsites-clang-O2"):
    fx = Fixture(build)
    res = run(["-p", fx.pid, "-s", 'trace %s { print "{:s.*} {}", len, buf, $pc; }' % PUT, "--max-events", 9,
               "-q", "--script-output", "json"])
    check(res.returncode == 0, "%s: the probe is traced (%s)" % (build, res.stderr.strip()[-300:]))
    check("not traced" not in res.stderr, "%s: no site is refused (%s)" % (build, res.stderr.strip()[-300:]))
    mine = {}
    for ev in json_events(res.stdout):
        args = ev["items"][0]["args"]  # the dump (its length has no entry), $pc
        pc = int(re.search(r"0x[0-9a-f]+", str(args[1]["value"])).group(0), 16)
        mine[pc] = (args[0]["value"], args[0]["error"])
    eq(len(mine), 3, "%s: every site of put() fired (%s)" % (build, sorted(hex(p) for p in mine)))
    gdb = gdb_sites(fx.pid)
    fx.stop()
    gone = 0
    for pc, (text, error) in sorted(mine.items()):
        glen, gbuf = gdb.get(pc, (None, None))
        what = "%s: {:s.*} at %#x (gdb: len %s, buf %s)" % (build, pc, glen, gbuf)
        if glen is None or glen == "<optimized out>":
            eq((text, error), (None, "optimized-out"), what + " is <optimized out>")
            gone += 1
        else:
            eq((text, error), (gbuf, None), what + " is the string")
    check(gone >= 1 and gone < len(mine), "%s: one site lacks the length, the others have it (%d of %d)"
          % (build, gone, len(mine)))
finish()
