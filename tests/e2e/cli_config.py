"""cli_config.py - settings from the configuration file (GhostScope's keys:
`[ebpf] backtrace_depth = 4` works), the default file under
$XDG_CONFIG_HOME, precedence (command line over file), located errors in the
file, the render rate limit of script mode with its once-a-second report,
and --batch stopping at a failed `info` query unless --keep-going."""
import os
import re
import tempfile

from wraithtest import *

require_root()
fx = Fixture("chain-O2fp", [200])
tmp = tempfile.mkdtemp(prefix="wraith-cfg-")
BT = ["-p", fx.pid, "-s", "trace leaf { bt; }", "--max-events", 1, "--script-output", "plain",
      "--color", "never", "-q"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def max_depth(res):
    m = re.search(r"frames? \(max (\d+)\)", res.stdout)
    return int(m.group(1)) if m else None


# --config with GhostScope's section and key
cfg = os.path.join(tmp, "gs.toml")
write(cfg, "# a GhostScope configuration\n[ebpf]\nbacktrace_depth = 4\nringbuf_size = 262144\n"
      "perf_page_count = 64\n"
      "[ui]\nlayout = \"Vertical\"\n")
res = run(["--config", cfg] + BT, env={"XDG_CONFIG_HOME": tmp})
eq(res.returncode, 0, "--config: exit 0 (%r)" % res.stderr)
eq(max_depth(res), 4, "[ebpf] backtrace_depth = 4 sets the depth")
check(res.stdout.startswith("backtrace: truncated, 4 frames (max 4)"),
      "the backtrace stops at 4 frames (%r)" % res.stdout[:80])
# -q hides the note about GhostScope keys; without it, one line names them
res = run(["--config", cfg, "-p", fx.pid, "-s", "trace leaf {}", "--max-events", 1],
          env={"XDG_CONFIG_HOME": tmp})
eq(res.stderr.splitlines()[0],
   "wraith: %s: ignoring GhostScope settings that wraith does not have: ebpf.perf_page_count, "
   "ui.layout" % cfg, "GhostScope-only keys are named once, not refused")

# the default file, and the command line over it
write(os.path.join(tmp, "xdg", "wraith", "config.toml"), "[ebpf]\nbacktrace_depth = 3\n")
res = run(BT, env={"XDG_CONFIG_HOME": os.path.join(tmp, "xdg")})
eq(max_depth(res), 3, "$XDG_CONFIG_HOME/wraith/config.toml is read by default")
res = run(BT + ["--backtrace-depth", 5], env={"XDG_CONFIG_HOME": os.path.join(tmp, "xdg")})
eq(max_depth(res), 5, "the command line overrides the file")

# errors in the file are located
bad = os.path.join(tmp, "bad.toml")
write(bad, "[ebpf]\nbacktrace_depth = 2.5\n")
res = run(["--config", bad] + BT)
eq(res.returncode, 2, "a bad configuration file: exit 2")
eq(res.stderr, "%s:2:19: error: floating-point values are not supported in wraith's "
   "configuration\n    backtrace_depth = 2.5\n                      ^~~\nhint: use an integer\n" % bad,
   "the error names the file, line and column, with a caret")
write(bad, "[ebpf]\nbacktrace_depht = 4\n")
res = run(["--config", bad] + BT)
check(res.returncode == 2 and "bad.toml:2:1: error: unknown key `backtrace_depht` in [ebpf]" in
      res.stderr and "did you mean `backtrace_depth` in [ebpf]?" in res.stderr,
      "an unknown key: located, with a suggestion (%r)" % res.stderr)

# the render rate limit: at most N events a second, the rest counted on stderr
res = run(["-p", fx.pid, "-s", 'trace leaf { print "x"; }', "--script-output", "plain",
           "--script-output-events-per-sec", 20, "--timeout", 2.5])
shown = res.stdout.count("x\n")
check(20 <= shown <= 80, "rate limit 20/s over 2.5 s shows 20..80 events (%d)" % shown)
reports = re.findall(r"wraith: warning: output saturated: (\d+) events not shown in the last "
                     r"(second|moments) \((\d+) in all, limit 20/s, "
                     r"--script-output-events-per-sec\)", res.stderr)
check(len(reports) >= 2, "the suppressed count is reported about once a second (%r)" % res.stderr)
check(reports and int(reports[-1][2]) == sum(int(r[0]) for r in reports),
      "the reports add up to the total")
res = run(["-p", fx.pid, "-s", 'trace leaf { print "x"; }', "--script-output", "plain",
           "--timeout", 1])
check(res.stdout.count("x\n") > 100 and "saturated" not in res.stderr,
      "into a pipe, no limit by default (%d events)" % res.stdout.count("x\n"))

# --batch: a query that finds nothing is a failed command
batch = os.path.join(tmp, "q.batch")
write(batch, "info line chain.c:100000\ninfo functions ^leaf$\n")
res = run(["-p", fx.pid, "--batch", batch])
eq(res.returncode, 2, "--batch: `info line` with no code stops with exit 2")
eq(res.stderr, "%s:1: error: no code at chain.c:100000 (no line table of the target has it)\n"
   % batch, "the failure is located at its line")
check("leaf" not in res.stdout, "nothing after the failed command ran")
res = run(["-p", fx.pid, "--batch", batch, "--keep-going"])
check(res.returncode == 2 and "leaf" in res.stdout, "--keep-going: the next command runs, exit 2")

check_no_leftovers("after the configuration tests")
fx.stop()
finish()
