#!/usr/bin/env python3
"""genbig.py - write the C sources of a big generated program for the
start-up benchmark: many units of structs and functions that call into one
another across files, so that a -O3 -flto build inlines across units and
carries DWARF of a large server's size.  Deterministic (fixed seed).

    bench/genbig.py OUTDIR [--units N] [--funcs M]

Writes OUTDIR/u*.c, OUTDIR/big.h and OUTDIR/main.c.  main() calls every
unit's table of functions in a loop (so -flto keeps them) and then sleeps
in a loop calling big_probe_me(), whose body in u0.c carries the comment
PROBE-LINE on the line the benchmark puts its file:line probe on.  A small
function of u0.c, big_inlined(), is called by --inlined of the others
(400), which -flto inlines into each: a probe of that many sites.  Its
callers pass it their values in many ways (a register, a constant, a
parameter only known by its entry value, a field, a value kept across
calls under register pressure, a loop counter, a struct's piece...), so
that its variables live in many different forms from site to site, as a
real program's inlined copies do (Redis's sdsnewlen under -flto).
"""
import argparse
import os
import random

TYPES = ("int", "long", "unsigned", "double", "short", "unsigned long")


def struct_def(r, u, s):
    fields = ["\t%s f%d;" % (r.choice(TYPES), i) for i in range(r.randint(4, 12))]
    fields.append("\tstruct s%d_%d *next;" % (u, s))
    fields.append("\tchar name[%d];" % r.choice((8, 16, 32)))
    return "struct s%d_%d {\n%s\n};\n" % (u, s, "\n".join(fields))


def func_def(r, rc, u, f, nstructs, units, funcs, inline_every):
    s = r.randrange(nstructs)
    callee_u, callee_f = r.randrange(units), r.randrange(funcs)
    lines = [
        "long u%d_f%d(struct s%d_%d *p, long n)" % (u, f, u, s),
        "{",
        "\tlong acc = n;",
        "\tfor (int i = 0; p && i < %d; i++, p = p->next) {" % r.randint(2, 9),
        "\t\tacc += (long)p->f0 * %d + i;" % r.randint(1, 99),
        "\t\tif (acc %% %d == 0)" % r.randint(2, 13),
        "\t\t\tacc ^= (long)p->name[i % sizeof(p->name)];",
        "\t}",
    ]
    if (callee_u, callee_f) < (u, f):
        lines.append("\tacc += u%d_f%d(NULL, acc & 7);" % (callee_u, callee_f))
    if (u * funcs + f) % inline_every == inline_every - 1:
        lines += inlined_call(rc, u * funcs + f)
    lines += ["\tbig_sink += acc;", "\treturn acc;", "}", ""]
    return "\n".join(lines)


# The ways a caller passes big_inlined() its values (%(k)s: the site's
# number): each gives v and site other locations at the inlined copy.
CALLS = (
    ["\tacc += big_inlined(acc, %(k)s);"],
    ["\tacc += big_inlined(n, %(k)s);"],
    ["\tacc += big_inlined(%(c)s, %(k)s);"],
    ["\tacc += big_inlined(acc * %(c)s + n, (int)n);"],
    ["\tacc += big_inlined(p ? p->f0 : n, %(k)s);"],
    ["\tbig_sink += n;", "\tacc += big_inlined(n + %(c)s, %(k)s);"],
    ["\t{", "\t\tlong t0 = acc * 3, t1 = acc ^ n, t2 = acc + n, t3 = acc - %(c)s, t4 = n * 5,",
     "\t\t     t5 = acc >> 3, t6 = n ^ %(c)s, t7 = acc | n;",
     "\t\tbig_sink += big_opaque(t0);",
     "\t\tacc += big_inlined(t3, %(k)s) + t0 + t1 + t2 + t4 + t5 + t6 + t7;", "\t}"],
    ["\tfor (int j = 0; j < (int)(n & 3); j++)", "\t\tacc += big_inlined(acc + j, j + %(k)s);"],
    ["\t{", "\t\tstruct big_pair q = { acc, n };",
     "\t\tacc += big_inlined2(q, %(k)s);", "\t}"],
    ["\tacc += big_inlined(big_opaque(n), %(k)s);"],
    ["\tacc += big_inlined((long)(int)acc, (int)(acc >> 32));"],
    ["\tif (n > %(c)s)", "\t\tacc += big_inlined(n - %(c)s, %(k)s);",
     "\telse", "\t\tacc -= big_inlined(acc, -%(k)s);"],
)


