"""casts.py - cast() takes every type name C takes in a cast, on the casts
fixture built by gcc and clang: qualifiers in any order, typedefs,
bool/_Bool, unions and enums, pointers to any of them (function pointers
too), arrays of a known bound (a pointer cast to an array or struct type
is the memory it points to, seen as that type).  wraith prints at one hit
of cast_probe(); gdb, attached to the same process and stopped there,
prints the same casts in C's spelling, and the two must agree.

A type named alike in several modules: the probe's module's definition
when it has one (gdb stopped in a module's function takes that module's);
else, defined differently by the others, the cast is refused with the
modules named, and "MODULE:TYPE" picks one (compared with gdb stopped in
that module's function); defined alike, it is one type.  Mistakes in a type
name are errors located in the literal.
"""
from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()

VARIANTS = ("O0", "O2", "clang-O0", "clang-O2")

# (wraith, gdb) at cast_probe(node, pay, dup, number, neg)
AT_PROBE = [
    ('cast(node, "const volatile struct CastNode *")', "(const volatile struct CastNode *)node"),
    ('*cast(node, "volatile const struct CastNode *")', "*(const volatile struct CastNode *)node"),
    ('cast(node, "struct CastNode const volatile*")->words[1]',
     "((const volatile struct CastNode *)node)->words[1]"),
    ('cast(node, "uint32_t[4]")', "*(uint32_t(*)[4])node"),
    ('cast(node, "unsigned char [2][3]")', "*(unsigned char (*)[2][3])node"),
    ('*cast(node, "int (*)[2]")', "*(int (*)[2])node"),
    ('(*cast(node, "uint16_t (*)[4]"))[3]', "(*(uint16_t (*)[4])node)[3]"),
    ('cast(node, "struct CastNode")', "*(struct CastNode *)node"),
    ('cast(node, "cast_node_t *")->name', "((cast_node_t *)node)->name"),
    ('*cast(node, "const cast_node_t *")', "*(const cast_node_t *)node"),
    ('cast(node, "char * const *")', "(char * const *)node"),
    ('*cast(pay, "union CastPayload *")', "*(union CastPayload *)pay"),
    ('cast(pay, "union CastPayload *")->f', "((union CastPayload *)pay)->f"),
    ('cast(pay, "union CastPayload")', "*(union CastPayload *)pay"),
    ('cast(cast_payload, "uint8_t[4]")', "*(uint8_t (*)[4])&cast_payload"),
    ('cast(number, "_Bool")', "(_Bool)number"),
    ('cast(neg, "bool")', "(_Bool)neg"),
    ('cast(0, "bool")', "(_Bool)0"),
    ('cast(4, "enum CastColor")', "(enum CastColor)4"),
    ('cast(number - 4, "enum CastColor")', "(enum CastColor)(number - 4)"),
    ('cast(neg, "unsigned long const")', "(const unsigned long)neg"),
    ('cast(neg, "long unsigned int")', "(unsigned long)neg"),
    ('cast(number, "signed char")', "(signed char)number"),
    ('cast(cast_fn, "void (*)(void *)")', "(void (*)(void *))cast_fn"),
    ('cast(dup, "struct CastSame *")->y', "((struct CastSame *)dup)->y"),
    ('*cast(dup, "casts-%s:struct CastDup *")', "*(struct CastDup *)dup"),
]

# (function, wraith, gdb): a type that several modules define each their
# own way, picked by its module, or unnamed, the probe's module's: gdb
# stopped in a module's function takes that module's definition.
PICKED = [
    ("cast_probe", '*cast(dup, "struct CastDup *")', "*(struct CastDup *)dup"),
    ("cast_probe", 'cast(number, "cast_word_t")', "(cast_word_t)number"),
    ("casta_touch", '*cast(p, "struct CastDup *")', "*(struct CastDup *)p"),
    ("casta_touch", '*cast(p, "struct CastLib *")', "*(struct CastLib *)p"),
    ("castb_touch", '*cast(p, "struct CastLib *")', "*(struct CastLib *)p"),
    ("casta_touch", '*cast(p, "libfix_casta-%s.so:struct CastDup *")', "*(struct CastDup *)p"),
    ("casta_touch", '*cast(p, "libfix_casta:struct CastLib *")', "*(struct CastLib *)p"),
    ("castb_touch", '*cast(p, "libfix_castb:struct CastLib *")', "*(struct CastLib *)p"),
    ("castb_touch", 'cast(p, "libfix_castb-%s.so:struct CastLib")', "*(struct CastLib *)p"),
]


def wraith_prints(pid, where, exprs):
    script = "trace %s {\n" % where + "".join('  print "{}", %s;\n' % e for e in exprs) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "--script-output", "plain", "-q"])
    return res, res.stdout.splitlines()


