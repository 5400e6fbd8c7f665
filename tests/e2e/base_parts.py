"""base_parts.py - in script mode the base object leaves out what the one
script cannot reach, since the kernel checks all it loads at every start:

- no `bt` and no `count bt`: no step program is loaded (events still come);
- `bt` without `count bt` and frame values: the lean step program (no
  stack counting, no copies of outer frames' values), and its backtrace
  equals gdb's at the same function;
- `count bt`, `bt args`: the full one, which still counts stacks and shows
  frame 0's parameters.

-v says which base object a run loaded.  gcc and clang-19 builds."""
import json
import re
import signal
import subprocess

from wraithtest import *

require_root()

LEAN = "base object: lean (no count bt, no frame values)"
NO_STEP = ", without the step program"
FULL = "base object: full"


def programs():
    return json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                                     text=True).stdout)


def step_loaded(wpid):
    """Whether the wraith @wpid loaded a step program: one named wr_bt_step
    that shares a map with that wraith's probe programs."""
    progs = programs()
    maps = set()
    for p in progs:
        if p.get("name", "").startswith("wr%07d_" % wpid):
            maps |= set(p.get("map_ids", []))
    check(bool(maps), "wraith %d has probe programs" % wpid)
    return any(p.get("name") == "wr_bt_step" and maps & set(p.get("map_ids", []))
               for p in progs)


def traced(fx, script, extra=()):
    """Run @script on @fx until a few events came, looking at the loaded
    programs meanwhile: (stdout, stderr, step program loaded)."""
    p = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", script, "-v", "--color", "never"]
                         + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = Lines(p.stderr)
    out = Lines(p.stdout)
    if not check(err.wait(lambda ls: any("wraith: tracing" in l for l in ls)),
                 "%r started" % script):
        p.kill()
        p.wait()
        return out.text(), err.text(), None
    step = step_loaded(p.pid)
    out.wait(lambda ls: len(ls) >= 3, timeout=20)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    return out.text(), err.text(), step


for variant in ("O2", "clang-O2"):
    name = "vars-" + variant
    binary = fixture(name)
    fx = Fixture(name, [1000])

    out, err, step = traced(fx, 'trace probe_here { print "n={}", n; }', ["--script-output", "plain"])
    check(LEAN + NO_STEP in err, "%s: print only: -v says lean, without the step program" % name)
    eq(step, False, "%s: print only: no step program loaded" % name)
    check(re.search(r"^n=\d+$", out, re.M), "%s: print only: events come (%r)" % (name, out[:200]))

    out, err, step = traced(fx, "trace probe_here { bt; }", ["--script-output", "json"])
    check(LEAN in err and NO_STEP not in err, "%s: bt: -v says lean, with the step program" % name)
    eq(step, True, "%s: bt: the step program is loaded" % name)
    events = json_events(out)
    bts = [it for ev in events for it in ev["items"] if it.get("type") == "backtrace"]
    stacks = gdb_backtraces(binary, "probe_here", args=[1000, 3])
    if check(bts and stacks, "%s: bt: a backtrace from wraith and one from gdb" % name):
        eq(bts[0]["status"], "complete", "%s: bt: the lean step program's walk is complete" % name)
        eq(wraith_stack(bts[0]), stacks[0], "%s: bt: the lean step program's backtrace equals "
           "gdb's" % name)

    out, err, step = traced(fx, "trace probe_here { count bt; }", ["--timeout", "1"])
    check(FULL in err, "%s: count bt: -v says full" % name)
    eq(step, True, "%s: count bt: the step program is loaded" % name)
    check("probe_here" in out and "main" in out, "%s: count bt: the counted stack is listed (%r)"
          % (name, out[:300]))

    out, err, step = traced(fx, "trace probe_here { bt args; }", ["--script-output", "plain"])
    check(FULL in err, "%s: bt args: -v says full" % name)
    check(re.search(r"#0 probe_here\(n=(n@entry=)?\d+", out),
          "%s: bt args: frame 0's parameters are shown (%r)" % (name, out[:300]))
    fx.stop()

check_no_leftovers("base_parts")
finish()
