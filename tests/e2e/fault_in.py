"""fault_in.py - --fault-in: a string in a page the process never touched
(faultin.c: the middle of a large initialised array in .data) cannot be read
by a plain probe, which prints the read error; with --fault-in (or
ebpf.fault_in in the configuration file) the probe is sleepable, the read
faults the page in, and the value equals gdb's print.  A backtrace in the
same sleepable probe equals gdb's, `bt args` there shows frame 0's
parameters, and `count bt` alone counts every hit's stack.  --fault-in with the perf transport is
refused at start.  gcc and clang-19 builds."""
import os
import re
import subprocess
import tempfile

from wraithtest import *

require_root()

SCRIPT = "trace show { print text; print control; bt; }"


def gdb_print(binary, expr):
    """gdb's `print expr` at show's entry: the quoted string."""
    argv = ["gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "break show",
            "-ex", "run", "-ex", "print %s" % expr, "-ex", "kill", binary]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'^\$1 = .*?"(.*)"$', out, re.M)
    return m.group(1) if m else out


def trace(f, extra):
    r = run(["-p", f.pid, "-s", SCRIPT, "--max-events", 1, "--timeout", 20,
             "--script-output", "json"] + extra)
    ev = json_events(r.stdout)
    if not check(r.returncode == 0 and len(ev) == 1,
                 "wraith %s ran and gave one event (rc %d, stderr %r)" % (extra, r.returncode,
                                                                          r.stderr[-400:])):
        return None
    return ev[0]["items"]


def arg(items, i):
    return items[i]["args"][0]


with tempfile.TemporaryDirectory() as tmp:
    config = os.path.join(tmp, "config.toml")
    with open(config, "w") as cf:
        cf.write("[ebpf]\nfault_in = true\n")
    for variant, how in (("O2", ["--fault-in"]), ("clang-O2", ["--config", config])):
        name = "faultin-" + variant
        binary = fixture(name)
        f = Fixture(name)
        # without the option first: nothing may fault the page in before
        items = trace(f, [])
        if items:
            eq((arg(items, 0)["value"], arg(items, 0)["error"]), (None, "read-error"),
               "%s: without --fault-in the untouched page's string is a read error" % name)
            check("<error: Cannot access memory at address 0x" in items[0]["text"],
                  "%s: the text says the address could not be read: %r" % (name, items[0]["text"]))
            eq(arg(items, 1)["value"], "warm page", "%s: the touched string reads" % name)
        items = trace(f, how)
        f.stop()
        want = gdb_print(binary, "text")
        if items:
            eq(arg(items, 0)["value"], want, "%s: with %s the string equals gdb's print" % (name, how[0]))
            eq(arg(items, 1)["value"], "warm page", "%s: with %s the touched string too" % (name, how[0]))
            stacks = gdb_backtraces(binary, "show")
            bt = items[2]
            eq(bt["status"], "complete", "%s: the sleepable probe's backtrace is complete" % name)
            if stacks:
                eq(wraith_stack(bt), stacks[0], "%s: the sleepable probe's backtrace equals gdb's" % name)
        # frame values: the sleepable probe attaches its registers and stack after its walk
        f = Fixture(name)
        r = run(["-p", f.pid, "-s", "trace show { bt args; }", "--max-events", 1, "--timeout", 20,
                 "--script-output", "plain", "-q"] + how)
        f.stop()
        # (gdb's form: text=text@entry=0x... where the caller's call site says so)
        check(r.returncode == 0 and re.search(r"#0 show\(text=(text@entry=)?0x[0-9a-f]+ .*"
                                              r"n=(n@entry=)?\d+\)", r.stdout)
              and "malformed" not in r.stderr,
              "%s: bt args in a sleepable probe shows frame 0's parameters (%r, %r)"
              % (name, r.stdout[:300], r.stderr[-300:]))
        # count bt alone: the sleepable probe carries the unwinder for it too
        f = Fixture(name)
        r = run(["-p", f.pid, "-s", "trace show { count bt; }", "--timeout", 2] + how)
        f.stop()
        m = re.search(r"#1 show: (\d+) hits?, .*; (\d+) stacks counted, 0 not", r.stderr)
        check(r.returncode == 0 and m and int(m.group(1)) > 0 and m.group(1) == m.group(2)
              and re.search(r"^\s+show$", r.stdout, re.M) and re.search(r"^\s+main$", r.stdout, re.M),
              "%s: count bt in a sleepable probe counts every hit's stack (%r, %r)"
              % (name, r.stdout[-300:], r.stderr[-300:]))

r = run(["-p", os.getpid(), "-s", SCRIPT, "--fault-in", "--transport", "perf"])
check(r.returncode == 2 and "needs the ring buffer transport" in r.stderr,
      "--fault-in with --transport perf is refused: rc %d, %r" % (r.returncode, r.stderr))

check_no_leftovers("after --fault-in")
finish()
