"""hints.py - what wraith says when a script asks for what is not there.

  {:s} of a struct or class (a std::string, a struct with a char * member)
      is a located type error whose hint names the text member to print;
  a member a struct does not have is an error that lists the members it
      has, with the closest as a "did you mean".
gcc and clang builds."""
from wraithtest import *

require_root()


def script_error(fx, script):
    res = run(["-p", fx.pid, "-s", script, "--max-events", 1])
    check(res.returncode == 2, "%r is a script error (exit %d)" % (script, res.returncode))
    return res.stderr


for v in ("O2", "clang-O0"):
    fx = Fixture("cxx-" + v)
    err = script_error(fx, 'trace geo::run { print "{:s}", label; }')
    # clang leaves std::string's _Alloc_hider a declaration: no member to name then
    check(re.search(r"<script>:1:32: error: \{:s\} shows a string or char array, and label is const "
                    r"std::(__cxx11::)?(string|basic_string<char[^>]*>)\n.*\n +\^~~~~\n"
                    r"hint: (print the text member it holds: \{:s\} of label\._M_dataplus\._M_p|"
                    r"\{\} shows it member by member, \{:x\} its bytes)\n", err) and
          ("_M_dataplus._M_p" in err or v.startswith("clang")),
          "cxx-%s: {:s} of a std::string is a located error naming its text member (%r)" % (v, err))
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

check_no_leftovers("after the hints")
finish()
