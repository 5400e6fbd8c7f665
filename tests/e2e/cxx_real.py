"""cxx_real.py - C++ as real programs write it (ninja's build loop), as
gdb shows it: cxxreal.cc built by g++ and clang-19 at -O0 and -O2.

- A method returning std::string carries the ABI tag [abi:cxx11] in its
  demangled name; gdb's `break Edge::EvaluateCommand` finds it, and so
  must `trace Edge::EvaluateCommand` (it was refused: "no function ...;
  did you mean 'Edge::EvaluateCommand[abi:cxx11]'?", and that spelling
  then "invalid line number").  Its sites are gdb's break addresses, by
  either spelling.
"""
import re
import subprocess

from wraithtest import *

require_root()

BUILDS = ["cxxreal-O0", "cxxreal-O2", "cxxreal-clang-O0", "cxxreal-clang-O2"]
TAGGED = ["Edge::EvaluateCommand"]


def dry_sites(path, pattern):
    """The out-of-line sites of `trace PATTERN` in @path, by --dry-run."""
    res = run(["-t", path, "-s", "trace %s { }" % pattern, "--dry-run"])
    check(res.returncode == 0, "%s: trace %s resolves (%s)" % (path, pattern, res.stderr.strip()[-300:]))
    return set(int(a, 16) for a in re.findall(r"^\s+#\d+ \S+\+(0x[0-9a-f]+) \(file offset 0x[0-9a-f]+\) (?!inline)",
                                               res.stdout, re.M))


def tagged_names(build):
    """`trace NAME` without the ABI tag, and with it, stops where gdb's
    `break NAME` stops."""
    path = fixture(build)
    for fn in TAGGED:
        out = subprocess.run(["gdb", "-batch", "-nx", path, "-ex", "break %s" % fn, "-ex", "info breakpoints"],
                             capture_output=True, text=True, timeout=120).stdout
        gdb = set(int(a, 16) for a in re.findall(r"^\d+(?:\.\d+)?\s+(?:breakpoint\s+keep\s+)?y\s+(0x[0-9a-f]+)",
                                                 out, re.M))
        check(gdb, "%s: gdb breaks at %s" % (build, fn))
        eq(sorted(dry_sites(path, fn)), sorted(gdb), "%s: trace %s stops where break %s stops" % (build, fn, fn))
        eq(sorted(dry_sites(path, fn + "[abi:cxx11]")), sorted(gdb),
           "%s: trace %s[abi:cxx11] stops there too" % (build, fn))


for b in BUILDS:
    tagged_names(b)
check_no_leftovers("after the real C++ patterns")
finish()
