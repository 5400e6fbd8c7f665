"""bt_cxx.py - `bt` at leaf equals gdb's backtrace for C++ in every build:
cxx.cc (namespace, class template, constructor, operator, virtual method,
lambda, std::function with libstdc++ frames inlined at -O2), templates.cc
(a deep exception-free template chain, nested and anonymous namespaces,
a functor, a variadic template, an overload) and cxx without debug info
(names demangled from .symtab, GCC clone suffixes kept).  Names are
compared without parameter lists and return types, which gdb prints only
for some frames."""
from bt_support import *

require_root()

cases = [Case("%s-%s" % (f, v)) for f in ("cxx", "templates", "cxx_nodebug") for v in VARIANTS]
run_cases(cases)
for c in cases:
    check_case(c)

# names: C++ frames are demangled and qualified, not mangled symbols
for c in cases:
    if c.bts:
        names = [f["function"] or "" for f in c.bts[0][1]["frames"]]
        check(not any(n.startswith("_Z") for n in names), "%s: no mangled names (%s)" % (c.label, names))
        if c.name.startswith("templates-"):
            check("deep::detail::Level<12>::run" in names and "deep::(anonymous namespace)::pick" in names,
                  "%s: template and anonymous-namespace frames named (%s)" % (c.label, names))

check_no_leftovers("after the C++ backtraces")
finish()
