"""trace_basic.py - the first live trace: `trace FN { print ... }` on a running
PID, by function, file:line and address; --max-events; --script-file; both
transports; PID isolation; no leftovers after exit and SIGTERM; bad input."""
import os
import re
import signal
import subprocess
import tempfile

from wraithtest import *

require_root()
BIN = "chain-O2fp"
PRINT = 'trace %s { print "hit {} {}", $pid, $tid; }'


def events_of(res, what):
    check(res.returncode == 0, "%s: exit 0 (got %d, stderr %r)" % (what, res.returncode, res.stderr[-400:]))
    return json_events(res.stdout)


def nm_address(path, sym):
    out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == sym:
            return int(parts[0], 16)
    raise AssertionError("no symbol %s in %s" % (sym, path))


fx = Fixture(BIN, [200])

# By function, exactly N events, pid/tid right.
res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--max-events", 5, "--script-output", "json"])
evs = events_of(res, "function probe")
eq(len(evs), 5, "--max-events 5 gives exactly 5 events")
for e in evs[:1]:
    eq((e["pid"], e["tid"], e["probe"], e["target"]), (fx.pid, fx.pid, 1, "leaf"), "event header fields")
    eq([(it["type"], it["text"]) for it in e["items"]], [("print", "hit %d %d" % (fx.pid, fx.pid))],
       "print item text")
    eq([(a["expr"], a["value"], a["error"]) for a in e["items"][0]["args"]],
       [("$pid", fx.pid, None), ("$tid", fx.pid, None)], "print item arguments as values")
eq([e["seq"] for e in evs], [1, 2, 3, 4, 5], "sequence numbers")
check(all(evs[i]["timestamp_ns"] <= evs[i + 1]["timestamp_ns"] for i in range(4)), "timestamps ascend")

# pretty and plain shapes
res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--max-events", 1, "--color", "never"])
check(re.match(r"^\[\d\d:\d\d:\d\d\.\d{3}\] #1 %d/%d leaf\n  hit %d %d\n$" % ((fx.pid,) * 4), res.stdout),
      "pretty output: header then indented payload (%r)" % res.stdout)
res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--max-events", 1, "--script-output", "plain"])
eq(res.stdout, "hit %d %d\n" % (fx.pid, fx.pid), "plain output is the payload only")

# --script-file with comments and two probes
with tempfile.NamedTemporaryFile("w", suffix=".ws", delete=False) as f:
    f.write("// two probes\ntrace leaf {\n  print \"leaf {}\", 1 + 2 * 3; /* arithmetic */\n}\n"
            "trace middle { print \"middle\"; }\n")
    script = f.name
# Both kinds of uprobe link: multi-uprobe links where the kernel has them
# (Linux 6.6 on), and the perf event links kept for older kernels.
MULTI = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2]) >= (6, 6)
for links in ("default", "perf"):
    res = run(["-p", fx.pid, "--script-file", script, "--max-events", 6, "--script-output", "json",
               "-v"], env={"WRAITH_UPROBE_LINKS": links})
    evs = events_of(res, "--script-file (%s links)" % links)
    texts = set(e["items"][0]["text"] for e in evs)
    eq(texts, {"leaf 7", "middle"}, "both probes of the script file fire (%s links)" % links)
    eq(set(e["probe"] for e in evs), {1, 2}, "probe ids 1 and 2 (%s links)" % links)
    # A script's probes start at one instant, however far apart their
    # uprobes were attached: middle calls leaf, so from the first event on
    # they take turns (two events of one probe in a row: one started before
    # the other).
    seq = [e["items"][0]["text"] for e in evs]
    check(all(seq[i] != seq[i + 1] for i in range(len(seq) - 1)),
          "the script's two probes start together (%s links): their events alternate (%s)"
          % (links, seq))
    said = re.findall(r".*uprobes:.*", res.stderr)
    if links == "default" and MULTI:
        check("wraith: uprobes: attached as multi-uprobe links" in said,
              "-v: a kernel from 6.6 on gets multi-uprobe links (%r)" % said)
    else:
        # Both uprobes were registered while the probes compiled (nothing
        # waits for the kernel between the attach and the start).
        check("wraith: uprobes: attached as perf event links" in said and
              "wraith: uprobes: 2 of 2 attached as registered while the probes compiled" in said,
              "-v: perf event links, both registered early (%r)" % said)
os.unlink(script)

# The start gate as the programs read it: each of a script's five probes
# holds the script's number (1) from before it is attached, entry 0 the
# last script armed (1); nothing beyond.
proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", "".join('trace %s { print "%d"; }\n' % (f, i)
                         for i, f in enumerate(["leaf", "middle", "outer", "leaf", "middle"]))],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
ready = proc.stderr.readline()
gate = map_values(proc.pid, "wr_gate") if "tracing 5 probes" in ready else None
proc.send_signal(signal.SIGINT)
proc.communicate(timeout=60)
eq(gate and [gate[k] for k in range(8)], [1, 1, 1, 1, 1, 1, 0, 0],
   "the start gate: five probes of script 1, script 1 armed (%r)" % ready)

# By file:line
line = marker_line("chain.c", "LINE:leaf-body")
res = run(["-p", fx.pid, "-s", 'trace chain.c:%d { print "line"; }' % line, "--max-events", 2,
           "--script-output", "json"])
evs = events_of(res, "file:line probe")
eq([e["items"][0]["text"] for e in evs], ["line", "line"], "file:line probe fires")

