"""bt_nocfi.py - a module without any CFI, in every build: nocfi.c is built
with -fno-asynchronous-unwind-tables -fno-unwind-tables, and .eh_frame,
.eh_frame_hdr and .debug_frame are removed after linking.  wraith must say
so: status dwarf-unavailable (2, "the module of this frame has no call
frame information at all"), error none, since nothing failed; and give
only frames gdb also has, in gdb's order: a prefix of gdb's stack (gdb can
still walk it by prologue analysis), never an invented frame."""
import subprocess

from bt_support import *

require_root()

cases = [Case("nocfi-%s" % v) for v in VARIANTS]
run_cases(cases)
for c in cases:
    sections = subprocess.run(["readelf", "-SW", c.binary], capture_output=True, text=True).stdout
    check(".eh_frame" not in sections and ".debug_frame" not in sections,
          "%s: the fixture has no .eh_frame and no .debug_frame" % c.label)
    bt, stack = c.ok()
    if bt is None:
        continue
    eq((bt["status"], bt["status_code"], bt["error"], bt["error_code"]),
       ("dwarf-unavailable", 2, "none", 0), "%s: the status says the module has no CFI" % c.label)
    check(bt["frame_count"] >= 1 and bt["frames"][0]["function"] == "leaf",
          "%s: frame 0 is the probe's own function" % c.label)
    compare_stack(bt, stack, c.own, "%s: wraith's frames are a prefix of gdb's" % c.label, cut_main=False,
                  prefix=True)
    check(all(f["module"] and f["function"] for f in bt["frames"]),
          "%s: every frame given is in a known module and named (%s)" % (
              c.label, [(f["function"], f["module"]) for f in bt["frames"]]))
    eq(bt["frame_count"], len(bt["frames"]), "%s: frame_count matches the frames listed" % c.label)

check_no_leftovers("after the no-CFI backtraces")
finish()
