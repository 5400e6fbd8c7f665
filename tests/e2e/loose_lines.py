"""loose_lines.py - a line whose line-table rows are none a statement
(loose.c, GCC -O2 marks so settle()'s even branch, inlined into meter()
and mixed with its code): `trace loose.c:LINE` stands on that line's own
rows, in the inlined call that holds them, where gdb's `break` would move
to the next line with a statement row (another function here).  Every
such line of each build (read off the line table with objdump) resolves
to itself, and the values wraith prints there are gdb's at the same pc of
the same process (gdb stopped with `break *ADDRESS`).  A line that has a
statement row keeps it (the even branch at -O0).  meter() is called with
the same argument every time, so that each hit holds the same values.
"""
import re
import subprocess

from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()

VARIANTS = ("O0", "O2", "O2-nopie", "clang-O2")
EXPRS = ["step", "sum", "g->limit", "*g"]


def loose_lines(path):
    """Lines of loose.c whose rows are none a statement."""
    out = subprocess.run(["objdump", "--dwarf=decodedline", path], capture_output=True, text=True).stdout
    rows, stmt = {}, set()
    for m in re.finditer(r"(?m)^loose\.c\s+(\d+)\s+0x[0-9a-f]+(.*)$", out):
        line = int(m.group(1))
        rows[line] = rows.get(line, 0) + 1
        if m.group(2).split()[-1:] == ["x"]:
            stmt.add(line)
    return sorted(l for l in rows if l not in stmt and l > 0), stmt


def dry_site(pid, line):
    res = run(["-p", pid, "-s", "trace loose.c:%d { print \"{}\", $pc; }" % line, "--dry-run"])
    m = re.search(r"#1 \S+\+0x([0-9a-f]+) .* at \S*loose\.c:(\d+)", res.stdout)
    return res, (int(m.group(1), 16), int(m.group(2))) if m else None


def one(variant):
    fx = Fixture("loose-" + variant, [2000])
    want_line = marker_line("loose.c", "/* LOOSE */")
    lines, stmt = loose_lines(fx.path)
    if variant.startswith("O2"):
        check(want_line in lines, "%s: GCC leaves line %d without a statement row (%s)" % (variant, want_line, lines))
    for line in lines:
        res, site = dry_site(fx.pid, line)
        check(site is not None and site[1] == line,
              "%s: loose.c:%d is probed on its own rows (%s %s)" % (variant, line, site, res.stderr.strip()[-300:]))
    if want_line in lines:
        script = "trace loose.c:%d {\n%s}\n" % (want_line, "".join('print "{}", %s;\n' % e for e in EXPRS))
        res = run(["-p", fx.pid, "-s", script, "--max-events", 1, "--script-output", "plain", "-q"])
        got = res.stdout.splitlines()
        _, site = dry_site(fx.pid, want_line)
        base = fx.path if "nopie" in variant else None
        where = "*0x%x" % site[0] if base else "*(meter+%d)" % (site[0] - symbol_address(fx.path, "meter"))
        want = gdb_values(fx.pid, EXPRS, where)
        eq(len(got), len(EXPRS), "%s: one line per value (%s)" % (variant, res.stderr.strip()[-300:]))
        for e, g, w in zip(EXPRS, got, want):
            eq(g, normalize(w or ""), "%s: print %s at loose.c:%d as gdb at the same pc" % (variant, e, want_line))
    elif want_line in stmt:
        res, site = dry_site(fx.pid, want_line)
        check(site is not None and site[1] == want_line,
              "%s: loose.c:%d has a statement row and is probed there (%s)" % (variant, want_line, site))
    fx.stop()


def symbol_address(path, name):
    out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    m = re.search(r"(?m)^([0-9a-f]+) [Tt] %s$" % re.escape(name), out)
    return int(m.group(1), 16)


for v in VARIANTS:
    one(v)
check_no_leftovers("after the loose-line tests")
finish()
