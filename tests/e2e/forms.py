"""forms.py - a probe whose sites keep its variables in different forms
(forms.c: hot() inlined into callers that pass v and site in a register, as
a constant, across a call, under register pressure, from a struct's pieces,
a field, a narrowed value, a call's result), built by gcc and clang at -O2
and with -flto.

The sites' forms compile into one program (wraith -v says how many forms,
and "one program"), and at every site the values printed are gdb's at the
same pc of the same process: v and site do not change from round to round
(forms.c), so each pc has one line of values.  A site where gdb has no
hot frame (a pc only the location views place in hot) is not compared.

The probe has a bt too, and so unwinds in the forms' one program: at every
site the backtrace is gdb's `bt` at that pc, frame for frame (physical
frames, their modules and names, inline frames included).  Frame 0 is
unwound by the rule of the site's own pc: a program built for another
site of the form must not lend it its own (the sites' frames differ).
"""
import re

from bt_support import *

require_root()

SCRIPT = 'trace hot { print "{}|{}|{}", $pc, v, site; bt; }'



def shown(a):
    return "<optimized out>" if a["error"] is not None else str(a["value"])


def one(build):
    fx = Fixture(build, [2000, 100])
    res = run(["-p", fx.pid, "-s", SCRIPT, "--max-events", 200, "--timeout", 60, "--script-output",
               "json", "-v", "--probe-cache", "off"], timeout=300)
    check(res.returncode == 0, "%s: wraith traces hot (%s)" % (build, res.stderr.strip()[-300:]))
    m = re.search(r"probe 1: (\d+) sites in (\d+) forms, one program", res.stderr)
    check(m is not None and int(m.group(2)) >= 3,
          "%s: the sites' forms are one program (%s)" % (build, m.group(0) if m else "no such line"))
    by_pc, bts = {}, {}
    for ev in json_events(res.stdout):
        pc, v, site = [it for it in ev["items"] if it["type"] == "print"][0]["args"]
        by_pc.setdefault(int(pc["value"], 16), set()).add((shown(v), shown(site)))
        bts.setdefault(int(pc["value"], 16), [it for it in ev["items"] if it["type"] == "backtrace"][0])
    check(len(by_pc) >= 10, "%s: %d sites fired" % (build, len(by_pc)))
    check(all(len(vals) == 1 for vals in by_pc.values()), "%s: one pc, one line of values" % build)
    gv = gdb_frame_values(fx.pid, sorted(by_pc), "hot", ("v", "site"))
    stacks = gdb_stacks_at(fx.pid, sorted(bts))
    fx.stop()
    check(len(stacks) == len(bts), "%s: gdb stopped at each of the %d pcs (%d)" % (build, len(bts), len(stacks)))
    own, same = own_modules(fixture(build)), 0
    for pc, stack in sorted(stacks.items()):
        if stack[0]["name"] != "hot":
            continue  # gdb stands in the caller at an inlined call's first pc
        same += 1
        compare_stack(bts[pc], stack, own, "%s at 0x%x: the backtrace is gdb's" % (build, pc))
    check(same >= len(bts) // 2, "%s: backtraces compared at %d of %d pcs" % (build, same, len(bts)))
    compared = 0
    for pc, vals in sorted(by_pc.items()):
        g = gv.get("%x" % pc)
        if g is None:
            continue
        compared += 1
        v, site = next(iter(vals))
        eq((v, site), (re.sub(r"@entry.*", "", g["v"]), g["site"]),
           "%s at 0x%x: v and site are gdb's" % (build, pc))
    check(compared >= len(by_pc) // 2, "%s: gdb compared at %d of %d pcs" % (build, compared, len(by_pc)))


for build in ("forms-O2", "forms-clang-O2", "forms_lto", "forms_clang-lto"):
    one(build)
finish()