# By address, plain and with the module named
addr = nm_address(fx.path, "leaf")
res = run(["-p", fx.pid, "-s", 'trace 0x%x { print "addr"; }' % addr, "--max-events", 2,
           "--script-output", "json"])
eq(len(events_of(res, "address probe")), 2, "0xADDR probe fires")
res = run(["-p", fx.pid, "-s", 'trace %s:0x%x { print "maddr"; }' % (BIN, addr), "--max-events", 2,
           "--script-output", "json"])
eq(len(events_of(res, "module:address probe")), 2, "module:0xADDR probe fires")

# Both transports
for transport in ("ringbuf", "perf"):
    res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--max-events", 3, "--transport", transport,
               "--script-output", "json"])
    eq(len(events_of(res, transport)), 3, "transport %s delivers events" % transport)

# A second copy of the same binary produces no events
fx2 = Fixture(BIN, [200])
res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--max-events", 30, "--script-output", "json"])
evs = events_of(res, "isolation")
eq(set(e["pid"] for e in evs), {fx.pid}, "only the traced PID produces events")
fx2.stop()

# --timeout ends the run with exit 0 (run() gives up after 60 s)
res = run(["-p", fx.pid, "-s", 'trace leaf { }', "--timeout", "0.5", "--script-output", "json"])
eq(res.returncode, 0, "--timeout ends the run with exit 0")
check_no_leftovers("after a normal exit")

# SIGTERM: exit 0, output flushed, everything released
proc = subprocess.Popen([WRAITH, "-p", str(fx.pid), "-s", PRINT % "leaf", "--script-output", "json"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ready = proc.stderr.readline()
check("tracing 1 probe" in ready, "status line says the probe is attached (%r)" % ready)
check(len(our_programs(proc.pid)) > 0, "while tracing, wraith's programs are loaded, named after its PID")
out = Lines(proc.stdout)
out.wait(lambda lines: lines)  # an event has come: the output is not empty
proc.send_signal(signal.SIGTERM)
eq(proc.wait(timeout=20), 0, "SIGTERM exits 0")
check(len(json_events(out.text())) > 0, "events printed before SIGTERM are flushed")
check_no_leftovers("after SIGTERM")

# When the traced process exits, so does wraith (exit 0, said on stderr):
# the process is killed once wraith has shown an event of it.
short = Fixture(BIN, [1000])
proc = subprocess.Popen([WRAITH, "-p", str(short.pid), "-s", PRINT % "leaf", "--script-output", "json"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
first = proc.stdout.readline()
short.stop()
try:
    out, err = proc.communicate(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    out, err = proc.communicate()
check(proc.returncode == 0 and "process %d exited" % short.pid in err,
      "the traced process exiting ends the run (%r)" % err[-200:])
check(len(json_events(first)) == 1, "events before the exit were printed")

# Bad input
res = run(["-p", 999999, "-s", PRINT % "leaf"])
check(res.returncode == 2 and "no process with PID 999999" in res.stderr, "nonexistent PID: exit 2 (%r)" % res.stderr)
res = run(["-p", 2, "-s", PRINT % "leaf"])
check(res.returncode == 2 and "kernel thread" in res.stderr, "kernel thread: exit 2 (%r)" % res.stderr)
res = run(["-p", fx.pid, "-s", PRINT % "leef"])
check(res.returncode == 2 and "no function 'leef'" in res.stderr and "did you mean 'leaf'" in res.stderr
      and "\n          ^~~~\n" in res.stderr, "unknown function: exit 2, located, with a suggestion (%r)" % res.stderr)
res = run(["-p", fx.pid, "-s", 'trace leaf { print "x" }'])
eq((res.returncode, res.stderr.splitlines()[0] if res.stderr else ""),
   (2, "<script>:1:24: error: expected ';' after print statement, found '}'"), "syntax error: exit 2 with location")
res = run(["-p", fx.pid, "-s", 'trace chain.c:100000 { }'])
check(res.returncode == 2 and "no code at chain.c:100000" in res.stderr, "unknown line: exit 2 (%r)" % res.stderr)
res = run(["-p", fx.pid, "--backtrace-depth", 0, "-s", PRINT % "leaf"])
check(res.returncode == 2 and "--backtrace-depth" in res.stderr, "--backtrace-depth 0 is a usage error")
res = run(["-p", fx.pid, "--backtrace-depth", 1025, "-s", PRINT % "leaf"])
check(res.returncode == 2 and "--backtrace-depth" in res.stderr, "--backtrace-depth 1025 is a usage error")
res = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                      WRAITH, "-p", str(fx.pid), "-s", PRINT % "leaf"], capture_output=True, text=True)
check(res.returncode == 1 and "not enough privilege" in res.stderr, "unprivileged: exit 1 (%r)" % res.stderr)
with tempfile.TemporaryDirectory() as d:
    log = os.path.join(d, "wraith.log")
    res = run(["-p", fx.pid, "-s", PRINT % "leaf", "--log-file", log], env={"WRAITH_FAULT": "verifier"})
    check(res.returncode == 1 and "verifier rejected probe 1 (leaf" in res.stderr
          and "invalid mem access" in res.stderr, "verifier rejection: one clear message, exit 1 (%r)" % res.stderr)
    check("processed" not in res.stderr, "the verifier log is not dumped on stderr")
    with open(log) as f:
        check("verifier log" in f.read(), "the verifier log goes to --log-file")
check_no_leftovers("after failures")
fx.stop()
finish()
