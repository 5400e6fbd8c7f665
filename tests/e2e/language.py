"""language.py - the script language beyond plain values, on the lang
fixture built by gcc and clang: `->`, the special variables (PID
namespaces included), and what each refuses, with the located error.

wraith prints at a hit of visit(); where gdb can say, gdb's `print` of
the same expression in the same live process is the oracle.
"""
import re
import subprocess

from wraithtest import *

require_root()

VARIANTS = ("O0", "O2", "clang-O0", "clang-O2")


def wraith_lines(pid, body, events=1, extra=()):
    script = "trace visit {\n" + body + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", events, "--script-output", "plain", "-q"]
              + list(extra))
    return res, res.stdout.splitlines()


def gdb_print(pid, exprs):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set pagination off",
            "-ex", "break visit", "-ex", "continue"]
    for e in exprs:
        argv += ["-ex", "print %s" % e]
    argv += ["-ex", "detach"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, LANG="C", LC_ALL="C")).stdout
    return [m.group(1) for m in re.finditer(r"^\$\d+ = (.*)$", out, re.M)]


def arrows(variant):
    fx = Fixture("lang-" + variant, [2000])
    exprs = ["n->id", "n->next->id", "n->next->tag", "head.next->next", "(*n).next->id",
             "n->next->bytes[1]"]
    res, got = wraith_lines(fx.pid, "".join('print "{}", %s;\n' % e for e in exprs))
    want = gdb_print(fx.pid, exprs)
    fx.stop()
    check(res.returncode == 0, "%s: -> prints (%s)" % (variant, res.stderr.strip()[-300:]))
    eq(len(want), len(exprs), "%s: gdb printed every -> expression" % variant)
    for e, g, w in zip(exprs, got, want):
        eq(g, w, "%s: print %s as gdb does" % (variant, e))


def errors(variant):
    fx = Fixture("lang-" + variant, [2000])
    res, _ = wraith_lines(fx.pid, "print head->id;\n")
    eq(res.returncode, 2, "%s: -> on a struct is a script error" % variant)
    check("2:7: error: '->id' needs a pointer, but head is a struct (struct node)" in res.stderr and
          "hint: use '.' for a member of a struct or union itself" in res.stderr,
          "%s: -> on a struct says to use '.' (%s)" % (variant, res.stderr.strip()))
    res, _ = wraith_lines(fx.pid, "print n->;\n")
    check(res.returncode == 2 and "expected a member name after '->'" in res.stderr,
          "%s: -> without a member is located (%s)" % (variant, res.stderr.strip()))
    fx.stop()


def specials(variant):
    fx = Fixture("lang-" + variant, [2000])
    res, got = wraith_lines(fx.pid, 'print "{} {} {} {} {}", $pid, $tid, $host_pid, $host_tid, '
                                    '$input_pid;\nprint "{}", $sp == $sp;\n')
    fx.stop()
    p = str(fx.pid)
    eq(got, ["%s %s %s %s %s" % (p, p, p, p, p), "true"],
       "%s: $pid, $tid, $host_pid, $host_tid, $input_pid of the main thread" % variant)
    res = run(["-t", fixture("lang-" + variant), "--dry-run", "-s",
               "trace visit {\n  print $input_pid;\n}\n"])
    eq(res.returncode, 2, "%s: $input_pid without -p is a script error" % variant)
    check("2:9: error: $input_pid is only available with -p" in res.stderr and
          "hint: start wraith with -p PID, or use $pid" in res.stderr,
          "%s: $input_pid without -p is located (%s)" % (variant, res.stderr.strip()))


def namespaces():
    """In a PID namespace of its own, the process sees itself as 1; $pid
    says so, $host_pid gives the host's id."""
    if not shutil.which("unshare"):
        fail("unshare(1) is needed for the PID namespace test (util-linux)")
        return
    proc = subprocess.Popen(["unshare", "--pid", "--fork", "--kill-child", fixture("lang-O0"), "2000"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        inner = re.match(r"ready (\d+)", line or "")
        kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                              text=True).stdout.split()
        if not check(inner and len(kids) == 1, "the fixture runs in a PID namespace (%r)" % line):
            return
        host = kids[0]
        res, got = wraith_lines(host, 'print "{} {} {} {}", $pid, $tid, $host_pid, $input_pid;\n')
        eq(got, ["%s %s %s %s" % (inner.group(1), inner.group(1), host, host)],
           "in a PID namespace: $pid and $tid as the process sees them, $host_pid as the host does")
    finally:
        proc.kill()
        proc.wait()


for variant in VARIANTS:
    arrows(variant)
    specials(variant)
errors("O0")
namespaces()
check_no_leftovers("after the language tests")
finish()