def compare(variant, fx, where, pairs):
    got_res, got = wraith_prints(fx.pid, where, [w for w, _ in pairs])
    want = gdb_values(fx.pid, [g for _, g in pairs], where)
    if not eq(len(got), len(pairs), "%s: one line per cast at %s (%s)"
              % (variant, where, got_res.stderr.strip()[-400:])):
        return
    for (w, g), value, oracle in zip(pairs, got, want):
        if oracle is None:
            fail("%s: gdb printed nothing for %s" % (variant, g))
        else:
            eq(value, normalize(oracle), "%s: print %s at %s as gdb prints %s" % (variant, w, where, g))


def refused(variant, fx, body, want):
    """@body at cast_probe is a script error whose text holds each of @want."""
    res = run(["-p", fx.pid, "-s", "trace cast_probe {\n  print \"{}\", %s;\n}\n" % body,
               "--dry-run"])
    check(res.returncode == 2 and all(w in res.stderr for w in want),
          "%s: %s is refused: %r (%r)" % (variant, body, want, res.stderr))


def ambiguity(variant, fx):
    exe, liba, libb = ("casts-" + variant, "libfix_casta-%s.so" % variant,
                       "libfix_castb-%s.so" % variant)
    # only the libraries define it, each its own way, and the probe's
    # module does not: which one is meant cannot be known
    refused(variant, fx, '*cast(dup, "struct CastLib *")', [
        "2:27: error: type 'struct CastLib' is ambiguous: ", liba, libb, "define it differently\n",
        "                              ^~~~~~~~~~~~~~\n",
        'hint: name the module to take it from: "libfix_cast', '.so:struct CastLib *"'])
    # the module named decides
    res, got = wraith_prints(fx.pid, "cast_probe", ['cast(number, "casts-%s:cast_word_t")' % variant,
                                                    'cast(neg, "%s:cast_word_t")' % liba])
    eq(got, ["6", "-3"], "%s: cast_word_t of the program and of %s (%s)"
       % (variant, liba, res.stderr.strip()[-300:]))
    refused(variant, fx, '*cast(dup, "%s:struct CastNode *")' % liba, [
        "error: no type 'struct CastNode' in %s" % liba])
    refused(variant, fx, '*cast(dup, "libnothing.so:struct CastDup *")', [
        "2:27: error: no module 'libnothing.so' is mapped by the target\n",
        "                              ^~~~~~~~~~~~~\n"])


# (wraith, gdb) at geo::describe() of the C++ fixture: a class named with
# its namespace, and by its own name alone when one type has it
AT_DESCRIBE = [
    ('*cast(origin, "geo::Point *")', "*(geo::Point *)origin"),
    ('cast(cast(origin, "void *"), "const geo::Point *")->y', "((const geo::Point *)(void *)origin)->y"),
    ('*cast(cast(origin, "void *"), "Point *")', "*(geo::Point *)origin"),
    ('cast(1, "geo::Color")', "(geo::Color)1"),
    ('cast(count, "geo::count_t")', "(geo::count_t)count"),
]


def cxx_namespaces(variant):
    fx = Fixture("cxx-" + variant, [1000])
    compare("cxx-" + variant, fx, "geo::describe", AT_DESCRIBE)
    res = run(["-p", fx.pid, "-s", 'trace geo::describe { print "{}", *cast(origin, "geo::Nothing *"); }',
               "--dry-run"])
    check(res.returncode == 2 and "no type 'geo::Nothing' in any module" in res.stderr,
          "cxx-%s: a class no namespace has is refused (%s)" % (variant, res.stderr.strip()[-300:]))
    fx.stop()


def mistakes(variant, fx):
    cases = [
        ('cast(node, "uint32_t[]")', "2:36: error: an array in a cast needs its length"),
        ('cast(node, "long char *")', "2:27: error: 'long char' is not a C type"),
        ('cast(node, "struct CastNode x")', "2:43: error: unexpected 'x' after the type"),
        ('cast(node, "CastNode *")', "hint: did you mean 'struct CastNode'? C names a tag with its keyword"),
        ('cast(node, "struct Nothing *")', "2:27: error: no type 'struct Nothing' in any module of the target"),
        ('cast(number + 1, "uint32_t[4]")', "2:15: error: cannot convert an integer (long) to uint32_t [4]"),
        ('cast(node, "union CastNode *")', "2:27: error: no type 'union CastNode' in any module"),
    ]
    for body, want in cases:
        refused(variant, fx, body, [want])


for v in VARIANTS:
    fx = Fixture("casts-" + v, [2000])
    compare(v, fx, "cast_probe", [(w.replace("%s", v), g) for w, g in AT_PROBE])
    for where in ("cast_probe", "casta_touch", "castb_touch"):
        compare(v, fx, where, [(w.replace("%s", v), g) for f, w, g in PICKED if f == where])
    ambiguity(v, fx)
    mistakes(v, fx)
    fx.stop()
    cxx_namespaces(v)
check_no_leftovers("after the cast tests")
finish()
