"""bt_dlnow.py - dlopen without a window.  dlnow loads 50 fresh copies of
libfix_dl (files wraith has never seen) one after the other and calls into
each the moment dlopen() returns: main -> through_lib -> dl_run -> dl_step
(the new library) -> leaf.  wraith traces leaf from before the first
dlopen.  Every one of the 50 first calls must give a complete backtrace,
equal to gdb's at the same place, through the copy just loaded: the kernel
hands a walk it cannot finish to userspace, which learns the new mapping
and finishes it from the copy of the stack."""
import re
import shutil
import signal
import tempfile

from bt_support import *

require_root()
N = 50


def lib_copies(v, n):
    d = tempfile.mkdtemp(prefix="wraith-dlnow-")
    src = fixture("libfix_dl-%s.so" % v)
    for i in range(n):
        shutil.copy(src, os.path.join(d, "lib.%d" % i))
    return d


def same_lib(groups):
    """Groups with every copy of the library named alike."""
    return [(names, "lib" if mod and re.match(r"lib\.\d+$", mod) else mod) for names, mod in groups]


def trace(v):
    d = lib_copies(v, N)
    fx = Fixture("dlnow-%s" % v, [d, N])
    out = {"events": [], "rc": None, "stderr": ""}
    proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", "trace leaf { bt; }", "--script-output",
                             "json", "--max-events", str(N), "--timeout", "40"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = proc.stderr.readline()
        if "tracing" in ready:
            os.kill(fx.pid, signal.SIGUSR1)
        stdout, stderr = proc.communicate(timeout=80)
        out["rc"], out["stderr"] = proc.returncode, ready + stderr
        out["events"] = json_events(stdout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        fx.stop()
        shutil.rmtree(d)
    return out


def gdb_stack(v):
    d = lib_copies(v, 1)
    try:
        return gdb_stacks(fixture("dlnow-%s" % v), [d, 1, "now"], 1)
    finally:
        shutil.rmtree(d)


def one(v):
    with ThreadPoolExecutor(max_workers=1) as ex:
        g = ex.submit(gdb_stack, v)
        return v, trace(v), g.result()


for v, got, stacks in parallel(one, ("O2", "clang-O2")):
    label = "dlnow-%s" % v
    own = {"dlnow-%s" % v, "lib"}
    if not check(len(stacks) == 1, "%s: gdb stopped at leaf" % label):
        continue
    gg = same_lib(gdb_groups(stacks[0], cut_main=False))
    check(flat(gg)[:5] == ["leaf", "dl_step", "dl_run", "through_lib", "main"],
          "%s: gdb's stack goes through the library (%s)" % (label, flat(gg)))
    eq(got["rc"], 0, "%s: wraith exits 0 (%r)" % (label, got["stderr"][-300:]))
    eq(len(got["events"]), N, "%s: one event per call, %d calls" % (label, N))
    bad, libs = [], []
    for i, ev in enumerate(got["events"]):
        bt = ev["items"][0]
        wg = wraith_groups(bt, cut_main=False)
        why = None if bt["status"] == "complete" else "status %s (%s)" % (bt["status"], bt["error"])
        why = why or diff_groups(same_lib(wg), gg, own)
        if why:
            bad.append("event %d: %s: %s" % (i, why, flat(wg)))
        libs.append(wg[1][1] if len(wg) > 1 else None)
    check(not bad, "%s: every first call after its dlopen gives a complete backtrace equal to "
          "gdb's%s" % (label, "".join("\n       " + b for b in bad[:3])))
    eq(libs, ["lib.%d" % i for i in range(len(libs))],
       "%s: each backtrace goes through the copy loaded just before" % label)

check_no_leftovers("after the dlopen-then-call test")
finish()
