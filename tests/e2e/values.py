"""values.py - wraith prints what gdb prints: every kind of value of the
values fixture (integers of every width, characters, booleans, floats with
NaN and infinities, long double (with the patterns x87 refuses), IEEE half
and quad floats, complex numbers, decimal floats, enums by name and as flags, bitfields,
strings and char arrays with repeats and escapes, pointers with their type
and symbol, structs, unions, anonymous members, arrays) and C's arithmetic
on them, compared with gdb's `print` on the same live process; and structs
passed by value, which at -O2 are held in registers whole or split into
pieces (DW_OP_piece, some empty), printed whole at held() as gdb prints
them, in text and in JSON.

wraith prints at one hit of show(); then gdb attaches to the same process,
stops at show() and prints the same expressions.  Nothing changes between
hits, so the two must agree to the byte once gdb's shape is turned into
wraith's ({x = 7} -> {x: 7}, an array's {1, 2} -> [1, 2]; see normalize()).
"""
from gdbvalues import gdb_values, normalize
from wraithtest import *
import re

require_root()

# Expressions both understand, printed by both.
EXPRS = [
    "g", "g.in", "g.bits", "g.u", "g.names", "g.arr", "g.zeros", "g.name", "g.buf",
    "u32", "i32", "u64", "i64", "s16", "u16", "u128", "i128", "i128_min",
    "dd", "ff", "ld", "ld_tenth", "nan_d", "neg_nan_d", "inf_d", "ninf_d", "pay_d", "nan_f", "nan_ld",
    "unnormal_ld", "pseudo_denormal_ld", "h16", "h16_min", "q_tenth", "q_big", "q_third", "q_tiny", "q_nan",
    "cz", "cfz", "cfz[1]", "clz",
    "dd[1]", "ff[0]", "-dd[0]", "-ff[3]",
    "eb", "efl", "efu", "ef0", "ec", "ec2", "em",
    "buf8", "all0", "rep", "mixed", "esc", "arr20", "long_run", "long_text", "ramp", "static_local_p",
    "*flexc", "flexc->data", "*flexi", "flexi->vals", "*flexz", "flexz->z", "flexc->data[1]",
    "flexi->vals[2]", "&flexc->data", "matrix", "&matrix", "pairs", "ucs",
    "vp", "ip", "nullp", "np", "cstr", "cstrp", "cpcp", "&cstrp", "*cstrp", "cip", "pc_const", "*cip",
    "b_true", "b_false", "sch", "uch", "ch", "nl", "quote",
    "&g", "&g.in", "&g.arr", "&g.arr[1]", "&u32", "*&g.in", "g.arr + 1", "matrix[1]",
    "&g.arr[3] - &g.arr[0]", "ip - 1", "*ip", "g.self.in.name", "g.cp[1]",
    "~u32", "u32 | i32", "-u32", "u32 + 1", "i32 / 2", "-7 / 2", "-7 % 3", "u32 / 7",
    "s16 * u16", "sch + uch", "g.bits.flags", "g.bits.wide", "g.bits.wide + 1",
    "u64 >> 60", "i64 >> 1", "1 << 31", "2147483647 + 1", "18446744073709551615",
    "4294967296", "0xffffffff", "3000000000", "uch * 2", "ch + 1",
    "$pc", "o", "*o", "o.in.name", "a", "b", "a + b", "o.arr[2]",
    "BLUE", "BIG", "F_A | F_C", "BIG + 1",
    "fnp", "null_fnp", "*fnp", "show", "&show", "rowp", "*rowp", "(*rowp)[2]",
    "texts", "texts.s127", "texts.s201",
]
# Decimal floats: gcc's alone (clang has no _Decimal64).
DECIMALS = ["d32", "d32_small", "d64", "d64_big", "d64_tiny", "d64_max", "d128"]
# Comparisons: gdb prints 1 or 0, wraith true or false.
COMPARISONS = [
    "u64 > 9223372036854775807", "u32 > -1", "i32 < 0u", "i64 < 0", "ip > &g.arr[0]",
    "dd[0] > 123456", "ff[0] > 0.1", "ff[0] == 0.1f", "nan_d == nan_d", "nan_d != nan_d",
    "dd[6] == 0", "inf_d > 1e308", "g.b == 1", "nullp == 0", "ec2 == BLUE", "eb > SMALL",
    "fnp == show", "fnp == &show", "null_fnp == 0",
]
# Where gdb departs from C, wraith follows C (the compiler's value).
C_NOT_GDB = {
    # gdb computes with a bitfield's declared type (unsigned int); C
    # promotes an unsigned 3-bit field to int.
    "g.bits.u - 6": "-1",
    # gdb keeps an enum's type through unary minus; in C it is the enum's
    # integer type (unsigned int here).
    "-GREEN": "4294967295",
}


# At held(): structs in registers, whole or in pieces.
HELD = ["t", "nm", "ne", "ne.in", "ne.arr", "t.y", "nm.name", "ne.arr[1]"]


# gdb's `set print elements 5` against --print-elements 5: arrays, char
# arrays, strings and repeats are cut at the same element.
LIMITED = ["g", "g.zeros", "g.name", "g.arr", "rep", "esc", "arr20", "mixed", "dd", "cstr", "g.names",
           "long_run", "long_text", "ramp", "texts"]


