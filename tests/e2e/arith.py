"""arith.py - C's arithmetic computed by live probes equals what the C
compiler computes: a generated program holds volatile globals of every
integer width and signedness, _Bool, char, enums, bitfields, pointers into
an array and floating values; it prints what gcc (or clang-19) computes for
a few hundred expressions over them, then waits in a loop; wraith evaluates
the same expressions in a probe (reading the globals from memory at run
time, so nothing is folded at compile time) and must print the same values.

Integer results compare as decimal numbers; comparisons as true/false
(wraith's booleans) against C's 1/0.  Cases C leaves undefined (division by
zero, INT_MIN / -1, shift counts outside the width) are left out.
"""
import os
import random
import re
import shutil
import subprocess
import tempfile

from wraithtest import *

require_root()

# (C spelling, bits, signed, values)
TYPES = [
    ("signed char", 8, True, [0, 1, -1, 127, -128, 100]),
    ("unsigned char", 8, False, [0, 1, 255, 200, 7]),
    ("char", 8, True, [0, 65, -3, 127, -128]),
    ("short", 16, True, [0, 1, -1, 32767, -32768, 1000]),
    ("unsigned short", 16, False, [0, 1, 65535, 40000, 3]),
    ("int", 32, True, [0, 1, -1, 2147483647, -2147483648, -7]),
    ("unsigned int", 32, False, [0, 1, 4294967295, 3000000000, 31, 2147483648]),
    ("long", 64, True, [0, 1, -1, 9223372036854775807, -9223372036854775808, -9]),
    ("unsigned long", 64, False, [0, 1, 18446744073709551615, 9223372036854775808, 63]),
    ("_Bool", 1, False, [0, 1]),
    ("enum eu", 32, False, [0, 1, 4000000000, 5]),
    ("enum es", 32, True, [0, -1, 1, 2]),
]
OPS = ["*", "/", "%", "+", "-", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|"]
COMPARE = {"<", "<=", ">", ">=", "==", "!="}

# Bitfields, pointers and floating values, over the fixed globals below.
FIXED_DECLS = r"""
struct bf { int s3 : 3; unsigned u3 : 3; unsigned u31 : 31; int s17 : 17; unsigned u32 : 32; };
volatile struct bf bits = { -4, 5, 2147483647, -65536, 4294967295u };
volatile int arr[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
int *volatile p = (int *)&arr[2], *volatile q = (int *)&arr[6];
void *volatile vp = (void *)&arr[2];
volatile double d1 = 0.1, d2 = -2.5, dnan, dzero = -0.0;
volatile float f1 = 0.1f, f2 = 3.0f;
"""
FIXED = [
    "bits.s3", "bits.u3", "bits.s3 + 1", "bits.u3 - 6", "bits.u3 * bits.s3", "bits.u31 + 1",
    "bits.u31 * 2", "bits.s17 >> 3", "bits.u32 + 1", "bits.u32 > -1", "bits.s3 < bits.u3",
    "-bits.u3", "~bits.s3", "bits.u3 / 2", "bits.s17 % 7",
    "p - q", "q - p", "*(p + 1)", "p[-1]", "q[1]", "*(q - 3)", "&arr[5] - p", "p < q", "q <= p",
    "p == q - 4", "p != 0", "vp == p", "*p + *q", "arr[3] * arr[7]", "*arr", "*(arr + 7)",
    "&arr[7] - arr",
    "d1 < d2", "d1 > 0.1", "d1 == 0.1", "f1 > 0.1", "f1 == 0.1f", "f1 < 0.1", "f2 == 3",
    "f2 > 2", "d2 < -2", "dnan == dnan", "dnan != dnan", "dnan < 1", "dzero == 0", "-d1 < 0",
    "d1 <= d1", "f1 >= f2", "!dzero", "!d1",
]


def c_literal(v, ctype):
    return "(%s)%dll" % (ctype, v) if v >= -(1 << 63) and v < (1 << 63) else "(%s)%dull" % (ctype, v)


def undefined(op, bits_a, a, b):
    width = 64 if bits_a == 64 else 32
    if op in ("/", "%"):
        return b == 0 or (b == -1 and a in (-(1 << 31), -(1 << 63)))
    if op in ("<<", ">>"):
        return b < 0 or b >= width
    return False


def as_type(v, bits, signed):
    if bits == 1:
        return 1 if v else 0
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def generate(rng):
    decls, exprs, n = [], [], 0
    for op in OPS:
        for ta in TYPES:
            for tb in TYPES:
                a = as_type(rng.choice(ta[3]), ta[1], ta[2])
                b = as_type(rng.choice(tb[3]), tb[1], tb[2])
                if op in ("<<", ">>") and rng.random() < 0.7:
                    b = as_type(rng.randrange(0, 40), tb[1], tb[2])
                if undefined(op, ta[1], a, b) or rng.random() < 0.75:
                    continue
                decls.append("volatile %s a%d = %s; volatile %s b%d = %s;" % (
                    ta[0], n, c_literal(a, ta[0]), tb[0], n, c_literal(b, tb[0])))
                exprs.append("a%d %s b%d" % (n, op, n))
                n += 1
    for ta in TYPES:
        for v in ta[3]:
            decls.append("volatile %s a%d = %s;" % (ta[0], n, c_literal(as_type(v, ta[1], ta[2]), ta[0])))
            exprs += ["-a%d" % n, "~a%d" % n, "!a%d" % n]
            n += 1
    return decls, exprs + FIXED


def program(decls, exprs):
    lines = [
        "#include <math.h>", "#include <stdio.h>", "#include <unistd.h>",
        "enum eu { EU_A, EU_BIG = 4000000000u };", "enum es { ES_N = -1, ES_P = 1 };",
        "#define SIGNED(x) ((__typeof__(+(x)))-1 < 0)",
        "#define OUT(x) (SIGNED(x) ? printf(\"%lld\\n\", (long long)(x)) : printf(\"%llu\\n\", "
        "(unsigned long long)(x)))",
        FIXED_DECLS,
    ] + decls + [
        "__attribute__((noinline)) void probe(void) { asm volatile(\"\" ::: \"memory\"); }",
        "int main(void) {",
        "  volatile double zero = 0.0;",
        "  dnan = zero / zero;",
    ] + ["  OUT(%s);" % e for e in exprs] + [
        "  printf(\"ready %d\\n\", (int)getpid());",
        "  fflush(stdout);",
        "  for (;;) { probe(); usleep(2000); }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def run_compiler(cc, src, tmp):
    exe = os.path.join(tmp, "arith-" + cc)
    res = subprocess.run([cc, "-O0", "-g", "-fwrapv", "-w", "-o", exe, src], capture_output=True, text=True)
    check(res.returncode == 0, "%s builds the program (%s)" % (cc, res.stderr[-300:]))
    return exe if res.returncode == 0 else None


def compare(cc, exe, exprs):
    proc = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
    want = []
    for _ in exprs:
        want.append(proc.stdout.readline().strip())
    m = re.match(r"ready (\d+)", proc.stdout.readline())
    if not check(m is not None, "%s: the program started" % cc):
        proc.kill()
        return
    # One probe per 150 expressions: an event holds at most a few hundred
    # values.  Every hit fires them all; lines say which expression they are.
    chunks = [range(i, min(i + 150, len(exprs))) for i in range(0, len(exprs), 150)]
    script = "".join("trace probe {\n" + "".join('print "e%d={}", %s;\n' % (k, exprs[k]) for k in c) + "}\n"
                     for c in chunks)
    res = run(["-p", m.group(1), "-s", script, "--max-events", 3 * len(chunks), "--script-output", "plain"],
              timeout=300)
    proc.kill()
    proc.wait()
    if not check(res.returncode == 0, "%s: wraith evaluates %d expressions (%s)" % (
            cc, len(exprs), res.stderr.strip()[-400:])):
        return
    values = {}
    for line in res.stdout.splitlines():
        m = re.match(r"^e(\d+)=(.*)$", line)
        if m:
            values.setdefault(int(m.group(1)), m.group(2))
    got = [values.get(k) for k in range(len(exprs))]
    bad = 0
    for e, w, g in zip(exprs, want, got):
        if g in ("true", "false"):
            g = "1" if g == "true" else "0"
        if g != w:
            bad += 1
            if bad <= 20:
                fail("%s: %s is %s in C, wraith printed %s" % (cc, e, w, g))
    check(bad == 0, "%s: all %d expressions equal C's values (%d differ)%s" % (
        cc, len(exprs), bad, "" if bad == 0 else "; wraith said: %s" % res.stderr[-800:]))


rng = random.Random(20240611)
decls, exprs = generate(rng)
tmp = tempfile.mkdtemp(prefix="wraith-arith-")
try:
    src = os.path.join(tmp, "arith.c")
    with open(src, "w") as f:
        f.write(program(decls, exprs))
    compilers = ["gcc"] + (["clang-19"] if shutil.which("clang-19") else [])
    for cc in compilers:
        exe = run_compiler(cc, src, tmp)
        if exe:
            compare(cc, exe, exprs)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check_no_leftovers("after the arithmetic tests")
finish()
