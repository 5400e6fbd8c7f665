"""xmm_int.py - an int whose value is computed from an SSE register
(issue 23).  At xmmint.c's AFTER-LINE GCC -O2 (and -O2 -flto) describes
work()'s int k as x, a double in xmm0, converted to int
(DW_OP_regval_type xmm0, DW_OP_convert): a probe sees the
general-purpose registers only and cannot compute it.  The probe was
refused ("the value is in a vector register"); now, as for a value
wholly in xmm0, the site prints <unavailable> for k (and x), says once
why, naming xmm0, and prints n as gdb prints it; `bt full` shows k
<unavailable> in frame 0 too, and an expression over k is refused
naming the register.  gdb, which reads xmm0 through ptrace, prints k:
the shape is checked there.  clang -O2 keeps k in a general-purpose
register: k and n equal gdb's print.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["xmmint-O2", "xmmint_lto", "xmmint-clang-O2"]
AFTER = "xmmint.c:%d" % marker_line("xmmint.c", "/* AFTER-LINE")


def gdb_prints(pid, names):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break %s" % AFTER, "-ex", "continue"]
    for n in names:
        argv += ["-ex", "print %s" % n]
    out = subprocess.run(argv + ["-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    return dict(zip(names, re.findall(r"^\$\d+ = (.*)$", out, re.M))), out


def wraith_prints(pid, names):
    """{name: print's text} and {name: bt full's frame 0 value} of one event."""
    body = " ".join("print %s;" % n for n in names)
    res = run(["-p", pid, "-s", "trace %s { %s bt full; }" % (AFTER, body), "--max-events", 1,
               "--script-output", "json", "-q"])
    ev = json_events(res.stdout)[:1]
    texts = [it["text"].split(" = ", 1)[-1] for e in ev for it in e["items"] if it["type"] == "print"]
    frames = [f for e in ev for it in e["items"] if it["type"] == "backtrace" for f in it["frames"]]
    full = dict((a["name"], a["value"]) for f in frames[:1] for a in f.get("args", []) + f.get("locals", []))
    return dict(zip(names, texts)), full, res


for b in BUILDS:
    gcc = "clang" not in b
    names = ["k", "n"] + (["x"] if gcc else [])  # clang's x: a 16-byte read gdb cannot do either
    fx = Fixture(b, [2000])
    mine, full, res = wraith_prints(fx.pid, names)
    expr = run(["-p", fx.pid, "-s", 'trace %s { print "{}", k + 1; }' % AFTER, "--max-events", 1, "-q"])
    gdb, text = gdb_prints(fx.pid, names)
    fx.stop()
    check(res.returncode == 0, "%s: the probe at %s is not refused (%s)" % (b, AFTER, res.stderr[-300:]))
    # n is i % 7 + 1 of the hit: gdb's hit is a later call
    check(re.match(r"^[1-7]$", str(mine.get("n"))) and re.match(r"^[1-7]$", str(gdb.get("n"))),
          "%s: n prints as gdb prints it, one of 1..7 (%s, gdb %s)" % (b, mine.get("n"), gdb.get("n")))
    if not gcc:  # k in a general-purpose register: read, as gdb
        for who, got in (("wraith", mine), ("gdb", gdb)):  # k = (int)(n * 1.5) of the same call
            check(re.match(r"^\d+$", str(got.get("k"))) is not None and
                  int(got["k"]) == int(int(got.get("n", "0")) * 1.5),
                  "%s: %s's k is (int)(n * 1.5) of its n (%s)" % (b, who, got))
        check(expr.returncode == 0, "%s: k + 1 is computed (%s)" % (b, expr.stderr[-300:]))
        continue
    # the shape is there: gdb computes k from xmm0
    check(re.match(r"^\d+$", str(gdb.get("k"))) is not None, "%s: gdb prints k (%s)" % (b, text[-300:]))
    eq((mine.get("k"), mine.get("x")), ("<unavailable>", "<unavailable>"),
       "%s: k (computed from xmm0) and x (in xmm0) print <unavailable>" % b)
    check(re.search(r"site 1 of 1 \(.*work.*\) prints a marker .*\n.*'k' is computed from xmm0 at this pc of "
                    r"%s, which a uprobe cannot read" % re.escape(AFTER), res.stderr) is not None,
          "%s: the site says once why k is <unavailable> (%s)" % (b, res.stderr[-400:]))
    eq((full.get("k"), full.get("x")), ("<unavailable>", "<unavailable>"),
       "%s: bt full's frame 0 says what print says" % b)
    check(expr.returncode == 2 and "'k' is computed from xmm0 at this pc" in expr.stderr,
          "%s: an expression over k is refused, naming xmm0 (%s)" % (b, expr.stderr[-300:]))
check_no_leftovers("after the int computed from xmm0")
finish()
