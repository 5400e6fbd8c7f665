"""tls_libs.py - thread-local variables of shared libraries, on the
tlslib fixture built by gcc and clang: libfix_tls's block is static (the
library is linked), libfix_tlsdl's is dlopen'ed and exists in a thread
only once it used it (its even-numbered workers).  Each thread's values,
probed in the library (lib_tick) and in the program (app_tick, visit),
are gdb's `print` of the same thread (gdb reads them through
libthread_db); a thread without a dlopen'ed block is
<not allocated in this thread> where gdb says it has not allocated
storage.  Without -p a library's thread-local variable is a located error.
"""
import json
import re
import subprocess

from wraithtest import *

require_root()

VARIANTS = ("O0", "O2", "clang-O0", "clang-O2")
WORKERS = 3
SCRIPT = ('trace lib_tick {\n  print "L {} {} {} {}", $tid, k, lib_tls_id, lib_tls_name;\n}\n'
          'trace app_tick {\n  print "A {} {} {} {}", $tid, k, lib_tls_id, dl_tls_val;\n}\n'
          'trace visit {\n  print "M {} {} {} {}", $tid, lib_tls_id, lib_tls_name, dl_tls_val;\n}\n')
UNALLOCATED = "<not allocated in this thread>"


def gdb_threads(pid, exprs):
    """{lwp: [gdb's print of each of exprs in that thread]}; a value gdb
    says is not allocated yet is UNALLOCATED."""
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set pagination off"]
    for e in exprs:
        argv += ["-ex", "thread apply all -c print %s" % e]
    argv += ["-ex", "detach"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, LANG="C", LC_ALL="C")).stdout
    values, lwp = {}, None
    for line in out.splitlines():
        m = re.match(r"^Thread \d+ \(.*\(LWP (\d+)\)", line)
        if m:
            lwp = int(m.group(1))
            continue
        m = re.match(r"^\$\d+ = (.*)$", line)
        if lwp is not None and m:
            values.setdefault(lwp, []).append(m.group(1))
            lwp = None
        elif lwp is not None and "has not yet allocated storage for thread-local" in line:
            values.setdefault(lwp, []).append(UNALLOCATED)
            lwp = None
    return values


def per_thread(variant):
    fx = Fixture("tlslib-" + variant, [20000, WORKERS])
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 4 * (2 * WORKERS + 1),
               "--script-output", "plain", "-q"])
    gdb = gdb_threads(fx.pid, ["lib_tls_id", "lib_tls_name", "dl_tls_val"])
    fx.stop()
    check(res.returncode == 0, "%s: wraith reads libraries' thread-local variables (%s)"
          % (variant, res.stderr.strip()[-300:]))
    eq(len(gdb), WORKERS + 1, "%s: gdb printed every thread" % variant)
    seen = {}
    for line in res.stdout.splitlines():
        kind, tid, rest = line.split(" ", 2)
        seen.setdefault(kind, {})[int(tid)] = rest
    eq(sorted(seen), ["A", "L", "M"], "%s: every probe printed" % variant)
    for tid, rest in sorted(seen.get("L", {}).items()):
        k = int(rest.split()[0])
        want = gdb.get(tid, ["?"] * 3)
        eq(rest, "%d %s %s" % (k, want[0], want[1]),
           "%s: in the library, thread %d (worker %d) reads its static block as gdb" % (variant, tid, k))
        eq(want[0], str(k), "%s: worker %d set its own lib_tls_id" % (variant, k))
    for tid, rest in sorted(seen.get("A", {}).items()):
        k = int(rest.split()[0])
        want = gdb.get(tid, ["?"] * 3)
        eq(rest, "%d %s %s" % (k, want[0], want[2]),
           "%s: in the program, worker %d reads both libraries' blocks as gdb" % (variant, k))
        eq(want[2], str(k * 10) if k % 2 == 0 else UNALLOCATED,
           "%s: worker %d has a dlopen'ed block only when it used it" % (variant, k))
    eq(len(seen.get("L", {})), WORKERS, "%s: every worker hit lib_tick" % variant)
    eq(len(seen.get("A", {})), WORKERS, "%s: every worker hit app_tick" % variant)
    for tid, rest in seen.get("M", {}).items():
        want = gdb.get(tid, ["?"] * 3)
        eq(rest, " ".join(want), "%s: the main thread as gdb prints it" % variant)
        eq(want[2], UNALLOCATED, "%s: the main thread never used the dlopen'ed library" % variant)


def json_status():
    fx = Fixture("tlslib-O0", [20000, WORKERS])
    res = run(["-p", fx.pid, "-s", "trace visit {\n  print dl_tls_val;\n}\n", "--max-events", 1,
               "--script-output", "json", "-q"])
    fx.stop()
    events = json_events(res.stdout)
    args = [a for it in (events[0]["items"] if events else []) if it["type"] == "print"
            for a in it["args"]]
    eq([(a["value"], a["error"]) for a in args], [(None, "tls-unallocated")],
       "NDJSON: a thread without the dlopen'ed block is error tls-unallocated")


def without_pid():
    lib = fixture("libfix_tls-O0.so")
    res = run(["-t", lib, "--dry-run", "-s", "trace lib_tick {\n  print lib_tls_id;\n}\n"])
    eq(res.returncode, 2, "-t LIBRARY: a library's thread-local variable is a script error")
    check("2:9: error: 'lib_tls_id' is thread-local, and a library's thread-local variables are "
          "found through the dynamic linker of one process" in res.stderr and
          "hint: trace one process with -p PID" in res.stderr,
          "-t LIBRARY: the error is located and says -p is needed (%s)" % res.stderr.strip())


for variant in VARIANTS:
    per_thread(variant)
json_status()
without_pid()
check_no_leftovers("after the thread-local variables of libraries")
finish()
