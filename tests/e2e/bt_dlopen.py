"""bt_dlopen.py - a library loaded with dlopen after wraith attached, in
every build.  dlhost calls leaf (in the executable) once per iteration:
main -> direct -> leaf until it gets SIGUSR1, then it dlopens
libfix_dl-VARIANT.so and goes main -> through_lib -> dl_run -> dl_step
(the new library) -> leaf (a callback).  wraith traces leaf from before
the dlopen.  Before the load, stacks equal gdb's direct stack; after it,
stacks through the library equal gdb's and are complete; while wraith has
not yet learnt about the new mapping, a frame in it stops the walk with
status offsets-unavailable, never with a wrong frame."""
import signal
import time

from bt_support import *

require_root()


def maps_range(pid, needle):
    lo, hi = None, None
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if needle in line:
                a, b = (int(x, 16) for x in line.split()[0].split("-"))
                lo = a if lo is None else min(lo, a)
                hi = b if hi is None else max(hi, b)
    return lo, hi


def trace_through_dlopen(v):
    """Events before and after the dlopen, and where the library landed."""
    name = "dlhost-%s" % v
    out = {"pre": [], "post": [], "lib": (None, None), "error": None}
    fx = Fixture(name, [1000, -1])
    proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", "trace leaf { bt; }", "--script-output",
                             "json", "--timeout", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        status = proc.stderr.readline()
        if "tracing" not in status:
            out["error"] = "wraith did not start: %r" % status
            return out
        while len(out["pre"]) < 5:
            line = proc.stdout.readline()
            if not line:
                break
            out["pre"].append(json_line(line))
        os.kill(fx.pid, signal.SIGUSR1)
        loaded = fx.proc.stdout.readline().strip()
        if not loaded.startswith("loaded at "):
            out["error"] = "dlhost did not load its library: %r" % loaded
            return out
        out["lib"] = maps_range(fx.pid, "libfix_dl-%s.so" % v)
        through = 0
        deadline = time.time() + 15
        while through < 5 and time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            ev = json_line(line)
            out["post"].append(ev)
            bt = ev["items"][0]
            if bt["status"] == "complete" and any(f["function"] == "dl_step" for f in bt["frames"]):
                through += 1
    except ValueError as e:
        out["error"] = "wraith printed invalid JSON: %s" % e
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        fx.stop()
    return out


def one(v):
    binary = fixture("dlhost-%s" % v)
    # gdb: iterations 0 and 1 direct, 2 and 3 through the library
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stacks, binary, [0, 4, 2], 3)
        got = trace_through_dlopen(v)
        return v, binary, got, g.result()


for v, binary, got, stacks in parallel(one, VARIANTS):
    label = "dlhost-%s" % v
    own = own_modules(binary, ["libfix_dl-%s.so" % v])
    if got["error"] or not check(len(stacks) == 3, "%s: gdb stopped at leaf 3 times" % label):
        if got["error"]:
            fail("%s: %s" % (label, got["error"]))
        continue
    direct, through = stacks[0], stacks[2]
    check(flat(gdb_groups(through))[:5] == ["leaf", "dl_step", "dl_run", "through_lib", "main"],
          "%s: gdb's second stack goes through the library (%s)" % (label, flat(gdb_groups(through))))
    eq(len(got["pre"]), 5, "%s: 5 events before the dlopen" % label)
    for ev in got["pre"]:
        bt = ev["items"][0]
        check(bt["status"] == "complete", "%s: before the dlopen: complete (%s)" % (label, bt["status"]))
        compare_stack(bt, direct, own, "%s: before the dlopen: frames equal gdb's" % label, cut_main=False)
    lo, hi = got["lib"]
    check(lo is not None, "%s: the library is mapped after the dlopen" % label)
    n_through, n_unknown, bad = 0, 0, []
    for ev in got["post"]:
        bt = ev["items"][0]
        wg = wraith_groups(bt, cut_main=False)
        if bt["status"] == "complete":
            gdb_stack = through if any(f["function"] == "dl_step" for f in bt["frames"]) else direct
            why = diff_groups(wg, gdb_groups(gdb_stack, cut_main=False), own)
            n_through += gdb_stack is through
        elif bt["status"] == "offsets-unavailable":
            # stops at the first frame in the library it does not know yet
            last = bt["frames"][-1]
            n_unknown += 1
            why = diff_groups(wg[:-1], gdb_groups(through, cut_main=False), own, prefix=True)
            if why is None and (last["module"] is not None or last["function"] is not None):
                why = "the last frame is named (%s in %s)" % (last["function"], last["module"])
            if why is None and lo is not None and not lo <= int(last["ip"], 16) < hi:
                why = "the last frame's ip %s is not in the library [%#x, %#x)" % (last["ip"], lo, hi)
        else:
            why = "status %s (%s)" % (bt["status"], bt["error"])
        if why:
            bad.append("%s: %s" % (why, flat(wg)))
    check(n_through >= 5, "%s: complete stacks through the new library after the dlopen (%d)" % (label, n_through))
    check(not bad, "%s: every event after the dlopen is gdb's stack or stops at the unknown "
          "module (%d stopped there)%s" % (label, n_unknown, "".join("\n       " + b for b in bad[:3])))

check_no_leftovers("after the dlopen test")
finish()
