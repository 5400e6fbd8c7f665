"""streaming.py - how fast wraith's user side consumes events, and whether
a hot loop's events all get through (bench/run.py imports this).

Sections:
  consumer  events and frames per second that wraith decodes, symbolizes
            and writes, for pretty, plain and JSON output to /dev/null and
            to a pipe: the events of N calls are buffered while wraith is
            stopped, then it is let go and timed until it has written the
            N-th (--max-events N) and exited.
  pipe      the hot loop traced live with `bt`, NDJSON through a pipe to
            `grep -c`: how many of its events arrive.
"""
import os
import re
import signal
import subprocess
import time

CONSUMER_N = 150000      # events per round; a depth-16 event is ~300 bytes
CONSUMER_DEPTH = 16
CONSUMER_BUFFER = "128M"  # holds every event of a round
FORMATS = ("pretty", "plain", "json")
SINKS = ("null", "pipe")
PIPE_CALLS = 300000      # the hot-loop run of the issue: 300k calls
PIPE_STACK = 3           # recursion below the loop: about ten frames a stack


def _ready(p, timeout=60):
    """Wait for wraith's status line on @p's stderr; the rest of stderr."""
    line = p.stderr.readline()
    if "wraith: tracing" not in line:
        raise RuntimeError("wraith did not start: %r %r" % (line, p.stderr.read()[-2000:]))


def consumer_round(b, fx, fmt, sink):
    """(seconds to write CONSUMER_N buffered events, CPU seconds, lines seen)."""
    cmd = [b.ctx.wraith, "-p", str(fx.pid), "-s", "trace wr_bench_hot { bt; }",
           "--script-output", fmt, "--backtrace-depth", str(CONSUMER_DEPTH),
           "--buffer-size", CONSUMER_BUFFER, "--max-events", str(CONSUMER_N), "--color", "never"]
    out = subprocess.DEVNULL if sink == "null" else subprocess.PIPE
    p = b.spawn(cmd, cpu=b.TOOL_CPU, stdout=out, stderr=subprocess.PIPE, text=True)
    counter = None
    if sink == "pipe":
        counter = subprocess.Popen(["grep", "-c", ""], stdin=p.stdout, stdout=subprocess.PIPE,
                                   text=True)
        p.stdout.close()
    _ready(p)
    p.send_signal(signal.SIGSTOP)
    fx.run(CONSUMER_N)
    t0 = time.monotonic()
    p.send_signal(signal.SIGCONT)
    cpu = b.cpu_of(p)
    t = time.monotonic() - t0
    lines = int(counter.communicate()[0].strip() or 0) if counter else None
    return t, cpu, lines


def section_consumer(b):
    b.log("consumer: %d events of %d frames per round, %s x %s x %d repetitions"
          % (CONSUMER_N, CONSUMER_DEPTH, "/".join(FORMATS), "/".join(SINKS), b.ctx.reps))
    fx = b.Fixture(b.ctx.hotloop)
    res = {}
    try:
        for rep in range(b.ctx.reps):
            for fmt in FORMATS:
                for sink in SINKS:
                    t, cpu, lines = consumer_round(b, fx, fmt, sink)
                    r = res.setdefault("%s/%s" % (fmt, sink), {"s": [], "cpu": [], "lines": []})
                    r["s"].append(t)
                    r["cpu"].append(cpu)
                    r["lines"].append(lines)
                    b.log("  rep %d %-6s to %-4s %8.0f events/s (%.2f s, CPU %.2f s)"
                          % (rep + 1, fmt, sink, CONSUMER_N / t, t, cpu))
    finally:
        fx.close()
    out = {}
    for key, r in res.items():
        out[key] = {
            "events_per_s": b.stats_of([CONSUMER_N / t for t in r["s"]]),
            "frames_per_s": b.stats_of([CONSUMER_N * CONSUMER_DEPTH / t for t in r["s"]]),
            "cpu_per_event_us": b.stats_of([c / CONSUMER_N * 1e6 for c in r["cpu"]]),
            "lines": [x for x in r["lines"] if x is not None],
        }
    return out


def pipe_round(b, fx):
    """The live run: (calls per second, events delivered, lost, frames per event)."""
    cmd = [b.ctx.wraith, "-p", str(fx.pid), "-s", "trace wr_bench_hot { bt; }",
           "--script-output", "json", "--color", "never"]
    p = b.spawn(cmd, cpu=b.TOOL_CPU, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    grep = subprocess.Popen(["grep", "-c", ""], stdin=p.stdout, stdout=subprocess.PIPE, text=True)
    p.stdout.close()
    _ready(p)
    wall, _ = fx.run(PIPE_CALLS)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    err = p.stderr.read()
    b.cpu_of(p)
    got = int(grep.communicate()[0].strip() or 0)
    m = re.search(r"(\d+) delivered, \d+ filtered, (\d+) lost", err)
    return 1e9 / wall, got, int(m.group(2)) if m else None


def section_pipe(b):
    b.log("pipe: %d calls, `bt` as NDJSON through a pipe to grep -c, %d repetitions"
          % (PIPE_CALLS, b.ctx.reps))
    fx = b.Fixture(b.ctx.hotloop, depth=PIPE_STACK)
    rate, delivered, lost = [], [], []
    try:
        frames = len(b.wraith_stack_sample(b.ctx, fx, b.ctx.workdir).get("frames", []))
        for rep in range(b.ctx.reps):
            r, got, l = pipe_round(b, fx)
            rate.append(r)
            delivered.append(got / PIPE_CALLS)
            lost.append(l)
            b.log("  rep %d: %.0f calls/s, %d of %d delivered (%.1f %%), %s lost"
                  % (rep + 1, r, got, PIPE_CALLS, 100.0 * got / PIPE_CALLS, l))
    finally:
        fx.close()
    return {"calls_per_s": b.stats_of(rate), "delivered": b.stats_of(delivered),
            "lost": b.stats_of([x for x in lost if x is not None]), "frames": frames,
            "calls": PIPE_CALLS}