def inlined_call(r, k):
    return [l % {"k": k, "c": r.randint(2, 999)} for l in r.choice(CALLS)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--units", type=int, default=160)
    ap.add_argument("--funcs", type=int, default=90)
    ap.add_argument("--structs", type=int, default=40)
    ap.add_argument("--inlined", type=int, default=400)
    a = ap.parse_args()
    every = max(1, a.units * a.funcs // max(1, a.inlined))
    os.makedirs(a.outdir, exist_ok=True)
    r = random.Random(12)
    rc = random.Random(23)  # the calls' own, so the rest stays as it was
    with open(os.path.join(a.outdir, "big.h"), "w") as h:
        h.write("#include <stddef.h>\nextern volatile long big_sink;\n"
                "long big_inlined(long v, int site);\n"
                "struct big_pair { long a, b; };\n"
                "long big_inlined2(struct big_pair q, int site);\n"
                "long big_opaque(long x);\n")
        for u in range(a.units):
            for s in range(a.structs):
                h.write("struct s%d_%d;\n" % (u, s))
        for u in range(a.units):
            h.write("extern long (*const u%d_tab[%d])(void *, long);\n" % (u, a.funcs))
            h.write("".join("long u%d_f%d();\n" % (u, f) for f in range(a.funcs)))
    for u in range(a.units):
        with open(os.path.join(a.outdir, "u%d.c" % u), "w") as c:
            c.write('#include "big.h"\n\n')
            c.write("".join(struct_def(r, u, s) for s in range(a.structs)))
            for f in range(a.funcs):
                c.write(func_def(r, rc, u, f, a.structs, a.units, a.funcs, every))
            c.write("long (*const u%d_tab[%d])(void *, long) = {\n" % (u, a.funcs))
            c.write("".join("\t(long (*)(void *, long))u%d_f%d,\n" % (u, f) for f in range(a.funcs)))
            c.write("};\n")
            if u == 0:
                c.write("\nlong big_inlined(long v, int site)\n{\n"
                        "\tlong w = v * 7 + site;\n\n\tbig_sink += w;\n\treturn w & 3;\n}\n")
                c.write("\nlong big_inlined2(struct big_pair q, int site)\n{\n"
                        "\treturn big_inlined(q.a - q.b, site);\n}\n")
                c.write("\n__attribute__((noinline)) long big_opaque(long x)\n{\n"
                        "\tbig_sink ^= x;\n\treturn x + 1;\n}\n")
                c.write("\n__attribute__((noinline)) long big_probe_me(long n)\n{\n"
                        "\tlong x = n * 3 + big_sink;\n"
                        "\tbig_sink += x * n; /* PROBE-LINE */\n\treturn x;\n}\n")
    with open(os.path.join(a.outdir, "main.c"), "w") as m:
        m.write('#include <unistd.h>\n#include "big.h"\n\nvolatile long big_sink;\n'
                "long big_probe_me(long n);\n\nint main(void)\n{\n")
        m.write("\tfor (long n = 0;; n++) {\n")
        for u in range(a.units):
            m.write("\t\tfor (int f = 0; f < %d; f++)\n\t\t\tu%d_tab[f](NULL, n);\n" % (a.funcs, u))
        m.write("\t\tbig_probe_me(n);\n\t\tsleep(1);\n\t}\n}\n")


if __name__ == "__main__":
    main()
