"""entry_libs.py - values the caller passed, across modules (issue 23): in
the tails fixture's `after` mode, x_call() in the program calls
lib_after(&tails_obj, 17) in libfix_tails, and at lib_after's ENTRY-LINE
(after a call of its own) the parameters' registers are gone: their
locations say only what rdi and rsi held on entry (DW_OP_entry_value),
and only x_call's call site, in the other module, says what that was.
`bt args` there shows the frames gdb's `bt` shows, each with the same
parameters in the same forms (`o=o@entry=0x... <tails_obj>`,
`k=k@entry=17`), in the same live process; gdb's own `print o@entry` and
`print k@entry` agree.  clang's call site says nothing of rdi (gdb and
wraith show `o=<optimized out>`), GCC's says both; clang's under -flto
says neither, and both tools show `<optimized out>`.  Built by gcc and
clang at -O2 (the program also without PIE) and with -flto (the library
at -O2).
"""
import re

from wraithtest import *

require_root()

BUILDS = ["tails-O2", "tails-O2-nopie", "tails_lto", "tails-clang-O2", "tails_clang-lto"]
LINE = marker_line("libfix_tails.c", "/* ENTRY-LINE")


def one(build):
    fx = Fixture(build, [2000, "after"])
    point = "libfix_tails.c:%d" % LINE
    mine = bt_args_frames(fx.pid, point)
    gdb, text = gdb_bt_args(fx.pid, point, ["print o@entry", "print k@entry"])
    printed = re.findall(r"^\$\d+ = (.*)$", text, re.M)
    fx.stop()
    eq(mine, gdb, "%s: bt args at lib_after's ENTRY-LINE as gdb's bt (gdb: %s)" % (build, text[-600:]))
    eq([f[0] for f in gdb], ["lib_after", "x_call", "main"], "%s: the frames gdb shows" % build)
    # the shape is really there: gdb takes k (and, from GCC's call site,
    # o) from the caller in the other module
    if build != "tails_clang-lto":
        entries = 2 if "clang" not in build else 1
        check(gdb and gdb[0][1].count("@entry=") == entries and "k=k@entry=17" in gdb[0][1],
              "%s: gdb shows lib_after's entry values from x_call's call site (%s)" % (build, gdb and gdb[0][1]))
    if "clang" not in build:
        check(len(printed) == 2 and printed[1] == "17" and "<tails_obj>" in printed[0],
              "%s: gdb's print o@entry, k@entry (%s)" % (build, printed))


for b in BUILDS:
    one(b)
check_no_leftovers("after the entry values across modules")
finish()
