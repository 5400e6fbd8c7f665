"""wide.py - wide characters as gdb prints them: wchar_t, char16_t and
char32_t values with their literal (90 L'Z', 120 u'x', 121 U'y'), arrays
of them and pointers to them as strings (L"abc", u"...", U"..."), with
gdb's escapes (octal up to 0777, hex above, a hex digit after a hex
escape escaped too), repeats, `print elements`, in structs, in JSON, and
as the parameters bt args shows; in C, where they are typedefs, and in
C++, where they are types of their own, built by gcc and clang.

wraith prints at one hit of show(); then gdb attaches to the same process,
stops at show() and prints the same expressions (every value is a global
or a parameter that does not change).
"""
from gdbvalues import gdb_values, normalize
from wraithtest import *
import re
import os
import subprocess

require_root()

EXPRS = ["gw", "g16", "g32", "wuni", "wneg", "wnl", "wquote", "ubig", "wp", "up", "bigp", "longw",
         "emptyw", "nullw", "warr", "uarr", "bigarr", "rep", "sur", "lone", "hexd", "esc", "erep", "gn",
         "gn.tag", "gn.c32", "*wp", "wp[1]", "&gw", "&warr[1]", "w", "c", "*n", "n->name", "heapw",
         # $pc is (void (*)()) in C, (void (*)(void)) in C++
         "$pc", "u8s", "u8rep"]
LIMITED = ["longw", "rep", "erep", "warr", "gn"]
# in a UTF-8 locale gdb shows printable characters past ASCII as
# themselves, and escapes the rest as in the C locale
UTF8 = ["up", "bigp", "wuni", "ubig", "g32", "sur", "lone", "hexd", "erep", "u8s", "u8rep", "gn", "heapw",
        "esc", "*n"]


def wraith_values(pid, exprs, output="plain", options=(), locale="C"):
    script = "trace show {\n" + "".join('print "{}", %s;\n' % e for e in exprs) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "--script-output", output, "-q", *options],
              env={"LANG": locale, "LC_ALL": locale})
    check(res.returncode == 0, "wraith prints the expressions (%s)" % res.stderr.strip()[-400:])
    return res.stdout.splitlines()


def frame_args(lines):
    """{function: its arguments' text} of a bt's frames, wraith's or gdb's."""
    out = {}
    for line in lines:
        m = re.match(r"\s*#\d+\s+(?:0x[0-9a-f]+ in )?(show|outer) ?\((.*)\) at ", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def gdb_bt(pid):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set width 0", "-ex", "break show",
            "-ex", "continue", "-ex", "bt 2", "-ex", "detach"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, LANG="C", LC_ALL="C")).stdout.splitlines()


def compare(variant):
    fx = Fixture(variant, [-1, 2000])
    got = wraith_values(fx.pid, EXPRS)
    want = gdb_values(fx.pid, EXPRS)
    got_limited = wraith_values(fx.pid, LIMITED, options=("--print-elements", 5))
    want_limited = gdb_values(fx.pid, LIMITED, settings=("set print elements 5",))
    got_utf8 = wraith_values(fx.pid, UTF8, locale="C.UTF-8")
    want_utf8 = gdb_values(fx.pid, UTF8, locale="C.UTF-8")
    ev = json_events("\n".join(wraith_values(fx.pid, ["wp", "up", "bigp", "gn", "heapw", "sur"], "json")))
    vals = [a.get("value") for e in ev for it in e["items"] for a in it.get("args", [])]
    # a char array's JSON string ends at its first NUL: a wide one's too
    eq(vals, ["hello", "h\u00e9llo", "w\u00f6rld", {"id": 7, "name": "nm", "n16": "xy", "tag": "t", "c32": 99},
              "h\u03b1p", "\U0001F600"], "%s: wide strings in JSON" % variant)
    if "O0" in variant:
        res = run(["-p", fx.pid, "-s", "trace show { bt args; }", "--max-events", 1, "-q"],
                  env={"LANG": "C", "LC_ALL": "C"})
        wbt, gbt = frame_args(res.stdout.splitlines()), frame_args(gdb_bt(fx.pid))
        eq(sorted(wbt), ["outer", "show"], "%s: bt args shows show and outer" % variant)
        for fn in sorted(wbt):
            eq(wbt[fn], gbt.get(fn), "%s: bt args of %s as gdb's bt" % (variant, fn))
    fx.stop()
    if not eq(len(got), len(EXPRS), "%s: one line per expression" % variant):
        return
    for e, w, g in zip(EXPRS, want, got):
        eq(g, normalize(w) if w is not None else "<gdb printed nothing>", "%s: print %s" % (variant, e))
    for e, w, g in zip(LIMITED, want_limited, got_limited):
        eq(g, normalize(w or "<gdb printed nothing>"), "%s: print %s (elements 5)" % (variant, e))
    for e, w, g in zip(UTF8, want_utf8, got_utf8):
        eq(g, normalize(w or "<gdb printed nothing>"), "%s: print %s in a UTF-8 locale" % (variant, e))


for variant in ("wide-O0", "wide-O2", "wide-clang-O0", "wide-clang-O2",
                "widecxx-O0", "widecxx-O2", "widecxx-clang-O0", "widecxx-clang-O2"):
    compare(variant)
check_no_leftovers("after the wide character tests")
finish()
