"""wide_std.py - the standard library's strings of wide characters and
of char8_t as gdb prints them: std::wstring L"...", std::u16string
u"...", std::u32string U"...", std::u8string and char8_t text "...",
their views, short and long, empty, repeated, past ASCII, in a struct, a
vector and a map, as parameters (bt args), with `print elements`, in the
C and the C.UTF-8 locale; {:s} of them and of a wchar_t pointer (their
characters bare, in UTF-8) and their NDJSON (the text as UTF-8).

widestd.cc built by g++ and clang-19 with libstdc++ (-O0, -O2): wraith
prints at one hit of show(), then gdb (with libstdc++'s printers)
attaches to the same process, stops at show() and prints the same
expressions (globals and parameters that do not change).  Built by
clang-19 with libc++, for which Debian's gdb has no printers: the same
source values, so wraith's text must equal gdb's of the g++ -O0 build,
addresses aside.
"""
from gdbvalues import gdb_values, normalize
from bt_support import parallel
from wraithtest import *
import re
import os
import subprocess

require_root()

EXPRS = ["ws_short", "ws_long", "ws_empty", "u16_short", "u16_long", "u32_short", "u32_long", "u8_short",
         "u8_long", "wview", "u16view", "u8p", "u8arr", "wp", "warr", "ws_rep", "labels", "wvec", "u16map",
         "w", "u", "p"]
LIMITED = ["ws_long", "u16_long", "u32_long", "u8_long", "wvec", "u16map", "ws_rep"]
BARE = [("wp", "wide pointer \u00e9"), ("warr", "warr"), ("ws_long", "a wide string long enough to live on "
        "the heap \u00e9\u20ac"), ("u16_long", "a UTF-16 string on the heap, with a pair: \U0001F600!"),
        ("u32_short", "\U0001F600"), ("u8_short", "caf\u00e9"), ("w", "a wide string long enough to live on "
        "the heap \u00e9\u20ac"), ("u", "s\u00e9")]
JSON = [("ws_short", "w\u00e9"), ("u16_long", "a UTF-16 string on the heap, with a pair: \U0001F600!"),
        ("u32_long", "a UTF-32 string on the heap: \u00e9\u20ac\U0001F600"), ("u8_short", "caf\u00e9"),
        ("wview", "a view of wide characters"), ("ws_empty", "")]


def wraith_lines(pid, exprs, spec="{}", output="plain", options=(), locale="C"):
    script = "trace show {\n" + "".join('print "%s", %s;\n' % (spec, e) for e in exprs) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "--script-output", output, "-q", *options],
              env={"LANG": locale, "LC_ALL": locale})
    check(res.returncode == 0, "wraith prints the expressions (%s)" % res.stderr.strip()[-400:])
    return res.stdout.splitlines()


def show_args(lines):
    for line in lines:
        m = re.match(r"\s*#0\s+show ?\((.*)\) at ", line)
        if m:
            return m.group(1)
    return None


def gdb_bt(pid):
    argv = ["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set width 0", "-ex", "break show",
            "-ex", "continue", "-ex", "bt 1", "-ex", "detach"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, LANG="C", LC_ALL="C")).stdout.splitlines()


def observe(variant):
    """wraith's and (for libstdc++) gdb's text at show() of one build."""
    fx = Fixture("widestd-" + variant, [-1, 2000])
    r = {"got": wraith_lines(fx.pid, EXPRS), "got_utf8": wraith_lines(fx.pid, EXPRS, locale="C.UTF-8"),
         "got_limited": wraith_lines(fx.pid, LIMITED, options=("--print-elements", 5)),
         "bare": wraith_lines(fx.pid, [e for e, _ in BARE], spec="{:s}", locale="C.UTF-8"),
         "json": json_events("\n".join(wraith_lines(fx.pid, [e for e, _ in JSON], output="json")))}
    res = run(["-p", fx.pid, "-s", "trace show { bt args; }", "--max-events", 1, "-q"],
              env={"LANG": "C", "LC_ALL": "C"})
    r["bt"] = show_args(res.stdout.splitlines())
    if "libcxx" not in variant:
        r["want"] = [shape(w) for w in gdb_values(fx.pid, EXPRS)]
        r["want_utf8"] = [shape(w) for w in gdb_values(fx.pid, EXPRS, locale="C.UTF-8")]
        r["want_limited"] = [shape(w) for w in gdb_values(fx.pid, LIMITED, settings=("set print elements 5",))]
        r["gdb_bt"] = show_args(gdb_bt(fx.pid))
    fx.stop()
    return r


def shape(w):
    """gdb's text in wraith's shape: a struct's members `x: 1`; a
    container keeps its printer's text."""
    if not w:
        return "<gdb printed nothing>"
    return w if w.startswith("std::") else normalize(w)


def strip_addresses(lines):
    return [re.sub(r"0x[0-9a-f]+", "0x?", x) if x else x for x in lines] if lines else lines


def compare(variant, r, oracle):
    for key, exprs, what in (("got", EXPRS, "print %s"), ("got_utf8", EXPRS, "print %s in C.UTF-8"),
                             ("got_limited", LIMITED, "print %s (elements 5)")):
        got = [x.strip() for x in r[key]]
        want = oracle[key.replace("got", "want")]
        if "libcxx" in variant:
            got, want = strip_addresses(got), strip_addresses(want)
        if not eq(len(got), len(exprs), "%s: one line per expression (%s)" % (variant, key)):
            continue
        for e, g, w in zip(exprs, got, want):
            eq(g, w, "%s: %s" % (variant, what % e))
    got_bt, want_bt = r["bt"], oracle["gdb_bt"]
    if "libcxx" in variant:
        got_bt, want_bt = strip_addresses([got_bt])[0], strip_addresses([want_bt])[0]
    eq(got_bt, want_bt, "%s: bt args of show as gdb's bt" % variant)
    for (e, want), got in zip(BARE, r["bare"]):
        eq(got.strip(), want, "%s: {:s} of %s, its characters bare in UTF-8" % (variant, e))
    vals = [a.get("value") for ev in r["json"] for it in ev["items"] for a in it.get("args", [])]
    eq(vals, [v for _, v in JSON], "%s: wide strings in JSON as UTF-8" % variant)


results = dict(zip(("O0", "O2", "clang-O0", "clang-O2", "libcxx-O0", "libcxx-O2"),
                   parallel(observe, ("O0", "O2", "clang-O0", "clang-O2", "libcxx-O0", "libcxx-O2"), workers=2)))
for v, r in results.items():
    # libc++: the same source values as gdb prints them from the g++ build
    compare(v, r, results["O0"] if "libcxx" in v else r)
check_no_leftovers("after the wide string tests")
finish()
