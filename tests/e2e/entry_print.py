"""entry_print.py - `print` of a parameter known only as what its caller
passed (DW_OP_entry_value), when the caller is in another module or calls
through a pointer (issue 23): the probe's own module names no call site
that matches, so the probe captures frame 0's registers and the stack
around its CFA, and userspace finds the call site by the return address,
as gdb does and as `bt args` does.  In the callers fixture, at
libfix_callee's TAKE-LINE, callee_take(o, k) is called from the program
(exe), from libfix_relay (lib) and through a function pointer held in a
callee-saved register (ptr); at callers.c's MAIN-LINE, main's argc and
argv are what libc's __libc_start_call_main passed (libc6-dbg); at
NAME-LINE, callee_name(s, k)'s char pointer s is a literal of the
program (exe) or a string on libfix_relay's stack (lib), printed with
its string read as bt args reads it, {:s} its characters.  Expressions
over o and k (k + 1, *o, a condition, let, a count bt key) are computed
by the probe, which knows the program's and libfix_relay's direct calls
of callee_take, and equal gdb's print of them.  Each
`print` equals gdb's print of the same name at the same line of the same
live process, and equals what `bt args` shows for it in the same event
(`k=k@entry=17`).  Built by gcc and clang at -O2.
"""
import re

from wraithtest import *

require_root()

BUILDS = ["callers-O2", "callers-clang-O2"]
TAKE = "libfix_callee.c:%d" % marker_line("libfix_callee.c", "/* TAKE-LINE")
MAIN = "callers.c:%d" % marker_line("callers.c", "/* MAIN-LINE")
NAME = "libfix_callee.c:%d" % marker_line("libfix_callee.c", "/* NAME-LINE")
STRINGS = {"exe": "from-the-program", "lib": "relay-5-on-stack"}
# what the fixture passes, per mode: (function, o's symbol, k)
PASSED = {"exe": ("x_call", "callers_obj", "17"), "lib": ("relay_call", "relay_obj", "29"),
          "ptr": ("x_through", "callers_obj", "41")}


def wraith_prints(pid, point, names):
    """{name: wraith's print of it} and {name: its value in the event's
    bt args frame 0} at @point of live process @pid, first event."""
    body = " ".join("print %s;" % n for n in names)
    res = run(["-p", pid, "-s", "trace %s { %s bt args; }" % (point, body), "--max-events", 1,
               "--script-output", "json", "-q"])
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s is traced (%s)" % (point, res.stderr[-300:]))
    if not ev:
        return {}, {}
    printed = [it["text"] for it in ev[0]["items"] if it["type"] == "print"]
    frames = [it for it in ev[0]["items"] if it["type"] == "backtrace"][0]["frames"]
    args = dict((a["name"], a["value"]) for a in frames[0].get("args", []))
    return dict(zip(names, [t.split(" = ", 1)[1] for t in printed])), args


def gdb_prints(pid, point, names):
    """{name: gdb's print of it} at breakpoint @point of live process @pid,
    main's caller shown as wraith's bt shows it (past-main: without it
    gdb gives main no caller, and so no entry values)."""
    cmds = ["set backtrace past-main on", "break %s" % point, "continue"] + ["print %s" % n for n in names] + ["detach"]
    argv = ["gdb", "-batch", "-nx", "-p", str(pid)]
    for c in cmds:
        argv += ["-ex", c]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    return dict(zip(names, re.findall(r"^\$\d+ = (.*)$", out, re.M))), out


def one(build, mode, point, names):
    fx = Fixture(build, [2000, mode])
    mine, bt = wraith_prints(fx.pid, point, names)
    gdb, text = gdb_prints(fx.pid, point, names)
    fx.stop()
    what = "%s %s at %s" % (build, mode, point)
    eq(mine, gdb, "%s: print as gdb's print (gdb: %s)" % (what, text[-500:]))
    # print and bt args read the same variable at the same pc
    for n in names:
        check(n in bt and (bt[n] == mine.get(n) or bt[n] == re.sub(r"^\([^)]*\) ", "", mine.get(n, ""))),
              "%s: print %s (%s) and bt args (%s) agree" % (what, n, mine.get(n), bt.get(n)))
    return gdb


# Expressions over them, in the probe: gdb's print of each at the same
# line of the same process.  (GCC's call through a pointer names its
# target as what x_through had on entry, which the probe does not follow
# into the program: there the expressions are <optimized out>, the
# condition an expression error that runs neither branch, and a count
# key counts nothing - never a value the program does not hold.)
EXPRS = ["k + 1", "k * 2", "k > 20", "*o", "o[0] + k"]


