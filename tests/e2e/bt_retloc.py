"""bt_retloc.py - a caller's parameters that its code moved, before the
call, to registers the call preserves, while its location list names the
register they came in over the call instruction itself (clang -O2:
retloc.c's mid() copies s from rsi to rbx and the list says rbx only from
the address the call returns to).  A caller's frame is located at the
call's last byte, where rsi, which the call may change, cannot be trusted:
`bt args` in leaf() past its entry reads s from rbx, where the list says it is once the
call returns (nothing of mid() runs in between, and leaf() gives rbx back
as it found it), so frame 1 shows mid(ctx=<&g_ctx>, s=k - 1), the values
the program passed: the same as gdb's bt, which reads rsi as leaf()
left it.  GCC keeps s in rsi and ctx in rdx over the call, knowing leaf()
leaves them alone (-fipa-ra), and its locations at the call say so: in a
GCC unit, whose locations at a call's last byte tell what the callee
really changes, a caller-saved register they name is what the register
holds at the hit, as gdb reads it, so frame 1 shows the values the
program passed there too (it showed <optimized out> before)."""
from wraithtest import *

require_root()

# past leaf()'s entry, where what a call may change is no longer known
RET = "retloc.c:%d" % marker_line("retloc.c", "/* LEAF-RET")

for v in ("O2", "clang-O2"):
    name = "retloc-" + v
    fx = Fixture(name)
    res = run(["-p", fx.pid, "-s", "trace %s { print k; bt args; }" % RET, "--max-events", 3, "--script-output",
               "json", "-q"])
    ctx = subprocess.run(["gdb", "-batch", "-nx", "-ex", "print/x &g_ctx", fixture(name)], capture_output=True,
                         text=True, timeout=60).stdout
    theirs = gdb_bt_args(fx.pid, RET)[0]
    fx.stop()
    events = json_events(res.stdout)
    check(res.returncode == 0 and len(events) == 3, "%s: three events at leaf (%s)" % (name, res.stderr[-300:]))
    m = re.search(r"\$1 = (0x[0-9a-f]+)", ctx)
    check(m is not None, "%s: gdb gives g_ctx's address (%s)" % (name, ctx[-200:]))
    for ev in events:
        k = [it["args"][0]["value"] for it in ev["items"] if it["type"] == "print"][0]
        frames = [it for it in ev["items"] if it["type"] == "backtrace"][0]["frames"]
        args = dict((a["name"], a["value"]) for a in frames[1].get("args", []))
        eq(frames[1]["function"], "mid", "%s: frame 1 is mid" % name)
        # the link-time address, the program is PIE: compare the low bits
        want_ctx = int(m.group(1), 16) & 0xfff if m else None
        got_ctx = args.get("ctx", "")
        want_s = str(int(k) - 1)
        check(re.match(r"0x[0-9a-f]+", got_ctx) is not None and int(got_ctx.split()[0], 16) & 0xfff == want_ctx,
              "%s: mid's ctx is &g_ctx, the pointer the program passed (%s)" % (name, got_ctx))
        eq(args.get("s"), want_s, "%s: mid's s is leaf's k - 1, as the program passed it" % name)
    # gdb reads rsi as leaf() left it: the same values here
    gk = re.search(r"k=(?:k@entry=)?(\d+)", theirs[0][1]) if theirs else None
    gs = re.search(r"\bs=(?:s@entry=)?(\d+)", theirs[1][1]) if len(theirs) > 1 else None
    check(gk is not None and gs is not None and int(gs.group(1)) == int(gk.group(1)) - 1,
          "%s: gdb's bt shows mid's s as leaf's k - 1 too (%r)" % (name, theirs[:2]))
check_no_leftovers("after parameters moved before a call")
finish()
