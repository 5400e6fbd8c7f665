"""hints.py - what wraith says when a script asks for what is not there.

  {:s} of a struct or class (a std::string, a struct with a char * member)
      is a located type error whose hint names the text member to print;
  a member a struct does not have is an error that lists the members it
      has, with the closest as a "did you mean";
  trace FILE:LINE on a line between two functions goes on the next line
      with code, where gdb's break goes, and says so.
gcc and clang builds."""
import subprocess

from wraithtest import *

require_root()


def script_error(fx, script):
    res = run(["-p", fx.pid, "-s", script, "--max-events", 1])
    check(res.returncode == 2, "%r is a script error (exit %d)" % (script, res.returncode))
    return res.stderr


def gdb_breaks(binary, spec):
    """The addresses of gdb's break at @spec, before the program runs."""
    out = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break %s" % spec, "-ex", "info breakpoints", binary],
                         capture_output=True, text=True, timeout=120).stdout
    return sorted(int(a, 16) for a in re.findall(r"(0x[0-9a-f]+) +in ", out))


for v in ("O2", "clang-O0"):
    fx = Fixture("cxx-" + v)
    if v.startswith("clang"):
        # clang leaves std::string's _Alloc_hider a declaration: not
        # recognised as a string, a located error
        err = script_error(fx, 'trace geo::run { print "{:s}", label; }')
        check(re.search(r"<script>:1:32: error: \{:s\} shows a string or char array, and label is const "
                        r"std::(__cxx11::)?(string|basic_string<char[^>]*>)\n.*\n +\^~~~~\n"
                        r"hint: \{\} shows it member by member, \{:x\} its bytes\n", err),
              "cxx-%s: {:s} of an incomplete std::string is a located error (%r)" % (v, err))
    else:
        res = run(["-p", fx.pid, "-s", 'trace geo::run { print "S {:s}|{}", label, label; }', "--max-events", 1,
                   "--timeout", 20, "-q"])
        # {} of the reference: `"box"`, the printer's text alone as gdb shows it
        m = re.search(r'^  S (.*)\|"(.*)"$', res.stdout, re.M)
        check(res.returncode == 0 and m and m.group(1) == m.group(2) and m.group(1),
              "cxx-%s: {:s} of a std::string shows its characters alone (%r)" % (v, res.stdout[-300:]))
    err = script_error(fx, 'trace refs { print "{:s}", p; }')
    check("error: {:s} shows a string or char array, and p is const Pair" in err and
          "hint: {} shows it member by member, {:x} its bytes" in err,
          "cxx-%s: {:s} of a struct without text says what shows it (%r)" % (v, err))
    err = script_error(fx, 'trace refs { print "{}", d.bb; }')
    check("error: Derived has no member 'bb'" in err and
          "hint: did you mean 'b'? Derived has: b, s, x, ok" in err,
          "cxx-%s: a missing member lists the members, bases' too, and the closest (%r)" % (v, err))
    fx.stop()

    fx = Fixture("values-" + v)
    err = script_error(fx, 'trace show { print "{:s}", *o; }')
    check("hint: print the text member it holds: {:s} of (*o).in.name" in err,
          "values-%s: the member's path is one a script can take (%r)" % (v, err))
    err = script_error(fx, 'trace show { print "{}", o->in.nme; }')
    check("error: struct inner has no member 'nme'" in err and
          "hint: did you mean 'name'? struct inner has: x, name" in err,
          "values-%s: did you mean 'name' (%r)" % (v, err))
    err = script_error(fx, 'trace show { print "{}", o->z; }')
    check("error: struct outer has no member 'z'" in err and "did you mean" not in err and
          "hint: struct outer has: in, arr, buf, d, " in err,
          "values-%s: no guess for a one-letter name, the members listed (%r)" % (v, err))
    fx.stop()

# a line between two functions
for v in ("O0", "O2", "clang-O2"):
    binary = fixture("inline-" + v)
    fx = Fixture("inline-" + v)
    for marker in ("int leaf(int x)", "static inline __attribute__((always_inline)) int inlined_helper"):
        line = marker_line("inline.c", marker) - 1
        res = run(["-p", fx.pid, "--dry-run", "-s", 'trace inline.c:%d { print "x"; }' % line])
        ours = sorted(int(a, 16) for a in re.findall(r"\+0x([0-9a-f]+) \(file offset", res.stdout))
        check(res.returncode == 0 and ours, "inline-%s: inline.c:%d has sites (%r)" % (v, line, res.stderr))
        eq(ours, gdb_breaks(binary, "inline.c:%d" % line),
           "inline-%s: inline.c:%d goes where gdb's break goes" % (v, line))
        check(re.search(r"warning: inline\.c:%d has no code: the probe goes on line \d+ in \w+, the next "
                        r"line with code" % line, res.stderr),
              "inline-%s: and says so (%r)" % (v, res.stderr))
    fx.stop()
# a probe whose values do not fit the kernel's 512-byte BPF stack: what
# to do, in the probe's own words (LLVM's text named an internal function
# and a compiler flag)
fx = Fixture("values-O0")
# comparisons keep their operands in a map, not on that stack: the peer
# tool's member-pointer probe (ten lets, seventeen prints, eleven
# memcmp()s at one place) fits, and every comparison holds
res = run(["-p", fx.pid, "--script-file", os.path.join(SRCDIR, "tests", "e2e", "golden", "many_compares.ws"),
           "--max-events", 1, "--timeout", 20, "-q"])
eq(sorted(set(re.findall(r"(?m)^  (OK\d+)$", res.stdout)), key=lambda k: int(k[2:])),
   ["OK%d" % i for i in range(1, 12)], "a probe of many values and eleven memcmp()s fits the BPF stack (%r)"
   % res.stderr[-300:])
lets = ["let v%d = u32 + %d;" % (i, i) for i in range(60)]
prints = ['print "P%d {} {} {}", v%d, v%d + i32, cstr;' % (i, i, (i + 5) % 60) for i in range(60)]
res = run(["-p", fx.pid, "--dry-run", "-s", "trace show {\n%s\n}" % "\n".join(lets + prints)])
fx.stop()
check(res.returncode != 0 and "show: the probe needs more than the kernel's 512-byte BPF stack" in res.stderr and
      "hint: split its statements over two probes on the same place" in res.stderr and
      "mllvm" not in res.stderr, "a probe too big for the BPF stack says what to do (%r)" % res.stderr[-400:])
check_no_leftovers("after the hints")
finish()
