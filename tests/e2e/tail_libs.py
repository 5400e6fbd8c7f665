"""tail_libs.py - functions that left the stack by tail calls, across
modules (issue 23): at lib_land's entry in the tails fixture, `bt args`
shows the same frames as gdb's `bt` (with `set backtrace past-main on`),
tail-called ones included, each with the same parameters in the same
forms (`k=k@entry=42`), in the same live process:
  one   x_hop in the program jumps to lib_land in libfix_tails: gdb shows
        x_hop's tailcall frame between lib_land and main;
  two   x_hop2 jumps to lib_hop in the library, which jumps to lib_land:
        two tailcall frames, lib_hop's entry values read through x_hop2's
        jump and lib_land's through lib_hop's;
  lib   main calls lib_hop through the PLT, which jumps to lib_land.
GCC's tail call sites carry a return address, which gdb 13 follows;
clang's carry DW_AT_call_pc only, which gdb 13 ignores: it shows no
tailcall frame there, and neither does wraith.  Built by gcc and clang at
-O2 (the program also without PIE) and with -flto (the library at -O2).
"""

from wraithtest import *

require_root()

BUILDS = ["tails-O2", "tails-O2-nopie", "tails_lto", "tails-clang-O2", "tails_clang-lto"]
MODES = {"one": ["lib_land", "x_hop", "main"], "two": ["lib_land", "lib_hop", "x_hop2", "main"],
         "lib": ["lib_land", "lib_hop", "main"]}


def one(build, mode):
    fx = Fixture(build, [2000, mode])
    mine = bt_args_frames(fx.pid, "lib_land")
    gdb, text = gdb_bt_args(fx.pid, "lib_land")
    fx.stop()
    eq(mine, gdb, "%s %s: bt args at lib_land's entry as gdb's bt (gdb: %s)" % (build, mode, text[-600:]))
    # the shapes are really there: GCC's jumps give gdb its tailcall frames
    want = MODES[mode] if "clang" not in build else [MODES[mode][0], "main"]
    eq([f[0] for f in gdb], want, "%s %s: the frames gdb shows" % (build, mode))
    if "clang" not in build:
        check(gdb and gdb[0][1].count("@entry=") == 2, "%s %s: gdb shows lib_land's entry values" % (build, mode))


for b in BUILDS:
    for mode in MODES:
        one(b, mode)
check_no_leftovers("after the tail calls across modules")
finish()
