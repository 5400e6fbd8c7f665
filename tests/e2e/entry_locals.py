"""entry_locals.py - a local whose only location at a frame's pc is
what a parameter's register held at the function's entry
(DW_OP_entry_value), in an outer frame of `bt full`: entrylocal.c's
relay() keeps `struct job *j = arg;` in no register past its call of
leaf(), and is entered through a pointer (dispatch(), whose call
target is the entry value of its own parameter, as Lua's
luaD_rawrunprotected calls f_call) and directly (main).  gdb resolves
the local as it resolves the parameter (`arg=arg@entry=0x7ffc...`,
`j = 0x7ffc...`, no @entry on the local); wraith showed the parameter
and `j = <optimized out>` when the call was through the pointer.
relay's parameters and locals equal gdb's bt full at the same stop of
the same program, for both callers; gcc and clang-19, -O0 and -O2.
And `print j` in relay itself past the call (AFTER-LINE), where j is
the entry value too: print captures the caller's frame for it as for a
parameter, and equals gdb's print j at the same line, for both
callers.  And two hand-offs: pass_on(j) calls take(j) passing its own
entry value on (DW_OP_entry_value in the call site's DW_AT_call_value,
as CPython's Py_DECREF calls _Py_Dealloc), and take's j past its call
is its entry value: gdb follows main's call site for both, and so does
wraith's bt, and its print of take's j past the call (main has more
calls of pass_on than the probe's own tree of callers holds)."""
import subprocess

from wraithtest import *

require_root()

FRAME = re.compile(r"^\s*#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) ?\((.*?)\)(?: at .*)?$")
LOCAL = re.compile(r"^\s{8,}(\w+) = (.*)$")


def relays(text):
    """{caller of relay: (relay's argument text, [(local, value)])} of
    the backtraces in @text (gdb's or wraith's bt full)."""
    out, cur = {}, None
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            if cur is not None and cur[0] is None:
                out[m.group(1)] = cur[1:]
                cur = None
            if m.group(1) == "relay":
                cur = [None, m.group(2), []]
            continue
        m = LOCAL.match(line)
        if m and cur is not None:
            cur[2].append(m.groups())
    return out

AFTER = "entrylocal.c:%d" % marker_line("entrylocal.c", "/* AFTER-LINE")


def wraith_prints(pid):
    """{caller: wraith's print j} at AFTER in live process @pid."""
    res = run(["-p", pid, "-s", "trace %s { print j; bt; }" % AFTER, "--max-events", 6,
               "--script-output", "plain", "-q"])
    out = {}
    for m in re.finditer(r"^j = (.*)\n.*\n.*\n  #1 (\w+)\(", res.stdout, re.M):
        out[m.group(2)] = m.group(1)
    return out, res.stdout


def gdb_prints(pid):
    """{caller: gdb's print j} at AFTER in live process @pid."""
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break " + AFTER, "-ex", "continue",
                          "-ex", "print j", "-ex", "bt 2", "-ex", "continue", "-ex", "print j", "-ex", "bt 2",
                          "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    return {caller: val for val, caller in
            re.findall(r"^\$\d+ = (.*)\n#0 .*\n#1 +0x[0-9a-f]+ in (\w+) ", gdb, re.M)}


def handoffs(text):
    """{function: its argument text} of leaf, take and pass_on in the
    first backtrace of @text (gdb's or wraith's) that has take."""
    out = {}
    for line in text.splitlines():
        m = FRAME.match(line)
        if m and m.group(1) == "leaf":
            out = {"leaf": m.group(2)}
        elif m and m.group(1) in ("take", "pass_on"):
            out.setdefault(m.group(1), m.group(2))
        elif m and m.group(1) == "main" and out:
            break
    return out


def gdb_handoffs(pid):
    """handoffs() of gdb's bt at leaf called by take, called by pass_on."""
    return handoffs(subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break take", "-ex", "continue",
                                    "-ex", "delete", "-ex", "break leaf", "-ex", "continue", "-ex", "bt 3",
                                    "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout)


TAKE = "entrylocal.c:%d" % marker_line("entrylocal.c", "/* TAKE-LINE")


def take_prints(pid):
    """(wraith's print j at TAKE, bt args' j of frame 0 in the same event,
    gdb's print j there), each address as &handed[k]."""
    res = run(["-p", pid, "-s", "trace %s { print j; bt args; }" % TAKE, "--max-events", 1,
               "--script-output", "plain", "-q"])
    printed = re.search(r"^\s*j = (.*)$", res.stdout, re.M)
    frame = re.search(r"#0 take\(j=(.*?)\) at ", res.stdout)
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "break " + TAKE, "-ex", "continue",
                          "-ex", "print j", "-ex", "detach"], capture_output=True, text=True, timeout=120).stdout
    theirs = re.search(r"^\$\d+ = (.*)$", gdb, re.M)
    printed, frame, theirs = [m.group(1) if m else None for m in (printed, frame, theirs)]
    agree = printed and frame and re.sub(r"^\(struct job \*\) ", "", printed) == re.sub(r"^j@entry=", "", frame)
    return [re.sub(r"0x[0-9a-f]+ <handed\+?\d*>", "&handed[k]", v) if v else None
            for v in (printed, theirs)] + [agree, (printed, frame)]


