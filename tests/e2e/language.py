"""language.py - the script language beyond plain values, on the lang
fixture built by gcc and clang: `->`, the special variables (PID
namespaces included), thread-local variables of each thread, strncmp/starts_with/memcmp/hex on pointers and
arrays of any type with lengths known only at run time (a memcmp length of 0
or less, constant or computed, compares nothing: true), failed reads as
expression errors (the address and why; the rest of the event prints),
and what each refuses, with the located error.

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


BUILTINS = r"""
  print "sw {} {}", starts_with(req, "GET"), starts_with(req, "PUT");
  print "m {} {}", memcmp(n->bytes, hex("de ad be ef")), memcmp(n->bytes, hex("de ad be ee"));
  print "m2 {} {}", memcmp(&blob[4], req, 4), memcmp(&blob[4], req, len + 7);
  print "m3 {}", memcmp(words, hex("44 33 22 11"));
  print "sn {} {}", strncmp(opaque, "GET", len - 1), strncmp(n->next->bytes, "GETX", len - 1);
  print "sn2 {} {}", strncmp(n->next->bytes, "GETX", len), strncmp(tail.tag, "tai", 3);
  print "zero {} {}", strncmp(opaque, "XYZ", len - 10), memcmp(n->next->next, n, 0);
  print "neg {} {} {}", memcmp(n->next->next, hex("00"), -1), memcmp(n, n->next, 2 - 7), memcmp(n, n->next, len - 100);
  print "bad {}", memcmp(cast(16, "unsigned char *"), hex("00"));
  if memcmp(n->next->next, hex("00")) { print "never"; }
  if n->next->next->id == 1 { print "then"; } else { print "else"; }
  if *cast(16, "int *") > 0 { print "then2"; } else if n->id == 1 { print "elif"; } else { print "else2"; }
  print "sn3 {}", strncmp(cast(24, "char *"), "abc", len);
  print "after";
"""
BUILTINS_OUT = [
    "sw true false",
    "m true false",
    "m2 true false",
    "m3 true",
    "sn true true",
    "sn2 false true",
    "zero true true",
    "neg true true true",
    'ExprError: memcmp(cast(16, "unsigned char *"), hex("00")) (read error at 0x0000000000000010, '
    'flags: first-arg read-fail)',
    "bad false",
    'ExprError: memcmp(n->next->next, hex("00")) (null deref at NULL, flags: first-arg read-fail)',
    "ExprError: n->next->next->id == 1 (null deref at NULL)",
    'ExprError: *cast(16, "int *") > 0 (read error at 0x0000000000000010)',
    "elif",
    'ExprError: strncmp(cast(24, "char *"), "abc", len) (read error at 0x0000000000000018, '
    'flags: first-arg read-fail,len-clamped)',
    "sn3 false",
    "after",
]


def builtins(variant):
    fx = Fixture("lang-" + variant, [2000])
    res, got = wraith_lines(fx.pid, BUILTINS)
    eq(got, BUILTINS_OUT, "%s: comparisons of any pointer, failed reads as expression errors (%s)"
       % (variant, res.stderr.strip()[-300:]))
    res = run(["-p", fx.pid, "-s", "trace visit {\n" + BUILTINS + "}\n", "--max-events", 1,
               "--script-output", "json", "-q"])
    fx.stop()
    items = json_events(res.stdout)[0]["items"] if res.returncode == 0 else []
    errs = [i for i in items if i["type"] == "expr_error"]
    eq(errs[:1], [{"type": "expr_error", "expr": 'memcmp(cast(16, "unsigned char *"), hex("00"))',
                   "code": 2, "reason": "read error", "addr": "0x10",
                   "flags": "first-arg read-fail"}], "%s: an expression error in NDJSON" % variant)


DUMPS = r"""
  let k = 6;
  print "x {:x.4} X {:X.4} s {:s.16}", n->bytes, n->bytes, req;
  print "star {:x.*} var {:s.k$}", len, blob, opaque;
  print "arr {:x.8} int {:x.4} struct {:x.8} tag {:s.0x8}", words, n->id, *n, n->tag;
  print "neg {:x.*}|", len - 10, blob;
  print "cut {:x.257}", n->bytes;
  print "bad {:x.4} null {:s.4}", cast(16, "char *"), n->next->next;
  print "after";
