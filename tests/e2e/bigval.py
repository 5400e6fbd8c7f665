"""bigval.py - a value larger than the 8 KiB the probe copies of a value
printed whole: where the copy ends the value says `...`, as gdb's `print
elements` cut does, never `<unavailable>` without a word nor a made-up
count.  The struct shows its members up to the end of the copy (the char
array the end falls in up to its last whole run) and leaves the rest out;
its members printed alone equal gdb's; a char * member whose string is
longer than the 128 bytes the probe reads of it ends in `...`; an array of 3000 ints shows its
first 200 elements as gdb does, and with --print-elements 3000 those the
copy holds, then `...`.  And bt full shows frame 0's static local as
the probe copied it at the hit, as gdb's bt full shows it.
"""
import re
import subprocess
from gdbvalues import gdb_values, normalize
from wraithtest import *

require_root()


def wraith_values(pid, exprs, options=()):
    script = "trace show {\n" + "".join('print "{}", %s;\n' % e for e in exprs) + "}\n"
    res = run(["-p", pid, "-s", script, "--max-events", 1, "-q", *options])
    check(res.returncode == 0, "wraith prints the expressions (%s)" % res.stderr.strip()[-400:])
    return res.stdout.splitlines()[1:]


def gdb_full2(pid):
    """gdb's bt full of the two frames show and main."""
    return subprocess.run(["gdb", "-batch", "-nx", "-p", str(pid), "-ex", "set width 0", "-ex", "break show",
                           "-ex", "continue", "-ex", "bt full 2", "-ex", "detach"], capture_output=True, text=True,
                          timeout=120).stdout


ALONE = ["b->head", "b->tail", "b->d", "b->in", "ga.v[2999]", "ga", "&ga.v[2047]"]

for variant in ("O0", "clang-O2"):
    fx = Fixture("bigval-" + variant, [-1, 2000])
    got = wraith_values(fx.pid, ["*b"] + ALONE)
    want = gdb_values(fx.pid, ALONE)
    many = wraith_values(fx.pid, ["ga"], ("--print-elements", 3000))
    note = wraith_values(fx.pid, ["gnote"])
    want_note = gdb_values(fx.pid, ["gnote"])[0] or ""
    long_note = wraith_values(fx.pid, ["gnote"], ("--print-elements", 300))
    want_long_note = gdb_values(fx.pid, ["gnote.text"], settings=("set print elements 300",))[0] or ""
    full = run(["-p", fx.pid, "-s", "trace show { bt full; }", "--max-events", 1, "-q"]).stdout
    gdb_full = gdb_full2(fx.pid)
    fx.stop()
    eq(re.findall(r"^\s+seen = (.*)$", full, re.M), re.findall(r"^\s+seen = (.*)$", gdb_full, re.M) or ["<none>"],
       "%s: bt full shows frame 0's static local as gdb does" % variant)
    names = [normalize(n) for n in re.findall(r"^\s+names = (.*)$", gdb_full, re.M)]
    eq(re.findall(r"^\s+names = (.*)$", full, re.M), names or ["<none>"],
       "%s: bt full shows main's relocated static const array as gdb does" % variant)
    if eq(len(got), 1 + len(ALONE), "%s: one line per expression" % variant):
        eq(got[0].strip(), "{head: 1, pad: 'x' <repeats 20 times>...}",
           "%s: the struct shows ... where its copy ends" % variant)
        for e, w, g in zip(ALONE, want, got[1:]):
            eq(g.strip(), normalize(w or "<gdb printed nothing>"), "%s: print %s" % (variant, e))
    if eq(len(many), 1, "%s: ga with --print-elements 3000" % variant):
        eq(many[0].strip(), "{v: [%s, ...]}" % ", ".join(str(i) for i in range(2048)),
           "%s: ga: the 2048 elements its copy holds, then ..." % variant)
    # a member's string: gdb's 200 characters, then ...
    eq(note[0].strip() if note else "", normalize(want_note), "%s: print gnote" % variant)
    # cut where the probe's read of it ended (past 200 elements), it says so
    m = re.match(r'\{id: 3, text: (0x[0-9a-f]+) "(.*)"\.\.\.\}$', long_note[0].strip() if long_note else "")
    w = re.match(r'(0x[0-9a-f]+) "(.*)"$', want_long_note)
    check(m and w and m.group(1) == w.group(1) and w.group(2).startswith(m.group(2)) and len(m.group(2)) > 200,
          "%s: a member's string cut by the probe's read ends in ... (%r, gdb %r)"
          % (variant, long_note, want_long_note))
check_no_leftovers("after the big value tests")
finish()
