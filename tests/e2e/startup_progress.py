"""startup_progress.py - start-up that takes long says how far it got.

A probe of hundreds of sites on a big program can take seconds to compile;
past about a second, a terminal's stderr shows which probe and which of
its sites wraith is at ("probe 1 (hot): compiling site 120 of 400"), on
one line rewritten in place and cleared once done, rather than nothing.
WRAITH_PROGRESS_AFTER=SECONDS sets that wait (0 here, so the fixture's
quick start-up shows it).  stderr that is not a terminal gets none of it,
as for the other progress lines.  The fixture is manysites.c's (hot()
inlined at 400 places).
"""
import os
import pty
import re
import subprocess

from wraithtest import *

require_root()

N = 400
SCRIPT = 'trace hot { print "{}", site; }'


def on_terminal(fx, after, dry=True):
    """wraith's stderr, read from a terminal, and its exit status."""
    master, slave = pty.openpty()
    args = [WRAITH, "-p", str(fx.pid), "-s", SCRIPT, "--probe-cache", "off"]
    args += ["--dry-run"] if dry else ["--max-events", "1", "--timeout", "60"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave,
                            env=dict(os.environ, WRAITH_PROGRESS_AFTER=after))
    os.close(slave)
    err = read_terminal(master)
    proc.communicate(timeout=HANG_GUARD)
    return err.decode(errors="replace"), proc.returncode


fx = Fixture("manysites-O2", [2000])

err, rc = on_terminal(fx, "0")
eq(rc, 0, "dry run on a terminal: exit 0 (%r)" % err[-300:])
steps = [int(m.group(1)) for m in re.finditer(r"\r\033\[Kwraith: probe 1 \(hot\): compiling site (\d+) of %d"
                                              % N, err)]
check(steps and steps[-1] == N and steps == sorted(steps),
      "the sites compiled show as they go, up to %d of %d (%s)" % (N, N, steps[:5] + steps[-3:]))
check(re.search(r"\r\033\[Kwraith: probe 1 \(hot\): compiling its forms into one program|"
                r"\r\033\[Kwraith: probe 1 \(hot\): compiling\b(?! site)", err),
      "the compile of the probe's program shows (%r)" % err[:400])
last = err.rfind("compiling site")
check("\r\033[K" in err[last:] and "\r\033[Kwraith: probe" not in err[err.rfind("\r\033[K"):],
      "the progress line is cleared when the probe is compiled (%r)" % err[last:last + 200])
check("probe 1: hot (%d sites)" % N not in err, "the plan goes to stdout, not in the progress")

err, rc = on_terminal(fx, "0", dry=False)
eq(rc, 0, "tracing on a terminal: exit 0 (%r)" % err[-300:])
check("\r\033[Kwraith: probe 1 (hot): loading" in err,
      "loading the probe into the kernel shows (%r)" % err[-400:])
before = err[:err.find("wraith: tracing")]
shown = before.rfind("\r\033[Kwraith: probe 1 (hot):")
check("wraith: tracing" in err and shown >= 0 and "\r\033[K" in before[shown + 3:],
      "the progress line is cleared before the status line (%r)" % err[-300:])

err, rc = on_terminal(fx, "1000")
eq(rc, 0, "quick start-up: exit 0")
check("compiling" not in err, "a start-up quicker than the wait shows no progress (%r)" % err[:300])

res = run(["-p", fx.pid, "-s", SCRIPT, "--dry-run", "--probe-cache", "off"], env={"WRAITH_PROGRESS_AFTER": "0"})
eq(res.returncode, 0, "dry run into a pipe: exit 0")
check("compiling site" not in res.stderr and "\033[K" not in res.stderr,
      "stderr that is not a terminal gets no progress (%r)" % res.stderr[:300])
fx.stop()
check_no_leftovers("after the start-up progress")
finish()