for build in ("entrylocal-O0", "entrylocal-O2", "entrylocal-clang-O0", "entrylocal-clang-O2"):
    fx = Fixture(build)
    res = run(["-p", fx.pid, "-s", "trace leaf { bt full; }", "--max-events", 6, "--script-output", "plain",
               "-q"])
    ours = relays(res.stdout)
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break leaf", "-ex", "continue",
                          "-ex", "bt full", "-ex", "continue", "-ex", "bt full", "-ex", "detach"],
                         capture_output=True, text=True, timeout=120).stdout
    prints, text = wraith_prints(fx.pid)
    gdb_print = gdb_prints(fx.pid)
    gdb_hand = gdb_handoffs(fx.pid)
    take_print, take_gdb, agree, texts = take_prints(fx.pid)
    fx.stop()
    eq(take_print, take_gdb, "%s: print j in take past its call is gdb's" % build)
    check(agree, "%s: print j and bt args' j agree in the event (%r)" % (build, texts))
    # take's j past its call of leaf is the entry value, which pass_on's
    # call site gives as pass_on's own entry value, which main's gives
    hand = {}
    for ev in re.split(r"\n(?=\S)", res.stdout):
        hand = handoffs(ev)
        if "take" in hand:
            break
    eq(sorted(gdb_hand), ["leaf", "pass_on", "take"], "%s: gdb stops in leaf called by take, by pass_on" % build)
    # main passes one of six jobs, handed[k] whose base leaf gets is 50 + k:
    # gdb stopped at another call than the event's
    for who, h in (("wraith", hand), ("gdb", gdb_hand)):
        total = re.search(r"total=(?:total@entry=)?(\d+)", h.get("leaf", ""))
        for fn in ("take", "pass_on"):
            m = re.search(r"<handed\+?(\d*)>", h.get(fn, ""))
            if m and total:
                eq(50 + int(m.group(1) or 0) // 16, int(total.group(1)),
                   "%s: %s's %s names the job leaf was given" % (build, who, fn))
    for h in (hand, gdb_hand):
        for fn in h:
            h[fn] = re.sub(r"0x[0-9a-f]+ <handed\+?\d*>", "&handed[k]", h[fn])
    eq(hand.get("take"), gdb_hand.get("take"),
       "%s: take's j, handed on by pass_on from main, is gdb's (%r)" % (build, res.stdout[-1500:]))
    want = gdb_hand.get("pass_on")
    if build == "entrylocal-clang-O2":
        # clang says j is in rdi up to the call's return address, where gdb
        # reads a register the call clobbered (the total leaf got); at the
        # call rdi held what pass_on was passed, as its call site says:
        # the value is the entry value, when main's call site says it
        m = re.match(r"^j=0x[0-9a-f]+(?:, j@entry=(&handed\[k\]))?$", want or "")
        if m:
            want = "j=j@entry=" + m.group(1) if m.group(1) else "j=<optimized out>"
    eq(hand.get("pass_on"), want, "%s: pass_on's j is gdb's" % build)
    if build == "entrylocal-O2":
        # what the test is for: GCC describes main's calls of pass_on
        check(hand.get("take") == "j=j@entry=&handed[k]",
              "%s: take's j is the entry value (%r)" % (build, hand))
    eq(sorted(gdb_print), ["dispatch", "main"], "%s: gdb prints j when dispatch and main called relay" % build)
    eq(prints, gdb_print, "%s: print j past the call is gdb's, for both callers (%r)" % (build, text[-800:]))
    theirs = relays(gdb)
    eq(sorted(theirs), ["dispatch", "main"], "%s: gdb stops in relay called by dispatch and by main" % build)
    eq(sorted(ours), ["dispatch", "main"], "%s: wraith's events have relay called by dispatch and by main (%r)"
       % (build, res.stdout[-1500:]))
    for caller in sorted(set(ours) & set(theirs)):
        want = theirs[caller][0]
        if build == "entrylocal-clang-O2" and caller == "dispatch":
            # clang's call site names its target by RAX, which the call
            # clobbers: gdb reads it anyway (and finds relay only because
            # relay left RAX alone); wraith cannot know what the call
            # called, so what it passed stays unknown
            want = "extra=<optimized out>, arg=<optimized out>"
        eq(ours[caller][0], want, "%s: relay's parameters when %s called it are gdb's" % (build, caller))
        eq(ours[caller][1], theirs[caller][1], "%s: relay's locals when %s called it are gdb's" % (build, caller))
    if build == "entrylocal-O2":
        # the case the test is for: GCC describes j by the entry value
        check(re.match(r"0x[0-9a-f]+$", dict(ours.get("dispatch", ("", []))[1]).get("j", "")),
              "%s: relay's j through the pointer is the address the call passed (%r)"
              % (build, ours.get("dispatch")))
check_no_leftovers("after the entry-value locals")
finish()
