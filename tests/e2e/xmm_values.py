"""xmm_values.py - floats and doubles in SSE registers (issue 23).  A
uprobe's program sees the general-purpose registers only (pt_regs): at
scale()'s entry (xmmvals.c) ratio is in xmm0 and f in xmm1, so `print
ratio` shows gdb's marker for a register it cannot read, <unavailable>,
never a value, and says once, naming the site, why; n (rdi) prints as gdb
prints it (one of the 0..6 main passes: gdb stops at a later call); an expression over ratio is refused with the register named.
After the call (AFTER-LINE) f is, at GCC -O2, known only as what main
passed in xmm1 (DW_OP_entry_value of a DW_OP_regval_type): main's call
site says the constant 0.25, which the probe reads, as gdb does; print f
there equals gdb's print f at the same line, gcc and clang -O2.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["xmmvals-O2", "xmmvals-clang-O2"]
AFTER = "xmmvals.c:%d" % marker_line("xmmvals.c", "/* AFTER-LINE")


def gdb_prints(pid, point, names):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break %s" % point, "-ex", "continue"]
    for n in names:
        argv += ["-ex", "print %s" % n]
    argv += ["-ex", "detach"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    return dict(zip(names, re.findall(r"^\$\d+ = (.*)$", out, re.M))), out


def prints(pid, point, names):
    body = " ".join("print %s;" % n for n in names)
    res = run(["-p", pid, "-s", "trace %s { %s }" % (point, body), "--max-events", 1,
               "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    texts = [it["text"] for it in ev[0]["items"] if it["type"] == "print"] if ev else []
    return dict(zip(names, [t.split(" = ", 1)[-1] for t in texts])), res


for b in BUILDS:
    fx = Fixture(b, [2000])
    mine, res = prints(fx.pid, "scale", ["n", "ratio", "f"])
    dry = run(["-p", fx.pid, "-s", "trace scale { print ratio; }", "--dry-run"])
    expr = run(["-p", fx.pid, "-s", 'trace scale { print "{}", ratio * 2; }', "--max-events", 1, "-q"])
    gdb, text = gdb_prints(fx.pid, "scale", ["n", "ratio", "f"])
    after, res_after = prints(fx.pid, AFTER, ["f"])
    gdb_after, text_after = gdb_prints(fx.pid, AFTER, ["f"])
    fx.stop()
    check(res.returncode == 0, "%s: print of xmm values is not refused (%s)" % (b, res.stderr[-300:]))
    # n is i % 7 of the call hit: gdb's hit is a later call
    check(re.match(r"^[0-6]$", str(mine.get("n"))) and re.match(r"^[0-6]$", str(gdb.get("n"))),
          "%s: n, in rdi, prints as gdb prints it, one of main's 0..6 (%s, gdb %s)" % (b, mine.get("n"), gdb.get("n")))
    # the shape is there: gdb (ptrace) reads xmm0 and xmm1
    eq((gdb.get("ratio"), gdb.get("f")), ("2.5", "0.25"), "%s: gdb reads ratio and f in xmm0, xmm1" % b)
    eq((mine.get("ratio"), mine.get("f")), ("<unavailable>", "<unavailable>"),
       "%s: ratio and f, in xmm0 and xmm1, print <unavailable>" % b)
    check(re.search(r"site 1 of 1 \(.*scale.*\) prints a marker .*\n.*'ratio' is in xmm0 at this pc of scale, "
                    r"which a uprobe cannot read", res.stderr) is not None,
          "%s: the site says once why ratio is <unavailable> (%s)" % (b, res.stderr[-400:]))
    check(dry.returncode == 0 and "cannot give <script>:1:" in dry.stdout and "'ratio' is in xmm0" in dry.stdout,
          "%s: --dry-run lists what the site cannot give (%s)" % (b, dry.stdout[-400:]))
    check(expr.returncode == 2 and "'ratio' is in xmm0 at this pc of scale, which a uprobe cannot read"
          in expr.stderr, "%s: an expression over ratio is refused, naming xmm0 (%s)" % (b, expr.stderr[-300:]))
    check(res_after.returncode == 0, "%s: print f at %s is not refused (%s)" % (b, AFTER, res_after.stderr[-300:]))
    eq(after.get("f"), gdb_after.get("f"), "%s: f at %s as gdb prints it (gdb: %s)" % (b, AFTER, text_after[-300:]))
    if b == "xmmvals-O2":  # GCC: f only from main's call site, a typed constant
        eq(gdb_after.get("f"), "0.25", "%s: gdb has f from main's call site" % b)
check_no_leftovers("after the xmm values")
finish()
