"""refused.py - probe sites whose first instruction the kernel's uprobes
refuse (refused.cc, gcc and clang at -O0 and -O2).

  padded     a CS-prefixed no-op, then the line's incl: the uprobe goes on
             the incl, --dry-run and -v say so, and the probe fires once a
             call, stopping where gdb's breakpoint on padded shows it.
  locked     lock incl: no instruction can stand in for it; the only site
             is skipped with a warning and the probe fails, naming what the
             kernel refused, with no errno number.
  spin_head  the no-op is followed by a loop's head: skipped.
  vexed      vpcmpeqb, which the kernel accepts and would emulate as a jump
             (the instruction would not run): skipped.
  bump       two sites, one refused: the other is kept and fires.
With WRAITH_FAULT=placement the uprobe goes on the refused no-op anyway:
the kernel's refusal at attach time is told in words.
"""
import re
import subprocess
import tempfile

from wraithtest import *

require_root()

SRC = "refused.cc"


def gdb_at(binary, function, exprs, count):
    """gdb's breakpoint address for `function`, and the values of `exprs`
    at each of its first `count` stops."""
    cmds = ["set pagination off", "set confirm off", "break %s" % function, "run"]
    for _ in range(count):
        cmds += ["print %s" % e for e in exprs] + ["continue"]
    cmds.append("kill")
    argv = ["gdb", "-batch", "-nx"]
    for c in cmds:
        argv += ["-ex", c]
    out = subprocess.run(argv + [binary], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"Breakpoint 1 at (0x[0-9a-f]+)", out)
    return (int(m.group(1), 16) if m else None,
            [int(v) for v in re.findall(r"^\$\d+ = (-?\d+)", out, re.M)])


def no_number(text, what):
    check(not re.search(r"Unknown error|\b524\b|strerror_r", text),
          "%s: no errno number reaches the user (%r)" % (what, text[-400:]))


for variant in ("O0", "O2", "clang-O0", "clang-O2"):
    binary = fixture("refused-" + variant)
    fx = Fixture("refused-" + variant)

    # padded: moved past the no-op, and said so
    res = run(["-p", fx.pid, "--dry-run", "-s", 'trace padded { print "{}", hits; }'])
    m = re.search(r"placed at \+0x([0-9a-f]+), past the no-op at \+0x([0-9a-f]+) that the kernel's "
                  r"uprobes refuse \(66 66 66 66 2e 0f 1f 84 00 00 00 00 00, a no-op: its CS "
                  r"segment-override prefix \(2e\)\)", res.stdout)
    check(res.returncode == 0 and m, "%s: --dry-run shows padded's uprobe past the no-op (%r)"
          % (variant, res.stdout + res.stderr))
    site = int(m.group(2), 16) if m else None
    if m:
        eq(int(m.group(1), 16) - site, 13, "%s: the uprobe goes on the instruction right after the "
           "13-byte no-op" % variant)
        check(re.search(r"#1 refused-%s\+0x%s .*inline padded at \S*refused\.cc:%d" %
                        (re.escape(variant), m.group(1), marker_line(SRC, "LINE:padded")), res.stdout),
              "%s: the site is listed at its new place and line (%r)" % (variant, res.stdout))
    gaddr, gvals = gdb_at(binary, "padded", ["hits"], 3)
    eq(gaddr, site, "%s: the site is where gdb breaks on padded" % variant)
    eq(gvals, [0, 1, 2], "%s: gdb sees hits 0, 1, 2 at padded" % variant)

    res = run(["-p", fx.pid, "-v", "--max-events", 3, "--script-output", "json", "-q", "-s",
               'trace padded { print "{}", hits; bt; }'])
    evs = json_events(res.stdout)
    check(res.returncode == 0 and len(evs) == 3, "%s: padded fires (%r)" % (variant, res.stderr[-500:]))
    check("placed at +0x" in res.stderr, "%s: -v says where padded's uprobe went" % variant)
    vals = [int(e["items"][0]["text"]) for e in evs]
    eq([v - vals[0] for v in vals], [0, 1, 2], "%s: once a call, seeing hits before the line's incl "
       "as gdb does at the site (%r)" % (variant, vals))
    if evs:
        eq(wraith_stack(evs[0]["items"][1]), gdb_backtraces(binary, "padded")[0],
           "%s: the backtrace is gdb's at padded" % variant)

    # locked, spin_head, vexed: nowhere to go
    for fn, why in (("locked", r"its LOCK prefix \(f0\)\), and no later one can stand in for it: it is "
                                r"not a no-op"),
                    ("spin_head", r"CS segment-override prefix \(2e\)\), and no later one can stand in "
                                  r"for it: a jump of the same call lands on it"),
                    ("vexed", r"would mishandle its first instruction \(c5 f9 74 c0: it is an AVX "
                              r"instruction whose opcode byte \(74\) the kernel takes for a jump")):
        res = run(["-p", fx.pid, "-s", 'trace %s { print "x"; }' % fn, "--max-events", 1])
        check(res.returncode == 2 and
              re.search(r"warning: probe 1 \(%s\): site refused-%s\+0x[0-9a-f]+ \(inline %s at \S+:\d+\) "
                        r"is skipped: the kernel's uprobes .*%s" % (fn, re.escape(variant), fn, why),
                        res.stderr) and
              "error: no site of '%s' can take a uprobe" % fn in res.stderr,
              "%s: %s's only site is skipped, saying why, and the probe fails (%r)"
              % (variant, fn, res.stderr))
        no_number(res.stderr, "%s: %s" % (variant, fn))

    # bump: one site of two is kept
    with tempfile.NamedTemporaryFile("w", suffix=".batch") as batch:
        batch.write('trace bump { print "{}", plain; }\ninfo probes\n')
        batch.flush()
        res = run(["-p", fx.pid, "--batch", batch.name])
    check(re.search(r"warning: probe 1 \(bump\): site refused-\S+ \(inline bump<true> at \S+\) is skipped",
                    res.stderr) and
          re.search(r"probe 1: bump \(1 site\)\n  #1 \S+ .*inline bump<false>.*\n  skipped: \S+ "
                    r"\(inline bump<true> at \S+\): the kernel's uprobes refuse", res.stdout),
          "%s: bump keeps its other site, and info probes lists the skipped one (%r)"
          % (variant, res.stdout + res.stderr))
    res = run(["-p", fx.pid, "-s", 'trace bump { print "{}", plain; }', "--max-events", 2])
    check(res.returncode == 0 and res.stdout.count("#1 ") == 2, "%s: bump fires at its kept site (%r)"
          % (variant, res.stderr[-300:]))

    # the kernel's own refusal, when wraith does not place the uprobe
    res = run(["-p", fx.pid, "-s", 'trace padded { print "x"; }', "--max-events", 1, "-v"],
              env={"WRAITH_FAULT": "placement"})
    check(res.returncode == 1 and
          re.search(r"warning: probe 1 \(padded\): site refused-%s\+0x%x \(inline padded\) is skipped: "
                    r"the kernel's uprobes cannot single-step the instruction there \(66 66 66 66 2e 0f "
                    r"1f 84 00 00 00 00 00\)" % (re.escape(variant), site or 0), res.stderr) and
          "probe 1 (padded) could not be attached: the kernel's uprobes took none of its sites"
          in res.stderr,
          "%s: the kernel's refusal at attach time is told in words (%r)" % (variant, res.stderr[-600:]))
    no_number(res.stderr, "%s: the kernel's refusal" % variant)
    fx.stop()

check_no_leftovers("after the refused sites")
finish()
