"""const_forms.py - locals folded to constants whose DW_AT_const_value is
a fixed-size form with its top bit set (constforms.c: GCC -O2 writes
size_t 200 as data1 0xc8, 40000 as data2 for an unsigned short and an
unsigned int, 3000000000 as data4; a signed char -56 as sdata).  gdb
reads the form's bits and cuts them to the variable's type; wraith took
every form as signed (libdw's dwarf_formsdata), so `pos` showed
18446744073709551560 and `mid` 4294941760 (zstd's `size_t const
dtablePos = 128` in FSE_decompress_wksp_body showed so).  print and bt
full equal gdb's print and bt full at the same line of the same
process; gcc and clang-19, -O0 and -O2 (clang writes no such form: the
values are checked the same)."""
import subprocess

from wraithtest import *

require_root()

NAMES = ("pos", "wide", "mid", "big", "neg")
LINE = "constforms.c:%d" % marker_line("constforms.c", "/* CONST-LINE")
LOCAL = re.compile(r"^\s{8,}(\w+) = (.*)$", re.M)

for build in ("constforms-O0", "constforms-O2", "constforms-clang-O0", "constforms-clang-O2"):
    fx = Fixture(build, [20000])
    script = "trace %s { print \"%s\", %s; bt full; }" % (LINE, " | ".join(["{}"] * len(NAMES)), ", ".join(NAMES))
    res = run(["-p", fx.pid, "-s", script, "--max-events", 1])
    argv = ["gdb", "-batch", "-nx", "-p", str(fx.pid), "-ex", "break " + LINE, "-ex", "continue"]
    for n in NAMES:
        argv += ["-ex", "print " + n]
    out = subprocess.run(argv + ["-ex", "bt full 1", "-ex", "detach"], capture_output=True, text=True,
                         timeout=120).stdout
    fx.stop()
    gprint = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    eq(len(gprint), len(NAMES), "%s: gdb printed each local (%s)" % (build, out[-300:]))
    m = re.search(r"^  (.*)$", res.stdout, re.M)
    wprint = m.group(1).split(" | ") if m else []
    eq(wprint, gprint, "%s: print of the constants is gdb's" % build)
    mine = {n: v for n, v in LOCAL.findall(res.stdout) if n in NAMES}
    eq(mine, {n: v for n, v in LOCAL.findall(out) if n in NAMES}, "%s: bt full's locals are gdb's" % build)
check_no_leftovers("after the constants")
finish()