def exprs(build, mode):
    names = [x for x in EXPRS if "o" not in x or "clang" not in build]  # clang: o is <optimized out>
    fx = Fixture(build, [2000, mode])
    body = " ".join('print "{}", %s;' % x for x in names)
    script = "trace %s { %s if k > 20 { print \"big\"; } else { print \"small\"; } let j = k * 2; print \"{}\", j; }" % (TAKE, body)
    res = run(["-p", fx.pid, "-s", script, "--max-events", 1, "--script-output", "json", "-q"])
    counted = run(["-p", fx.pid, "-s", "trace %s { count bt, k; }" % TAKE, "--timeout", 2, "-q"])
    if "clang" in build:  # clang's call sites say nothing of o: as gdb, nothing to read through
        deref = run(["-p", fx.pid, "-s", 'trace %s { print "{}", *o; }' % TAKE, "--max-events", 1, "-q"])
        check(deref.returncode == 2 and "this pointer is optimized out at this pc" in deref.stderr,
              "%s %s: *o is refused, o being <optimized out> (%s)" % (build, mode, deref.stderr[-300:]))
    gdb, text = gdb_prints(fx.pid, TAKE, names)
    fx.stop()
    what = "%s %s at %s" % (build, mode, TAKE)
    ev = json_events(res.stdout)
    check(res.returncode == 0 and ev, "%s: expressions over entry values are traced (%s)" % (what, res.stderr[-300:]))
    items = ev[0]["items"] if ev else []
    printed = [it["text"] for it in items if it["type"] == "print"]
    errors = [it for it in items if it["type"] == "expr_error"]
    mine = dict(zip(names, printed))
    if "clang" not in build and mode == "ptr":
        eq(mine, dict((n, "<optimized out>") for n in names), what + ": the marker where the probe has no value")
        eq([(e["expr"], e["reason"]) for e in errors], [("k > 20", "optimized out")],
           what + ": the condition is an expression error")
        eq(printed[len(names):], ["<optimized out>"], what + ": neither branch runs; j is <optimized out>")
        check("ExprError: k (optimized out)" in counted.stdout and "k=" not in counted.stdout,
              "%s: count bt, k counts nothing and says why (%s)" % (what, counted.stdout[-300:]))
        return
    # a comparison is a boolean of the script (script-reference), gdb's int 0 or 1
    want = dict((n, {"0": "false", "1": "true"}.get(v, v) if ">" in n else v) for n, v in gdb.items())
    eq(mine, want, "%s: expressions as gdb's print (gdb: %s)" % (what, text[-400:]))
    big = "big" if gdb.get("k > 20") == "1" else "small"
    eq(printed[len(names):], [big, gdb.get("k * 2")], what + ": if takes gdb's branch, let binds gdb's value")
    check(errors == [], "%s: no expression error (%r)" % (what, errors))
    kval = int(gdb.get("k * 2", "0")) // 2
    check(re.search(r"\bk=%d\b" % kval, counted.stdout) is not None,
          "%s: count bt, k counts under k=%d (%s)" % (what, kval, counted.stdout[-300:]))


for b in BUILDS:
    for mode in sorted(PASSED):
        exprs(b, mode)
    for mode, (caller, obj, k) in sorted(PASSED.items()):
        gdb = one(b, mode, TAKE, ["o", "k"])
        # the shape is really there: gdb has them from the caller
        # (clang's call sites say nothing of rdi here: o is <optimized out>)
        check(gdb.get("k") == k and (("<%s>" % obj) in gdb.get("o", "") or "clang" in b),
              "%s %s: gdb's print o, k are what %s passed (%s)" % (b, mode, caller, gdb))
    for mode, text in sorted(STRINGS.items()):
        gdb = one(b, mode, NAME, ["s", "k"])
        # clang's call site in the program says nothing of rdi: s is <optimized out>
        check(gdb.get("s", "").endswith('"%s"' % text) or ("clang" in b and mode == "exe"),
              "%s %s: gdb's print s is what the caller passed (%s)" % (b, mode, gdb))
        if gdb.get("s", "").endswith('"%s"' % text):
            fx = Fixture(b, [2000, mode])
            res = run(["-p", fx.pid, "-s", 'trace %s { print "{:s}", s; }' % NAME, "--max-events", 1, "-q"])
            fx.stop()
            eq(res.stdout.strip().splitlines()[-1:], ["  " + text], "%s %s: {:s} of s is its string" % (b, mode))
    gdb = one(b, "exe", MAIN, ["argc", "argv"])
    check(gdb.get("argc") == "3" and gdb.get("argv", "").startswith("(char **) 0x"),
          "%s: gdb's print argc, argv at main are what libc passed (%s)" % (b, gdb))
check_no_leftovers("after the values callers passed")
finish()