"""


def dumps(variant):
    fx = Fixture("lang-" + variant, [2000])
    res, got = wraith_lines(fx.pid, DUMPS)
    fx.stop()
    cut = got[4] if len(got) > 4 else ""
    want = [
        "x de ad be ef X DE AD BE EF s GET /index.html ",
        "star de ad be ef var GET /i",
        "arr 44 33 22 11 ff ff ff ff int 01 00 00 00 struct 01 00 00 00 68 65 61 64 tag head",
        "neg |",
        cut,
        "bad <error: Cannot access memory at address 0x10> null <error: null pointer>",
        "after",
    ]
    eq(got, want, "%s: memory dumps (%s)" % (variant, res.stderr.strip()[-300:]))
    check(cut.startswith("cut de ad be ef 47 45 54 20 2f 69 6e 64 65 78 00 7f 01 02") and
          cut.endswith(" ... (256 of 257 bytes: a dump shows at most 256)") and
          len(cut.split(" ... ")[0].split()) == 257, "%s: a dump past the cap says so" % variant)


def tls(variant):
    """Thread-local variables of the program: each thread sees its own."""
    fx = Fixture("lang-" + variant, [20000, 2])
    script = ("trace worker_tick {\n  print \"k={} id={} name={:s.16} {:x.4}\", k, tls_id, tls_name, "
              "tls_id;\n}\ntrace visit {\n  print \"{} {}\", tls_id, tls_name;\n}\n")
    # until two workers' events and one of main's are in (any order: under
    # load the workers may take the first many)
    res = run_until(["-p", fx.pid, "-s", script, "--script-output", "plain", "-q", "--timeout", 90],
                    lambda ls: sum(l.startswith("k=") for l in ls) >= 2 and
                    any(not l.startswith("k=") for l in ls))
    want = gdb_print(fx.pid, ["tls_id", "tls_name"])
    fx.stop()
    lines = res.stdout.splitlines()
    workers = [l for l in lines if l.startswith("k=")]
    main = [l for l in lines if not l.startswith("k=")]
    check(len(workers) >= 2 and all(
        re.match(r"k=(\d+) id=\1 name=worker-\1 ([0-9a-f]{2}) 00 00 00$", l) and
        int(l.split()[-4], 16) == int(l.split()[0][2:]) % 256 for l in workers),
        "%s: each worker thread reads its own thread-local variables (%r %s)"
        % (variant, workers, res.stderr.strip()[-300:]))
    eq(main[:1], ["%s %s" % (want[0], want[1])] if len(want) == 2 else ["?"],
       "%s: the main thread's thread-local variables as gdb prints them" % variant)


def short_circuit(variant):
    """A constant left side that decides && or || leaves the right side
    unevaluated, so it may be what no condition takes (a struct, as
    GhostScope's scripts write it) or a NULL pointer's referent."""
    fx = Fixture("lang-" + variant, [2000])
    res, got = wraith_lines(fx.pid, "print (1 || *n->next->next);\nprint (0 && head);\n"
                            "print \"{} {}\", 1 || head, 0 && *n;\n")
    check(res.returncode == 0, "%s: a decided && / || compiles (%s)" % (variant, res.stderr.strip()[-300:]))
    eq(got, ["1 || *n->next->next = true", "0 && head = false", "true false"],
         "%s: a decided && / || is its constant, the right side unread" % variant)
    res, _ = wraith_lines(fx.pid, "print (0 || head);\n")
    check(res.returncode == 2 and "'||' needs a number, a pointer or a boolean, not a struct" in res.stderr,
          "%s: an undecided || of a struct is still refused (%s)" % (variant, res.stderr.strip()))
    res, _ = wraith_lines(fx.pid, "print (1 || head.nosuch);\n")
    check(res.returncode == 2 and "has no member 'nosuch'" in res.stderr,
          "%s: the unevaluated side's names must still exist (%s)" % (variant, res.stderr.strip()))
    fx.stop()


def builtin_errors():
    fx = Fixture("lang-O0", [2000])
    cases = [
        ('print memcmp(n, blob, 65);', "2:25: error: at most 64 bytes can be compared, not 65"),
        ('print memcmp(len + 1, blob, 2);',
         "2:16: error: an integer (long) has no address here: it is held in a register or computed"),
        ('print strncmp(req, "GET", -1);', "2:29: error: strncmp's length must not be negative"),
        ('print memcmp(req, hex("4"));', "2:25: error: hex() literal has an odd number of digits (1)"),
        ('print hex("00");', "2:9: error: hex() can only be used as an argument of memcmp"),
        ('print "{:x.4}", len + 1;', "2:19: error: an integer (long) has no address here"),
        ('print "{:x.4}", "abc";', "2:19: error: a string literal has no memory to dump"),
    ]
    for body, want in cases:
        res, _ = wraith_lines(fx.pid, "  " + body + "\n")
        check(res.returncode == 2 and want in res.stderr, "%s is refused: %s (%s)"
              % (body, want, res.stderr.strip()))
    fx.stop()


for variant in VARIANTS:
    arrows(variant)
    specials(variant)
    builtins(variant)
    dumps(variant)
    tls(variant)
    short_circuit(variant)
builtin_errors()
errors("O0")
namespaces()
check_no_leftovers("after the language tests")
finish()