def wraith_values(pid, exprs, where="show", output="plain", options=()):
    script = "trace %s {\n" % where + "".join('print "{}", %s;\n' % e for e in exprs) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "--script-output", output, "-q", *options])
    check(res.returncode == 0, "wraith prints the expressions (%s)" % res.stderr.strip()[-400:])
    return res.stdout.splitlines()


def compare_held(variant, fx):
    """Structs passed by value, at held(): whole, as gdb prints them; the
    JSON value of t has its members."""
    got = wraith_values(fx.pid, HELD, "held")
    want = gdb_values(fx.pid, HELD, "held")
    if eq(len(got), len(HELD), "%s: one line per expression at held" % variant):
        for e, w, g in zip(HELD, want, got):
            if w is None:
                fail("%s: gdb printed nothing for %s at held" % (variant, e))
            else:
                # gdb calls bits past a location's last piece (ne.arr[1] at
                # clang -O2) a <synthetic pointer>: no piece holds them, and
                # none of the pieces is an implicit pointer either.  They
                # were not kept, which wraith says as gdb says it of an
                # empty piece.
                w = w.replace("<synthetic pointer>", "<optimized out>")
                eq(g, normalize(w), "%s: print %s at held" % (variant, e))
    ev = json_events("\n".join(wraith_values(fx.pid, ["t"], "held", "json")))
    eq([it.get("args", [{}])[0].get("value") for e in ev for it in e["items"]], [{"x": 3, "y": -4}],
       "%s: t at held in JSON" % variant)


def compare(variant):
    fx = Fixture("values-" + variant, [2000])
    exprs = EXPRS + COMPARISONS + list(C_NOT_GDB) + ([] if variant.startswith("clang") else DECIMALS)
    got = wraith_values(fx.pid, exprs)
    want = gdb_values(fx.pid, exprs)
    compare_held(variant, fx)
    ev = json_events("\n".join(wraith_values(fx.pid, ["*flexc", "*flexi", "flexc->data"], output="json")))
    vals = [a.get("value") for e in ev for it in e["items"] for a in it.get("args", [])]
    if eq(len(vals), 3, "%s: flexible array members in JSON" % variant):
        eq(vals[0], {"n": 3, "data": "hey"}, "%s: *flexc in JSON: data is its string" % variant)
        check(vals[1]["n"] == 3 and re.fullmatch(r"0x[0-9a-f]+", vals[1]["vals"] or ""),
              "%s: *flexi in JSON: vals is its address (%r)" % (variant, vals[1]))
        eq(vals[2], "hey", "%s: flexc->data in JSON" % variant)
    got_limited = wraith_values(fx.pid, LIMITED, options=("--print-elements", 5))
    want_limited = gdb_values(fx.pid, LIMITED, settings=("set print elements 5",))
    ev = json_events("\n".join(wraith_values(fx.pid, ["unnormal_ld", "nan_ld", "h16", "q_third", "cz"], "show",
                                             "json")))
    eq([it.get("args", [{}])[0].get("value") for e in ev for it in e["items"]],
       ["invalid", "nan", 0.099976, -0.3333333333333333, {"real": 1.5, "imag": -2.5}],
       "%s: floats in JSON" % variant)
    fx.stop()
    for e, w, g in zip(LIMITED, want_limited, got_limited):
        eq(g, normalize(w or "<gdb printed nothing>"), "%s: print %s (elements 5)" % (variant, e))
    if not eq(len(got), len(exprs), "%s: one line per expression" % variant):
        return
    for e, w, g in zip(exprs, want, got):
        if e in C_NOT_GDB:
            eq(g, C_NOT_GDB[e], "%s: print %s as C computes it (gdb says %s)" % (variant, e, w))
            continue
        if w is None:
            fail("%s: gdb printed nothing for %s" % (variant, e))
            continue
        w = normalize(w)
        if e in COMPARISONS:
            w = {"1": "true", "0": "false"}.get(w, w)
        eq(g, w, "%s: print %s" % (variant, e))


def test_normalize():
    cases = [
        ("{in = {x = 7, name = 0x5 \"hello\"}, arr = {1, 2}, z = {0 <repeats 12 times>}}",
         "{in: {x: 7, name: 0x5 \"hello\"}, arr: [1, 2], z: [0 <repeats 12 times>]}"),
        ("{a = 1, {b = 2, c = 3}, n = \"ab\", '\\000' <repeats 18 times>, \"c\"}",
         "{a: 1, {b: 2, c: 3}, n: \"ab\", '\\000' <repeats 18 times>, \"c\"}"),
        ("{{x = 1, s = 0x1 \"a, b}\"}, {x = 2, s = 0x0}}", "[{x: 1, s: 0x1 \"a, b}\"}, {x: 2, s: 0x0}]"),
        ("(F_A | unknown: 0x8)", "(F_A | unknown: 0x8)"),
        ("(int (*)[4]) 0x4010 <g+16>", "(int (*)[4]) 0x4010 <g+16>"),
    ]
    for gdb, want in cases:
        eq(normalize(gdb), want, "normalize %r" % gdb)


test_normalize()
for variant in ("O0", "O2", "O0-nopie", "clang-O0", "clang-O2"):
    compare(variant)
check_no_leftovers("after the value tests")
finish()
