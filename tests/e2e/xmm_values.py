"""xmm_values.py - floats and doubles in SSE registers (issue 23).  A
uprobe's program sees the general-purpose registers only (pt_regs): where
scale()'s ratio is only in an SSE register (xmmvals.c: GCC's xmm3 at
AFTER-LINE, clang's xmm0 at its probe in scale) `print ratio` shows gdb's
marker for a register it cannot read, <unavailable>, never a value, and
says once, naming the site, why (--dry-run lists it); an expression over
ratio is refused with the register named.  n (rdi) prints as gdb prints
it (one of the 0..6 main passes: gdb stops at a later call).
At scale's entry (GCC) nothing ran since main's call, so xmm0 and xmm1
still hold what main's call site says it passed: print ratio and f are
2.5 and 0.25, as gdb's print, and `bt args` shows gdb's
ratio=ratio@entry=2.5, f=f@entry=0.25; called through a pointer (the
fixture's ptr mode), no call site the probe knows says, and both are
<unavailable> (gdb reads 3.5 and 0.5); and at the entry of pick, whose
jump table may land anywhere in it, its entry too, w is <unavailable>,
never assumed to be what main passed (bt args: w=<unavailable>,
w@entry=2).
After the call (AFTER-LINE) f is, at GCC -O2, known only as what main
passed in xmm1 (DW_OP_entry_value of a DW_OP_regval_type): main's call
site says the constant 0.25, which the probe reads, as gdb does; print f
there equals gdb's print f at the same line, gcc and clang -O2.
`bt args` says of such a value what print says: at AFTER-LINE ratio is
<unavailable> in both, where gdb reads 2.5; at xmm_clobber's entry
(nothing ran since scale's call) scale's frame 1 still has ratio in its
SSE register: <unavailable>, where gdb reads it.
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


def prints(pid, point, names, bt=False):
    """{name: print's text} at @point; with @bt, also bt args's frames
    of that event, each {name: value as gdb's bt writes it}."""
    body = " ".join("print %s;" % n for n in names) + (" bt args;" if bt else "")
    res = run(["-p", pid, "-s", "trace %s { %s }" % (point, body), "--max-events", 1,
               "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    texts = [it["text"] for it in ev[0]["items"] if it["type"] == "print"] if ev else []
    got = dict(zip(names, [t.split(" = ", 1)[-1] for t in texts]))
    if not bt:
        return got, res
    frames = [f for it in (ev[0]["items"] if ev else []) if it["type"] == "backtrace" for f in it["frames"]]
    # gdb's text of each: x=x@entry=5 where the value is the one passed
    return got, [dict((a["name"], ("%s@entry=" % a["name"] if a.get("entry") else "") + a["value"])
                      for a in f.get("args", [])) for f in frames], res


def gdb_frame_args(pid, point, level):
    """gdb's `bt` frame @level's arguments at @point, {name: value}."""
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break %s" % point, "-ex", "continue",
            "-ex", "bt %d" % (level + 1), "-ex", "detach"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"^#%d .*?\((.*)\) at " % level, out, re.M)
    return dict(a.split("=", 1) for a in m.group(1).split(", ")) if m else {}, out


for b in BUILDS:
    gcc = b == "xmmvals-O2"
    # where ratio is only in an SSE register: GCC moves it to xmm3 after
    # the entry; clang keeps it in xmm0 at its probe past the entry
    held = AFTER if gcc else "scale"
    reg = "xmm3" if gcc else "xmm0"
    fx = Fixture(b, [2000])
    mine, bt_entry, res = prints(fx.pid, "scale", ["n", "ratio", "f"], bt=True)
    gdb_entry, text_entry = gdb_frame_args(fx.pid, "scale", 0)
    held_res = prints(fx.pid, held, ["ratio"])[1]
    dry = run(["-p", fx.pid, "-s", "trace %s { print ratio; }" % held, "--dry-run"])
    expr = run(["-p", fx.pid, "-s", 'trace %s { print "{}", ratio + 0; }' % held, "--max-events", 1, "-q"])
    gdb, text = gdb_prints(fx.pid, "scale", ["n", "ratio", "f"])
    after, bt_after, res_after = prints(fx.pid, AFTER, ["f", "ratio"], bt=True)
    gdb_after, text_after = gdb_prints(fx.pid, AFTER, ["f", "ratio"])
    _, bt_callee, res_callee = prints(fx.pid, "xmm_clobber", [], bt=True)
    gdb_callee, text_callee = gdb_frame_args(fx.pid, "xmm_clobber", 1)
    pick, pick_bt, pick_res = prints(fx.pid, "pick", ["w"], bt=True)
    gdb_pick, text_pick = gdb_prints(fx.pid, "pick", ["w"])
    fx.stop()
    ptr = Fixture(b, [2000, "ptr"])
    ptr_mine, ptr_bt, ptr_res = prints(ptr.pid, "scale", ["ratio", "f"], bt=True)
    ptr_gdb, ptr_text = gdb_prints(ptr.pid, "scale", ["ratio", "f"])
    ptr.stop()
    check(res.returncode == 0, "%s: print of xmm values is not refused (%s)" % (b, res.stderr[-300:]))
    # n is i % 7 of the call hit: gdb's hit is a later call
    check(re.match(r"^[0-6]$", str(mine.get("n"))) and re.match(r"^[0-6]$", str(gdb.get("n"))),
          "%s: n, in rdi, prints as gdb prints it, one of main's 0..6 (%s, gdb %s)" % (b, mine.get("n"), gdb.get("n")))
    # the shape is there: gdb (ptrace) reads xmm0 and xmm1
    eq((gdb.get("ratio"), gdb.get("f")), ("2.5", "0.25"), "%s: gdb reads ratio and f in xmm0, xmm1" % b)
    if gcc:  # at the entry xmm0 and xmm1 still hold what main's call site says it passed
        eq((mine.get("ratio"), mine.get("f")), ("2.5", "0.25"),
           "%s: ratio and f at scale's entry are what main passed, as gdb prints them" % b)
        # called through a pointer, no call site the probe knows says
        eq((ptr_mine.get("ratio"), ptr_mine.get("f"), ptr_gdb.get("ratio"), ptr_gdb.get("f")),
           ("<unavailable>", "<unavailable>", "3.5", "0.5"),
           "%s: called through a pointer, ratio and f at the entry are <unavailable>, gdb reads them (%s)" % (
               b, ptr_text[-300:]))
        eq(((ptr_bt or [{}])[0].get("ratio"), (ptr_bt or [{}])[0].get("f")), ("<unavailable>", "<unavailable>"),
           "%s: and so are they in bt args" % b)
        # pick's jump table may land anywhere in it, its entry too: there
        # w is not known to be what main passed, and is not taken so
        eq((pick.get("w"), (pick_bt or [{}])[0].get("w"), gdb_pick.get("w")), ("<unavailable>", "<unavailable>", "2"),
           "%s: at the entry of pick, which has an indirect jump, w is <unavailable> (gdb: %s)" % (
               b, text_pick[-300:]))
        eq((pick_bt or [{}])[0].get("w@entry"), "2", "%s: bt args shows what main passed for w" % b)
    else:  # clang's call sites say nothing
        eq((mine.get("ratio"), mine.get("f"), ptr_mine.get("ratio")), ("<unavailable>",) * 3,
           "%s: ratio and f, in xmm0 and xmm1, print <unavailable>" % b)
    check(re.search(r"site 1 of 1 \(.*scale.*\) prints a marker .*\n.*'ratio' is in %s at this pc of %s, "
                    r"which a uprobe cannot read" % (reg, re.escape(held)), held_res.stderr) is not None,
          "%s: the site says once why ratio is <unavailable> (%s)" % (b, held_res.stderr[-400:]))
    check(dry.returncode == 0 and "cannot give <script>:1:" in dry.stdout and ("'ratio' is in %s" % reg) in dry.stdout,
          "%s: --dry-run lists what the site cannot give (%s)" % (b, dry.stdout[-400:]))
    check(expr.returncode == 2 and ("'ratio' is in %s at this pc of %s, which a uprobe cannot read" % (reg, held))
          in expr.stderr, "%s: an expression over ratio is refused, naming %s (%s)" % (b, reg, expr.stderr[-300:]))
    check(res_after.returncode == 0, "%s: print f at %s is not refused (%s)" % (b, AFTER, res_after.stderr[-300:]))
    eq(after.get("f"), gdb_after.get("f"), "%s: f at %s as gdb prints it (gdb: %s)" % (b, AFTER, text_after[-300:]))
    if gcc:  # GCC: f only from main's call site, a typed constant
        eq(gdb_after.get("f"), "0.25", "%s: gdb has f from main's call site" % b)
    # at scale's entry nothing ran since main's call: the SSE registers
    # still hold what main passed, so GCC's ratio and f are their entry
    # values, gdb's ratio=ratio@entry=2.5 (clang's call sites say
    # nothing: the markers stay where gdb reads the registers)
    entry = dict(bt_entry[0]) if bt_entry else {}
    gdb_entry["n"] = re.sub(r"\d+", "N", gdb_entry.get("n", ""))
    entry["n"] = re.sub(r"\d+", "N", entry.get("n", ""))
    if gcc:
        eq(entry, gdb_entry, "%s: bt args at scale's entry as gdb's bt (%s)" % (b, text_entry[-300:]))
        eq(entry.get("ratio"), "ratio@entry=2.5", "%s: ratio folds into gdb's shape" % b)
    else:
        eq((entry.get("ratio"), entry.get("f"), gdb_entry.get("ratio"), gdb_entry.get("f")),
           ("<unavailable>", "<unavailable>", "2.5", "0.25"),
           "%s: ratio and f <unavailable> at scale's entry, no call site says them (%s)" % (b, text_entry[-300:]))
    # bt args and print read ratio the same way at the same pc
    at = bt_after[0] if bt_after else {}
    eq(at.get("ratio"), after.get("ratio"), "%s: bt args and print agree on ratio at %s" % (b, AFTER))
    if gcc:  # GCC keeps ratio in xmm3 there, which gdb reads
        eq((after.get("ratio"), gdb_after.get("ratio")), ("<unavailable>", "2.5"),
           "%s: ratio at %s is <unavailable> where gdb reads xmm3 (%s)" % (b, AFTER, text_after[-300:]))
        eq(at.get("ratio@entry"), "2.5", "%s: bt args shows what main passed for ratio" % b)
    else:  # clang: no location there, as gdb says
        eq(after.get("ratio"), gdb_after.get("ratio"), "%s: ratio at %s as gdb prints it" % (b, AFTER))
    # at xmm_clobber's entry scale's registers are as at the call: its
    # ratio (gcc xmm3, clang xmm0 or a spill) is still there
    frame1 = bt_callee[1] if len(bt_callee) > 1 else {}
    check(res_callee.returncode == 0 and frame1, "%s: bt args at xmm_clobber (%s)" % (b, res_callee.stderr[-300:]))
    eq((frame1.get("ratio"), gdb_callee.get("ratio", "").replace("ratio@entry=", "")), ("<unavailable>", "2.5"),
       "%s: frame 1's ratio in its live SSE register is <unavailable>, gdb reads it (%s)" % (
           b, text_callee[-300:]))
    for n, g in gdb_callee.items():  # the others as gdb's (n: gdb stops at another call)
        if n not in ("n", "ratio"):
            eq(frame1.get(n, "<missing>").replace("%s@entry=" % n, ""), g.replace("%s@entry=" % n, ""),
               "%s: scale's %s at xmm_clobber as gdb's" % (b, n))
check_no_leftovers("after the xmm values")
finish()
