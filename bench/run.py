#!/usr/bin/env python3
"""run.py - wraith's benchmark suite: what a probe and a backtrace cost.

Started by bench/run.sh (from `make bench`).  Every figure is measured in
this one run on this machine, repeated --reps times (at least 5); a figure
is the median of its repetitions, reported with the min-max spread.  The
suite prints one table on stdout and writes doc/performance.md and
doc/performance.png in the source tree.

Sections:
  perhit   ns per hit of the probed function: untraced, empty wraith probe
           (the bare uprobe), bpftrace's empty uprobe, wraith print, wraith
           bt at several depths, bpftrace ustack, perf --call-graph dwarf;
           plus time inside BPF from kernel.bpf_stats_enabled.
  startup  launch to "all probes attached", CFI rows per second, map bytes
           per row (computed, and cross-checked with bpftool).
  probes   launch to "all probes attached" with 1,000 probes, of one shape
           and of ten, and SIGINT to exit (every probe detached).
  sym      symbolization, cold and warm.
  delivery events per second delivered without loss, ring vs perf buffer.
  faultin  ns per hit of an empty probe and of one printing a string, with
           and without --fault-in (sleepable programs), beside a bare
           bpftrace uprobe.
  hits     per-hit figures that travel between hosts: ns a call gains on
           the traced thread and BPF ns per run, beside the bare uprobe's,
           at the hot loop's own depth, at depth 32 and through three
           shared libraries; with a wraith built --enable-stage-timing
           (--wraith PATH), where a hit's time goes inside BPF
           (bench/hits.py).
  helpers  what each piece of a hit costs inside BPF on this host: tiny
           programs of bench/helpers.bpf.c (a helper call, a map lookup, a
           read of user memory, an event sent) on the hot loop, BPF ns per
           run over an empty program's (bench/helpers.py; `make
           bench-helpers` runs it alone).
  sites    one site against two: BPF ns per run and the thread's added ns
           per call of `print "{}", x` and `print "x"` on a function
           inlined at two call sites against a noinline copy of it
           (bench/hits.py); `bench/run.py --only sites` runs it alone.
  real     the empty probe and `print "x"` on a real program (python3.11d,
           PyObject_Size, hits back to back and with the interpreter's
           work between them) beside the hot loop's, in one rotation: BPF
           ns per run and the thread's added ns per call (bench/hits.py).
  values   BPF ns per element of printing a 200-element vector<int>, a
           200-entry map<string,int> and a Rust Vec<String> of 200
           (bench/values.py); not among the default sections: run alone, it
           writes the last section of doc/performance.md.
  deep     BPF time per frame of deep backtraces (depths 128, 512, 1024 on a
           stack deeper than 1024 frames); needs only wraith and bpftool, so
           `bench/run.py --only deep` (or `make bench BENCH_ARGS='--only deep'`)
           runs where bpftrace and perf are missing.

The probed process (bench/hotloop.c) runs pinned to CPU 0, every tracer
pinned to CPU 1.  Per-hit cost is (loop time traced - loop time untraced) /
N.  It is measured two ways: "quiet", where the tracer's user-space
process is stopped (SIGSTOP) while the loop runs and drains the buffered
events afterwards, so the figure is the cost on the traced thread alone;
and "live", where the tracer consumes concurrently.  On a VM whose vCPUs
interfere, a busy consumer slows the other CPU's kernel entries; the
suite measures that interference too.
"""
import argparse
import glob
import datetime
import errno
import json
import os
import platform
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types

sys.dont_write_bytecode = True  # report.py is imported from the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import streaming  # noqa: E402  (bench/streaming.py: the consumer and pipe sections)
import hits  # noqa: E402  (bench/hits.py: per-hit figures, stages)
import values  # noqa: E402  (bench/values.py: printing containers, per element)
import helpers  # noqa: E402  (bench/helpers.py: what each helper costs inside BPF)

PROBE_CPU = "0"
TOOL_CPU = "1"
# Start-up runs as a user runs wraith, on every CPU: the kernel side loads
# on a second thread while the probes compile.
ALL_CPUS = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
DEPTHS = (1, 3, 4, 16, 64, 128)
QUIET_N = 800          # hits per quiet round: a depth-128 event is ~4.2 KB,
                       # so 800 of them fit the 4 MiB ring buffer
QUIET_ROUNDS = 7
LIVE_N = 10000
STACK_DEPTH = 140      # recursion levels below the loop: > 128 frames
RATES = (1000, 2000, 5000, 10000, 20000, 40000)
DEEP_DEPTHS = (128, 512, 1024)
DEEP_TARGET_NS = 40    # BPF time per frame at the deepest depth
DEEP_STACK = 1100      # recursion levels for the deep section: > 1024 frames
DEEP_SETTLE_S = 0.3   # the tracer runs this long before a round stops it
DEEP_N = 150           # hits per round: 150 events of 16 KiB fit the 4 MiB ring buffer
DELIVERY_SECONDS = 0.4

children = []          # every process we start, for cleanup


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def stats_of(values):
    """(median, min, max) of a non-empty list, or None."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return (statistics.median(values), min(values), max(values))


def spawn(cmd, cpu=None, **kw):
    if cpu is not None:
        cmd = ["taskset", "-c", cpu] + list(cmd)
    p = subprocess.Popen(cmd, **kw)
    children.append(p)
    return p


def reap(p, sig=signal.SIGINT, timeout=20):
    """Stop @p with @sig (then SIGKILL) and wait for it."""
    if p.poll() is None:
        try:
            p.send_signal(signal.SIGCONT)
            p.send_signal(sig)
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if p in children:
        children.remove(p)


def cleanup():
    for p in list(children):
        reap(p, signal.SIGKILL, 5)


def sysctl(name, value=None):
    path = "/proc/sys/" + name.replace(".", "/")
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))
    return str(value)


def now():
    return time.monotonic()


# ---------------------------------------------------------------------------
# The probed process
# ---------------------------------------------------------------------------

class Fixture:
    """bench/hotloop: answers "run N", "pace N RATE", "sys N" with "ns T"."""

    def __init__(self, path, depth=STACK_DEPTH, libs=()):
        self.path = path
        self.p = spawn([path, str(depth)] + list(libs), cpu=PROBE_CPU,
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.p.stdout.readline()
        if not line.startswith("ready "):
            raise RuntimeError("hotloop did not start: %r" % line)
        self.pid = int(line.split()[1])

    def cmd(self, text):
        """(wall ns, thread CPU ns) of one command's loop."""
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line.startswith("ns "):
            raise RuntimeError("hotloop: %r -> %r" % (text, line))
        return int(line.split()[1]), int(line.split()[2])

    def run(self, n):
        """(wall, cpu) ns per call of a loop of @n calls."""
        wall, cpu = self.cmd("run %d" % n)
        return wall / n, cpu / n

    def pace(self, n, rate):
        return self.cmd("pace %d %d" % (n, rate))[0]

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
            self.p.wait(timeout=5)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            pass
        reap(self.p, signal.SIGKILL)


# ---------------------------------------------------------------------------
# Tracers under test
# ---------------------------------------------------------------------------

class LineWatcher(threading.Thread):
    """Reads a text stream, keeps its lines, signals when @marker appears."""

    def __init__(self, stream, marker):
        super().__init__(daemon=True)
        self.stream, self.marker = stream, marker
        self.lines = []
        self.ready = threading.Event()
        self.start()

    def run(self):
        for line in self.stream:
            self.lines.append(line)
            if self.marker and self.marker in line:
                self.ready.set()
        self.ready.set()

    def text(self):
        return "".join(self.lines)


class Tracer:
    """One tracer process pinned to TOOL_CPU: wraith, bpftrace or perf."""

    def __init__(self, kind, cmd, workdir, marker=None, perf_ctl=None, counts=False):
        self.kind = kind
        self.counts = counts  # `count bt`: hits are counted, no event is sent
        self.out_path = os.path.join(workdir, "events.out")
        self.out = open(self.out_path, "wb")
        self.read_pos = 0
        self.lines = 0
        self.perf_ctl = perf_ctl
        self.t0 = now()
        if kind == "wraith":
            self.p = spawn(cmd, cpu=TOOL_CPU, stdout=self.out, stderr=subprocess.PIPE, text=True)
            self.watch = LineWatcher(self.p.stderr, marker)
        elif kind == "bpftrace":
            self.p = spawn(cmd, cpu=TOOL_CPU, stdout=subprocess.PIPE, stderr=self.out, text=True)
            self.watch = LineWatcher(self.p.stdout, marker)
        else:
            self.p = spawn(cmd, cpu=TOOL_CPU, stdout=self.out, stderr=subprocess.PIPE, text=True)
            self.watch = LineWatcher(self.p.stderr, None)
        self.ready_s = self.wait_ready()

    def wait_ready(self):
        if self.kind == "perf":
            self.perf_enable()
        elif not self.watch.ready.wait(60) or self.p.poll() is not None:
            raise RuntimeError("%s did not start:\n%s" % (self.kind, self.watch.text()[-2000:]))
        return now() - self.t0

    def perf_enable(self):
        """Tell perf to start recording and wait for its ack, never blocking
        on a FIFO whose other end is gone (perf died before opening it)."""
        ctl, ack = self.perf_ctl
        deadline = now() + 60
        fd = -1
        while fd < 0:
            if self.p.poll() is not None or now() > deadline:
                raise RuntimeError("perf did not start:\n%s" % self.watch.text()[-2000:])
            try:
                fd = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO:  # no reader yet
                    raise
                time.sleep(0.05)
        os.write(fd, b"enable\n")
        os.close(fd)
        fd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while True:
                ready = select.select([fd], [], [], 0.2)[0]
                if ready and os.read(fd, 64):
                    break
                if self.p.poll() is not None or now() > deadline:
                    raise RuntimeError("perf did not acknowledge:\n%s" % self.watch.text()[-2000:])
                if ready:
                    time.sleep(0.05)  # end of file: perf has not opened its end yet
        finally:
            os.close(fd)

    def stop(self):
        self.p.send_signal(signal.SIGSTOP)

    def cont(self):
        self.p.send_signal(signal.SIGCONT)

    def count(self):
        """Events received so far (wraith: lines of NDJSON on stdout)."""
        with open(self.out_path, "rb") as f:
            f.seek(self.read_pos)
            data = f.read()
        self.read_pos += len(data)
        self.lines += data.count(b"\n")
        return self.lines

    def drain(self, expected, settle=0.5, limit=30.0):
        """Wait until @expected events arrived or none came for @settle s."""
        if self.kind != "wraith" or self.counts:
            time.sleep(0.3)
            return None
        last, t_last, t_end = -1, now(), now() + limit
        while now() < t_end:
            n = self.count()
            if n >= expected:
                return n
            if n != last:
                last, t_last = n, now()
            elif now() - t_last > settle:
                break
            time.sleep(0.01)
        return self.count()

    def finish(self):
        reap(self.p)
        self.watch.join(5)
        self.out.close()
        self.count()
        return self.watch.text()


def counted_stacks(stderr_text):
    """Hits `count bt` counted, from the summary at the end of the run."""
    m = re.search(r"(\d+) stacks counted", stderr_text)
    return int(m.group(1)) if m else 0


def lost_events(stderr_text):
    m = re.search(r"(\d+) events were lost", stderr_text)
    return int(m.group(1)) if m else 0


def bpf_progs():
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True,
                         text=True, check=True).stdout
    return {p["id"]: p for p in json.loads(out)}


def prog_ids_of(pid):
    """Ids of the BPF programs process @pid holds open (from fdinfo), so other
    programs loaded on the machine meanwhile are not counted."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def bpf_delta(before, after, ids):
    """Run count, run time (ns) summed over @ids, and per-name counts."""
    cnt = ns = 0
    by_name = {}
    for i in ids:
        a, b = after.get(i, {}), before.get(i, {})
        dc = a.get("run_cnt", 0) - b.get("run_cnt", 0)
        dn = a.get("run_time_ns", 0) - b.get("run_time_ns", 0)
        name = a.get("name", "?")
        by_name[name] = (by_name.get(name, (0, 0))[0] + dc, by_name.get(name, (0, 0))[1] + dn)
        cnt += dc if not name.startswith("wr_bt_step") else 0
        ns += dn
    return cnt, ns, by_name


# ---------------------------------------------------------------------------
# Section 1 and 2: per-hit cost, time inside BPF
# ---------------------------------------------------------------------------

def perhit_configs(ctx):
    hot, fn = ctx.hotloop, "wr_bench_hot"
    cfgs = [
        ("wr_empty", "wraith, empty probe (bare uprobe)", "wraith", "trace %s { }" % fn, 128),
        ("bpft_empty", "bpftrace, empty uprobe", "bpftrace", "uprobe:%s:%s {}" % (hot, fn), 0),
        ("wr_print", "wraith, print", "wraith", 'trace %s { print "x {}", $pid; }' % fn, 128),
    ]
    for d in DEPTHS:
        cfgs.append(("wr_bt%d" % d, "wraith, bt depth %d" % d, "wraith",
                     "trace %s { bt; }" % fn, d))
    # Counted in the kernel: no event per hit.
    cfgs.append(("wr_count16", "wraith, count bt depth 16", "wraith-count",
                 "trace %s { count bt; }" % fn, 16))
    cfgs.append(("bpft_ustack", "bpftrace, ustack (frame pointers)", "bpftrace",
                 "uprobe:%s:%s { @[ustack] = count(); }" % (hot, fn), 0))
    cfgs.append(("perf_dwarf", "perf record --call-graph dwarf", "perf", None, 0))
    return cfgs


def start_tracer(ctx, cfg, pid, workdir):
    key, _, kind, script, depth = cfg[:5]
    extra = list(cfg[5]) if len(cfg) > 5 else []  # more wraith options
    if kind.startswith("wraith"):
        cmd = [ctx.wraith, "-p", str(pid), "-s", script, "--script-output", "json",
               "--backtrace-depth", str(depth or 128), "--color", "never"] + extra
        return Tracer("wraith", cmd, workdir, marker="wraith: tracing",
                      counts=kind == "wraith-count")
    if kind == "bpftrace":
        prog = 'BEGIN { printf("bench-ready\\n"); } ' + script
        return Tracer("bpftrace", ["bpftrace", "-p", str(pid), "-e", prog], workdir,
                      marker="bench-ready")
    ctl, ack = os.path.join(workdir, "perf.ctl"), os.path.join(workdir, "perf.ack")
    for f in (ctl, ack):
        if os.path.exists(f):
            os.unlink(f)
        os.mkfifo(f)
    cmd = ["perf", "record", "-q", "-e", "wrbench:hot", "--call-graph", "dwarf", "-m", "16M",
           "-p", str(pid), "-o", os.path.join(workdir, "perf.data"), "-D", "-1",
           "--control", "fifo:%s,%s" % (ctl, ack)]
    return Tracer("perf", cmd, workdir, perf_ctl=(ctl, ack))


def measure_config(ctx, fx, cfg, workdir):
    """One repetition of one configuration: quiet rounds, then a live one."""
    tr = start_tracer(ctx, cfg, fx.pid, workdir)
    res = {"ready_s": tr.ready_s}
    ids = prog_ids_of(tr.p.pid)
    # Something else on the machine may switch the statistics off: switch
    # them on for every configuration and discard a window they missed.
    sysctl("kernel.bpf_stats_enabled", 1)
    s0 = bpf_progs()
    quiet, emitted, quiet_lost = [], 0, 0
    for _ in range(QUIET_ROUNDS):
        tr.stop()
        quiet.append(fx.run(QUIET_N))
        tr.cont()
        emitted += QUIET_N
        got = tr.drain(emitted)
        if got is not None:
            quiet_lost = emitted - got
    s1 = bpf_progs()
    cnt, ns, by_name = bpf_delta(s0, s1, ids)
    if sysctl("kernel.bpf_stats_enabled") != "1":
        log("  kernel.bpf_stats_enabled was switched off meanwhile: BPF time discarded")
        cnt = ns = 0
    res["bpf_cnt"], res["bpf_ns"] = cnt, ns
    res["bpf_by_name"] = by_name
    res["quiet_wall"] = statistics.median(q[0] for q in quiet)
    res["quiet"] = statistics.median(q[1] for q in quiet)
    res["quiet_lost"] = quiet_lost
    t0 = now()
    res["live_wall"], res["live"] = fx.run(LIVE_N)
    emitted += LIVE_N
    got = tr.drain(emitted)
    res["drain_s"] = now() - t0
    err = tr.finish()
    res["lost"] = lost_events(err) if tr.kind == "wraith" else None
    res["received"] = tr.lines if tr.kind == "wraith" else None
    if tr.counts:
        res["received"] = counted_stacks(err)
    res["emitted"] = emitted
    res["live_lost"] = (emitted - res["received"]) if tr.kind == "wraith" else None
    if tr.kind == "perf":
        m = re.search(r"\((\d+) samples\)", err)
        res["perf_samples"] = int(m.group(1)) if m else None
    return res


def perf_probe(ctx, add):
    if add:
        subprocess.run(["perf", "probe", "-q", "-d", "wrbench:*"], capture_output=True)
        r = subprocess.run(["perf", "probe", "-q", "-x", ctx.hotloop, "-a",
                            "wrbench:hot=wr_bench_hot"], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("perf probe failed: " + r.stderr)
    else:
        subprocess.run(["perf", "probe", "-q", "-d", "wrbench:*"], capture_output=True)


def interference(ctx, fx, workdir):
    """Bare bpftrace uprobe cost with CPU 1 idle, then with CPU 1 busy."""
    cfg = ("x", "", "bpftrace", "uprobe:%s:wr_bench_hot {}" % ctx.hotloop, 0)
    out = {"idle": [], "busy": [], "idle_wall": [], "busy_wall": []}
    tr = start_tracer(ctx, cfg, fx.pid, workdir)
    try:
        for _ in range(ctx.reps):
            wall, cpu = fx.run(QUIET_N * 2)
            out["idle"].append(cpu)
            out["idle_wall"].append(wall)
            hog = spawn(["sh", "-c", "while :; do :; done"], cpu=TOOL_CPU)
            time.sleep(0.1)
            wall, cpu = fx.run(QUIET_N * 2)
            out["busy"].append(cpu)
            out["busy_wall"].append(wall)
            reap(hog, signal.SIGKILL)
    finally:
        tr.finish()
    return out


def bpftrace_ustack_sample(ctx, fx, workdir):
    """What bpftrace's ustack returns on this -fomit-frame-pointer code."""
    prog = ('BEGIN { printf("bench-ready\\n"); } uprobe:%s:wr_bench_hot '
            '{ printf("STACK%%sEND\\n", ustack(16)); exit(); }' % ctx.hotloop)
    p = spawn(["bpftrace", "-p", str(fx.pid), "-e", prog], cpu=TOOL_CPU,
              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    w = LineWatcher(p.stdout, "bench-ready")
    w.ready.wait(60)
    fx.run(1)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    reap(p)
    w.join(5)
    text = w.text()
    m = re.search(r"STACK(.*?)END", text, re.S)
    frames = [l.strip() for l in (m.group(1) if m else "").splitlines() if l.strip()]
    return frames


def wraith_stack_sample(ctx, fx, workdir):
    tr = start_tracer(ctx, ("x", "", "wraith", "trace wr_bench_hot { bt; }", 128), fx.pid, workdir)
    fx.run(1)
    tr.drain(1)
    tr.finish()
    with open(tr.out_path) as f:
        line = f.readline()
    ev = json.loads(line) if line.strip() else {}
    for item in ev.get("items", []):
        if item.get("type") == "backtrace":
            return item
    return {}


def section_perhit(ctx):
    log("per-hit cost: %d configurations x %d repetitions" % (len(perhit_configs(ctx)), ctx.reps))
    workdir = ctx.workdir
    fx = Fixture(ctx.hotloop)
    cfgs = perhit_configs(ctx)
    old_stats = sysctl("kernel.bpf_stats_enabled")
    results = {c[0]: [] for c in cfgs}
    untraced_q, untraced_l, untraced_qw = [], [], []
    try:
        sysctl("kernel.bpf_stats_enabled", 1)
        perf_probe(ctx, True)
        sysc = [fx.cmd("sys 2000") for _ in range(ctx.reps)]
        res = {"syscall_ns": stats_of([c / 2000 for _, c in sysc]),
               "syscall_wall_ns": stats_of([w / 2000 for w, _ in sysc])}
        for rep in range(ctx.reps):
            u = [fx.run(QUIET_N) for _ in range(QUIET_ROUNDS)]
            untraced_q.append(statistics.median(x[1] for x in u))
            untraced_qw.append(statistics.median(x[0] for x in u))
            untraced_l.append(fx.run(LIVE_N)[1])
            # Rotate the order so slow drift does not favour one configuration.
            order = cfgs[rep % len(cfgs):] + cfgs[:rep % len(cfgs)]
            for cfg in order:
                r = measure_config(ctx, fx, cfg, workdir)
                results[cfg[0]].append(r)
                log("  rep %d %-12s quiet %8.0f ns/hit (wall %8.0f) live %8.0f  bpf %6.0f" % (
                    rep + 1, cfg[0], r["quiet"] - untraced_q[-1], r["quiet_wall"] - untraced_qw[-1],
                    r["live"] - untraced_l[-1],
                    r["bpf_ns"] / r["bpf_cnt"] if r["bpf_cnt"] else 0))
        log("per-hit: interference and stack samples")
        res["interference"] = interference(ctx, fx, workdir)
        res["bpftrace_stack"] = bpftrace_ustack_sample(ctx, fx, workdir)
        res["wraith_stack"] = wraith_stack_sample(ctx, fx, workdir)
    finally:
        sysctl("kernel.bpf_stats_enabled", old_stats)
        perf_probe(ctx, False)
        fx.close()
    res["untraced"] = stats_of(untraced_q)
    res["untraced_wall"] = stats_of(untraced_qw)
    res["configs"] = cfgs
    rows = {}
    for key, label, kind, _, depth in cfgs:
        per = results[key]
        q = [r["quiet"] - u for r, u in zip(per, untraced_q)]
        qw = [r["quiet_wall"] - u for r, u in zip(per, untraced_qw)]
        l = [r["live"] - u for r, u in zip(per, untraced_l)]
        b = [r["bpf_ns"] / r["bpf_cnt"] for r in per if r["bpf_cnt"]]
        # live and quiet of one repetition share its conditions (the same
        # tracer, minutes apart at most): their ratio, taken per repetition,
        # is not moved by drift between repetitions as a ratio of medians is.
        paired = [lv / qv for lv, qv in zip(l, q) if qv > 0]
        rows[key] = {
            "label": label, "kind": kind, "depth": depth,
            "quiet": stats_of(q), "quiet_wall": stats_of(qw), "live": stats_of(l),
            "live_ratio": stats_of(paired), "bpf": stats_of(b),
            "quiet_lost": max(r["quiet_lost"] for r in per),
            "live_lost_frac": stats_of([r["live_lost"] / r["emitted"] for r in per
                                        if r["live_lost"] is not None]),
            "ready": stats_of([r["ready_s"] for r in per]),
            "perf_samples": [r.get("perf_samples") for r in per],
            "by_name": per[-1]["bpf_by_name"] if per else {},
        }
    res["rows"] = rows
    return res


def faultin_configs(ctx):
    fn = "wr_bench_hot"
    empty, text = "trace %s { }" % fn, "trace %s { print wr_bench_text; }" % fn
    return [
        ("bpft_empty", "bpftrace, empty uprobe (bare)", "bpftrace",
         "uprobe:%s:%s {}" % (ctx.hotloop, fn), 0),
        ("wr_empty", "wraith, empty probe", "wraith", empty, 128),
        ("wr_empty_s", "wraith --fault-in, empty probe", "wraith", empty, 128, ["--fault-in"]),
        ("wr_str", "wraith, print a string", "wraith", text, 128),
        ("wr_str_s", "wraith --fault-in, print a string", "wraith", text, 128, ["--fault-in"]),
    ]


def section_faultin(ctx):
    """Sleepable against plain probes: the quiet per-hit cost (CPU time of
    the traced thread) and the time inside BPF, configurations rotated."""
    cfgs = faultin_configs(ctx)
    log("fault-in: %d configurations x %d repetitions" % (len(cfgs), ctx.reps))
    fx = Fixture(ctx.hotloop)
    old_stats = sysctl("kernel.bpf_stats_enabled")
    results = {c[0]: [] for c in cfgs}
    untraced = []
    try:
        sysctl("kernel.bpf_stats_enabled", 1)
        for rep in range(ctx.reps):
            untraced.append(statistics.median(fx.run(QUIET_N)[1] for _ in range(QUIET_ROUNDS)))
            order = cfgs[rep % len(cfgs):] + cfgs[:rep % len(cfgs)]
            for cfg in order:
                r = measure_config(ctx, fx, cfg, ctx.workdir)
                results[cfg[0]].append(r)
                log("  rep %d %-11s quiet %6.0f ns/hit  bpf %5.0f" % (
                    rep + 1, cfg[0], r["quiet"] - untraced[-1],
                    r["bpf_ns"] / r["bpf_cnt"] if r["bpf_cnt"] else 0))
    finally:
        sysctl("kernel.bpf_stats_enabled", old_stats)
        fx.close()
    rows = {}
    for cfg in cfgs:
        per = results[cfg[0]]
        rows[cfg[0]] = {
            "label": cfg[1],
            "quiet": stats_of([r["quiet"] - u for r, u in zip(per, untraced)]),
            "bpf": stats_of([r["bpf_ns"] / r["bpf_cnt"] for r in per if r["bpf_cnt"]]),
            "quiet_lost": max(r["quiet_lost"] for r in per),
        }
    return {"untraced": stats_of(untraced), "rows": rows}


# ---------------------------------------------------------------------------
# Deep backtraces: BPF time per frame at depths 128, 512 and 1024
# ---------------------------------------------------------------------------

def deep_round(ctx, fx, depth):
    """One round at @depth: BPF ns per hit.  The probe program's run time
    holds its tail-called step program (a tail call does not pass through
    the kernel's statistics wrapper), so it is the whole cost of a hit."""
    cfg = ("deep", "", "wraith", "trace wr_bench_hot { bt; }", depth)
    tr = start_tracer(ctx, cfg, fx.pid, ctx.workdir)
    ids = prog_ids_of(tr.p.pid)
    sysctl("kernel.bpf_stats_enabled", 1)
    # The tracer writes its new ring once in its first tens of ms of
    # reading (runtime.c, warm_slice); a tracer stopped at once would
    # measure a ring no running tracer keeps.
    time.sleep(DEEP_SETTLE_S)
    tr.stop()
    s0 = bpf_progs()
    fx.run(DEEP_N)
    s1 = bpf_progs()
    tr.cont()
    got = tr.drain(DEEP_N)
    tr.finish()
    cnt, ns, _ = bpf_delta(s0, s1, ids)
    if not cnt or sysctl("kernel.bpf_stats_enabled") != "1":
        return None
    return {"hit": ns / cnt, "received": got}


def section_deep(ctx):
    log("deep backtraces: depths %s on a %d-level stack, %d repetitions"
        % (", ".join(map(str, DEEP_DEPTHS)), DEEP_STACK, ctx.reps))
    fx = Fixture(ctx.hotloop, DEEP_STACK)
    old = sysctl("kernel.bpf_stats_enabled")
    res = {}
    try:
        for d in DEEP_DEPTHS:
            rounds = [r for r in (deep_round(ctx, fx, d) for _ in range(ctx.reps)) if r]
            res[d] = {"hit": stats_of([r["hit"] for r in rounds]),
                      "per_frame": stats_of([r["hit"] / d for r in rounds]),
                      "received": min((r["received"] or 0) for r in rounds) if rounds else 0}
            if res[d]["hit"]:
                log("  depth %4d: %8.0f ns per hit in BPF, %5.1f ns per frame"
                    % (d, res[d]["hit"][0], res[d]["per_frame"][0]))
    finally:
        sysctl("kernel.bpf_stats_enabled", old)
        fx.close()
    ok = [d for d in DEEP_DEPTHS if res[d]["hit"]]
    if len(ok) >= 2:
        res["fit"] = linfit(ok, [res[d]["hit"][0] for d in ok])
    return res


def deep_targets(R):
    """The deep section's target: BPF time per frame at the deepest depth."""
    deep = R.get("deep") or {}
    r = deep.get(DEEP_DEPTHS[-1]) or deep.get(str(DEEP_DEPTHS[-1]))
    if not r or not r["hit"]:
        return []
    pf = r["per_frame"][0]
    return [("<= %d ns per frame inside BPF at depth %d" % (DEEP_TARGET_NS, DEEP_DEPTHS[-1]),
             "%.1f ns" % pf, verdict(pf, DEEP_TARGET_NS))]


def deep_table(R, with_targets=True):
    """Lines of the summary for the deep section (its target line too
    unless the summary table above lists every target)."""
    deep = R.get("deep")
    if not deep:
        return []
    lines = ["", "Deep backtraces (BPF time per hit / frames; stack of %d levels, %d hits a round)"
             % (DEEP_STACK, DEEP_N)]
    for d in DEEP_DEPTHS:
        r = deep.get(d) or deep.get(str(d))
        if not r or not r["hit"]:
            lines.append("  depth %4d: no measurement" % d)
            continue
        lines.append("  depth %4d: %8.0f ns per hit (%.0f-%.0f), %5.1f ns per frame (%.1f-%.1f); "
                     "%d of %d events received" % (d, r["hit"][0], r["hit"][1], r["hit"][2],
                                                   r["per_frame"][0], r["per_frame"][1],
                                                   r["per_frame"][2], r["received"], DEEP_N))
    if deep.get("fit"):
        lines.append("  fit over the depths: %.1f ns per extra frame, %.0f ns fixed"
                     % (deep["fit"][1], deep["fit"][0]))
    for name, measured, v in deep_targets(R) if with_targets else ():
        lines.append("  TARGET %s: %s, %s" % (name, measured, v))
    return lines


def live_ratio(row):
    """Live over quiet cost of one configuration: the median of the ratios
    taken within each repetition (older results: the ratio of medians)."""
    if row.get("live_ratio"):
        return row["live_ratio"][0]
    return row["live"][0] / row["quiet"][0]


def linfit(xs, ys):
    """Least squares y = a + b x; returns (a, b)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def perhit_fits(ph):
    rows = ph["rows"]
    xs = list(DEPTHS)
    out = {}
    for what in ("quiet", "bpf", "live"):
        ys = [rows["wr_bt%d" % d][what][0] for d in xs]
        out[what] = linfit(xs, ys)
        # Steady state of the step program: the deep end only.
        deep = [d for d in xs if d >= 16]
        out[what + "_deep"] = linfit(deep, [rows["wr_bt%d" % d][what][0] for d in deep])
    return out


# ---------------------------------------------------------------------------
# Section 3: start-up, CFI extraction, map memory
# ---------------------------------------------------------------------------

def exec_modules(pid):
    """Files mapped executable by @pid, in maps order, without duplicates."""
    mods = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and "x" in parts[1] and parts[5].startswith("/"):
                if parts[5] not in mods:
                    mods.append(parts[5])
    return mods


def cpu_of(p, sig=None):
    """Wait for @p (after sending @sig) and return its user + system CPU seconds."""
    if sig is not None and p.poll() is None:
        p.send_signal(sig)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p in children:
        children.remove(p)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, marker=None, timeout=60, cpu=TOOL_CPU):
    """(wall s from exec of @cmd to @marker on stderr, or to exit; CPU s of
    the whole process; ok; stderr watcher).  With @marker the process is
    stopped with SIGINT once the marker appeared."""
    t0 = now()
    p = spawn(cmd, cpu=cpu, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    w = LineWatcher(p.stderr, marker)
    if marker:
        w.ready.wait(timeout)
        t = now() - t0
        ok = marker in w.text()
        if ok and marker == "wraith: tracing":
            extra = map_memlock()
        else:
            extra = None
        return t, cpu_of(p, signal.SIGINT), ok, w, extra
    cpu = cpu_of(p)
    return now() - t0, cpu, p.returncode == 0, w, None


def map_memlock():
    out = subprocess.run(["bpftool", "map", "show", "-j"], capture_output=True, text=True,
                         check=True).stdout
    tot = {"wr_rows": [0, 0], "wr_rules": [0, 0]}
    for m in json.loads(out):
        name = m.get("name", "")
        if name in tot:
            tot[name][0] += m.get("bytes_memlock", 0)
            tot[name][1] += m.get("max_entries", 0)
    return tot


class Demo:
    """The demo service (scripts/demo/kvservice), traced with its own script."""

    def __init__(self, ctx):
        self.p = spawn([ctx.demo], cpu=PROBE_CPU, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        m = re.search(r"pid (\d+)", line)
        if not m:
            raise RuntimeError("kvservice did not start: %r" % line)
        self.pid = int(m.group(1))

    def close(self):
        reap(self.p, signal.SIGKILL)


class Program:
    """A program that runs until killed, for the file:line start-up cases."""

    def __init__(self, argv):
        self.p = spawn(argv, cpu=PROBE_CPU, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.pid = self.p.pid
        # Until the program has mapped its libraries (python imports too).
        time.sleep(1.0)
        if self.p.poll() is not None:
            raise RuntimeError("%s exited at start" % argv[0])

    def close(self):
        reap(self.p, signal.SIGKILL)


def line_cases(ctx):
    """{key: (name, argv, probe)}: file:line probes on python3.11d (Debian's
    python3.11-dbg) and on the generated LTO program, where they exist."""
    out = {}
    py = "/usr/bin/python3.11d"
    if os.access(py, os.X_OK):
        r = subprocess.run(["gdb", "-nx", "-batch", "-ex", "info line PyList_Append", py],
                           capture_output=True, text=True)
        m = re.search(r'Line (\d+) of "(?:\.\./)*([^"]+)"', r.stdout)
        if m:
            out["line_py"] = ("python3.11d, file:line %s:%s" % (m.group(2), m.group(1)),
                              [py, "-c", "import time\nwhile True: time.sleep(1)"],
                              "%s:%s" % (m.group(2), m.group(1)))
    src = os.path.join(ctx.build, "bench", "genbig", "u0.c")
    big = os.path.join(ctx.build, "bench", "genbig", "big")
    if os.access(big, os.X_OK) and os.path.exists(src):
        with open(src) as f:
            n = next(i for i, l in enumerate(f, 1) if "PROBE-LINE" in l)
        out["line_big"] = ("generated -O3 -flto program, file:line u0.c:%d" % n, [big],
                           "u0.c:%d" % n)
        # big_inlined() inlined by 400 callers: one probe of 595 sites, each
        # reading its own values, which live in 10 forms (locations differ
        # from site to site in kind too: a register, a constant, a stack
        # slot, an entry value...)
        out["sites_big"] = ("generated -O3 -flto program, big_inlined (%d inlined sites)"
                            % SITES_N, [big], "big_inlined { print \"{} {}\", v, site; }")
    if len(out) < 2:
        log("start-up: file:line cases missing (python3.11-dbg installed? bench/genbig built?)")
    return out


# What wraith resolves big_inlined to in the generated program (its 400
# callers, some of which call it twice, and the copies in big_inlined2).
SITES_N = 595


def startup_target(ctx, name, libs, demo=False, prog=None):
    if prog:
        fx = Program(prog[0])
        script = ["-s", "trace %s" % prog[1] if "{" in prog[1] else "trace %s { bt; }" % prog[1]]
    elif demo:
        fx = Demo(ctx)
        script = ["--script-file", os.path.join(ctx.src, "scripts", "demo", "demo.ws")]
    else:
        fx = Fixture(ctx.hotloop, libs=libs)
        script = ["-s", "trace wr_bench_hot { bt; }"]
    base = [ctx.wraith, "-p", str(fx.pid)] + script + ["--color", "never"]
    # Cold: each run gets a new, empty probe cache, so it compiles its probes
    # (and stores them); warm: every run finds them in a cache one untimed
    # run filled, as a script started again against the same process does.
    warm_dir = tempfile.mkdtemp(prefix="probes-warm.", dir=ctx.workdir)
    warm = ["--probe-cache-dir", warm_dir]
    keys = ("ready", "ready_warm", "dry", "exec")
    out = {"modules": exec_modules(fx.pid), "memlock": None}
    for k in keys:
        out[k], out[k + "_cpu"] = [], []

    def cold():
        return ["--probe-cache-dir", tempfile.mkdtemp(prefix="probes-cold.", dir=ctx.workdir)]

    try:
        _, _, ok, w, _ = timed(base + warm + ["--dry-run"], cpu=ALL_CPUS)
        if not ok or not glob.glob(os.path.join(warm_dir, "*.wpc")):
            raise RuntimeError("wraith --dry-run stored no probe:\n" + w.text()[-2000:])
        for rep in range(ctx.reps):
            t, cpu, _, _, _ = timed([ctx.wraith, "--version"], cpu=ALL_CPUS)
            out["exec"].append(t)
            out["exec_cpu"].append(cpu)
            t, cpu, ok, w, _ = timed(base + cold() + ["--dry-run"], cpu=ALL_CPUS)
            out["dry"].append(t if ok else None)
            out["dry_cpu"].append(cpu if ok else None)
            for key, cache in (("ready", cold()), ("ready_warm", warm)):
                t, cpu, ok, w, memlock = timed(base + cache, marker="wraith: tracing",
                                               cpu=ALL_CPUS)
                if not ok:
                    raise RuntimeError("wraith did not attach:\n" + w.text()[-2000:])
                out[key].append(t)
                out[key + "_cpu"].append(cpu)
                out["memlock"] = out["memlock"] or memlock
    finally:
        fx.close()
    for k in keys:
        out[k] = stats_of(out[k])
        out[k + "_cpu"] = stats_of(out[k + "_cpu"])
    log("  %s: ready %.0f ms cold, %.0f ms warm (dry run %.0f ms, exec alone %.0f ms)" % (
        name, out["ready"][0] * 1e3, out["ready_warm"][0] * 1e3, out["dry"][0] * 1e3,
        out["exec"][0] * 1e3))
    return out


def parse_kv(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def cfi_extraction(ctx, modules):
    r = subprocess.run([ctx.microbench, "cfi", str(ctx.reps)] + modules, capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError("microbench cfi failed: " + r.stderr)
    per = {}
    for line in r.stdout.splitlines():
        kv = parse_kv(line)
        per.setdefault(kv["path"], []).append(kv)
    out, dinfo = {}, None
    first = r.stdout.splitlines()[0] if r.stdout else ""
    if first:
        kv = parse_kv(first)
        reps0 = per[kv["path"]]
        dinfo = {
            "path": kv["path"], "loaded": kv.get("debuginfod") == "1",
            "first_s": float(kv["extract_s"]),
            "later_s": statistics.median(float(x["extract_s"]) for x in reps0[1:]) if len(reps0) > 1
            else None}
    for path, reps in per.items():
        rows, rules = int(reps[0]["rows"]), int(reps[0]["rules"])
        out[path] = {
            "rows": rows, "rules": rules, "fdes": int(reps[0]["fdes"]),
            "unsupported": int(reps[0]["unsupported"]),
            "extract_s": stats_of([float(x["extract_s"]) for x in reps]),
            "first_s": float(reps[0]["extract_s"]),
            "rows_per_s": stats_of([rows / float(x["extract_s"]) for x in reps]),
            "bytes": rows * 8 + rules * 16,
        }
    return out, dinfo


PROFILE_SYMBOLS = (
    ("main", "wraith's main (everything after the dynamic linker)"),
    ("_dl_relocate_object", "dynamic linker: relocations (libbpf, libdw, libstdc++, ...)"),
    ("dw_resolve_function", "resolving the function name in every module's DWARF"),
    ("dwfl_module_getdwarf", "libdw: opening DWARF (incl. separate debug files)"),
    ("codegen_probe", "code generation for the probe (LLVM)"),
    ("passes_run", "LLVM optimisation passes"),
    ("LLVMTargetMachineEmitToMemoryBuffer", "LLVM BPF instruction selection and emission"),
    ("LLVMParseBitcodeInContext2", "parsing the template bitcode"),
    ("cfi_sources_extract", "CFI extraction (loader thread, while the probe compiles)"),
    ("runtime_cfi_maps_new", "CFI maps made and filled (loader thread)"),
    ("target_install", "CFI and mappings installed (main thread, after waiting for the loader)"),
    ("runtime_load_probe", "loading the probe (BPF verifier)"),
    ("runtime_new", "loading the base object and maps (on its own thread)"),
)


def startup_profile(ctx):
    """Inclusive share of on-CPU samples by function over one start (libc only)."""
    fx = Fixture(ctx.hotloop)
    data = os.path.join(ctx.workdir, "startup.perf")
    try:
        r = subprocess.run(["perf", "record", "-q", "-F", "2000", "--call-graph", "dwarf,32768",
                            "-o", data, "--", ctx.wraith, "-p", str(fx.pid), "-s",
                            "trace wr_bench_hot { bt; }", "--timeout", "0.01", "-q",
                            "--probe-cache", "off"],
                           capture_output=True, text=True)
    finally:
        fx.close()
    if r.returncode:
        return None
    rep = subprocess.run(["perf", "report", "-i", data, "--children", "--stdio", "-g", "none",
                          "--sort", "sym", "--percent-limit", "0.5"],
                         capture_output=True, text=True).stdout
    shares = {}
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if m and m.group(3) not in shares:
            shares[m.group(3)] = float(m.group(1))
    nsamples = re.search(r"# Samples: (\S+)", rep)
    os.unlink(data)
    return {"shares": {k: shares.get(k) for k, _ in PROFILE_SYMBOLS},
            "samples": nsamples.group(1) if nsamples else "?"}


STARTUP_KEYS = ("small", "big", "demo", "line_py", "line_big", "sites_big")


def section_startup(ctx):
    log("start-up: libc-only process, and one that maps %s" % os.path.basename(ctx.biglib))
    res = {"small": startup_target(ctx, "libc only", []),
           "big": startup_target(ctx, os.path.basename(ctx.biglib), [ctx.biglib])}
    if os.access(ctx.demo, os.X_OK):
        res["demo"] = startup_target(ctx, "demo (kvservice)", [], demo=True)
    for key, (name, argv, probe) in line_cases(ctx).items():
        res[key] = startup_target(ctx, name, [], prog=(argv, probe))
        res[key]["name"] = name
    mods = list(dict.fromkeys(res["small"]["modules"] + res["big"]["modules"] +
                              res.get("demo", {}).get("modules", [])))
    log("start-up: CFI extraction of %d modules x %d" % (len(mods), ctx.reps))
    res["cfi"], res["first_libdw"] = cfi_extraction(ctx, mods)
    log("start-up: profile of one start")
    res["profile"] = startup_profile(ctx)
    for key in [k for k in STARTUP_KEYS if k in res]:
        t = res[key]
        cfi = [res["cfi"][m] for m in t["modules"] if m in res["cfi"]]
        t["rows"] = sum(c["rows"] for c in cfi)
        t["rules"] = sum(c["rules"] for c in cfi)
        t["bytes"] = sum(c["bytes"] for c in cfi)
        t["extract_s"] = sum(c["extract_s"][0] for c in cfi)
    return res


# ---------------------------------------------------------------------------
# Section 4: symbolization
# ---------------------------------------------------------------------------

PROBES_N = 1000


def section_probes(ctx):
    """Launch to "tracing" with PROBES_N probes of one shape (prints that
    differ only in their text share one program) and of ten shapes, and
    SIGINT to exit (every probe detached)."""
    fx = Fixture(ctx.hotloop)
    out = {}
    try:
        for name, body in (("same shape", lambda i: 'print "p%d {}", $pid;' % i),
                           ("10 shapes", lambda i: 'print "p%d {}", $pid + %d;' % (i, i % 10))):
            path = os.path.join(ctx.workdir, "probes.ws")
            with open(path, "w") as f:
                for i in range(PROBES_N):
                    f.write("trace wr_bench_hot { %s }\n" % body(i))
            cmd = [ctx.wraith, "-p", str(fx.pid), "--script-file", path, "--color", "never"]
            ready, stop = [], []
            for rep in range(ctx.reps):
                t0 = now()
                p = spawn(cmd, cpu=ALL_CPUS, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
                w = LineWatcher(p.stderr, "wraith: tracing")
                w.ready.wait(300)
                ready.append(now() - t0)
                if "wraith: tracing" not in w.text():
                    cpu_of(p, signal.SIGKILL)
                    raise RuntimeError("wraith did not attach:\n" + w.text()[-2000:])
                t1 = now()
                cpu_of(p, signal.SIGINT)
                stop.append(now() - t1)
            out[name] = {"ready": stats_of(ready), "stop": stats_of(stop)}
            log("  %d probes, %s: ready %.2f s, stopped %.2f s after SIGINT"
                % (PROBES_N, name, out[name]["ready"][0], out[name]["stop"][0]))
    finally:
        fx.close()
    return out


def section_sym(ctx):
    out = {}
    for path in (ctx.wraith, ctx.libc):
        log("symbolization: %s" % path)
        r = subprocess.run([ctx.microbench, "sym", str(ctx.reps), "5000", path],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("microbench sym failed: " + r.stderr)
        reps = [parse_kv(l) for l in r.stdout.splitlines() if l.startswith("sym ")]
        pcs = int(reps[0]["pcs"])
        out[path] = {
            "pcs": pcs, "frames": int(reps[0]["frames"]), "named": int(reps[0]["named"]),
            "first_s": stats_of([float(x["first_s"]) for x in reps]),
            "cold_per_s": stats_of([(pcs - 1) / float(x["cold_s"]) for x in reps]),
            "warm_per_s": stats_of([int(x["warm_lookups"]) / float(x["warm_s"]) for x in reps]),
        }
    return out


# ---------------------------------------------------------------------------
# Section 5: event delivery
# ---------------------------------------------------------------------------

def section_delivery(ctx):
    script = 'trace wr_bench_hot { print "x {}", $pid; bt; }'
    fx = Fixture(ctx.hotloop)
    res = {}
    try:
        for transport in ("ringbuf", "perf"):
            log("delivery: %s, %d rates x %d" % (transport, len(RATES) + 1, ctx.reps))
            per_rate = {r: [] for r in RATES + ("max",)}
            for rep in range(ctx.reps):
                cmd = [ctx.wraith, "-p", str(fx.pid), "-s", script, "--script-output", "json",
                       "--backtrace-depth", "16", "--transport", transport, "--color", "never"]
                tr = Tracer("wraith", cmd, ctx.workdir, marker="wraith: tracing")
                emitted = 0
                for rate in RATES + ("max",):
                    n = int((rate if rate != "max" else 40000) * DELIVERY_SECONDS)
                    before = tr.count()
                    t = fx.pace(n, rate) if rate != "max" else fx.cmd("run %d" % n)[0]
                    emitted += n
                    got = tr.drain(emitted, settle=1.0)
                    per_rate[rate].append({"offered": n / (t * 1e-9),
                                           "received": got - before, "n": n})
                tr.finish()
            out = {}
            for rate, reps in per_rate.items():
                out[rate] = {
                    "achieved": stats_of([r["offered"] for r in reps]),
                    "loss": stats_of([(r["n"] - r["received"]) / r["n"] for r in reps]),
                    "max_loss": max((r["n"] - r["received"]) / r["n"] for r in reps),
                }
            res[transport] = out
    finally:
        fx.close()
    return res


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def fmt(v, unit="", digits=0):
    if v is None:
        return "n/a"
    return ("{:,.%df}" % digits).format(v) + unit


def fmt_s(s, unit="", digits=0, scale=1.0):
    """median [min-max] of a stats triple."""
    if s is None:
        return "n/a"
    m, lo, hi = (x * scale for x in s)
    return "%s [%s-%s]%s" % (fmt(m, "", digits), fmt(lo, "", digits), fmt(hi, "", digits), unit)


def beside_ratio(rows, key):
    """What a ratio to the bare uprobe stands for on this host: the ns per
    hit the configuration adds to the traced thread over the empty probe,
    its BPF ns per run, and the bare uprobe's own cost (a trap costs
    ~0.8 us on some hosts and 5.6 us on others)."""
    r, bare = rows[key], rows["wr_empty"]
    bpft = rows.get("bpft_empty")
    return " (+%s ns per hit over the empty probe, BPF %s ns/run; bare uprobe %s ns per hit%s)" % (
        fmt(r["quiet"][0] - bare["quiet"][0]), fmt(r["bpf"][0]) if r["bpf"] else "-",
        fmt((bpft or bare)["quiet"][0]),
        ", BPF %s ns/run" % fmt(bpft["bpf"][0]) if bpft and bpft["bpf"] else "")


def verdict(measured, target, higher_is_better=False):
    """'met' or 'missed by X%' (relative to the target)."""
    if measured is None:
        return "not measured"
    ok = measured >= target if higher_is_better else measured <= target
    if ok:
        return "met"
    if higher_is_better:
        return "missed: %.2fx short" % (target / measured)
    return "missed by %.0f%%" % ((measured / target - 1) * 100)


def build_targets(ctx, R):
    ph, st, sy = R.get("perhit"), R.get("startup"), R.get("sym")
    t = []
    for name, d in (R.get("probes") or {}).items():
        for key, what in (("ready", "attached"), ("stop", "detached (SIGINT to exit)")):
            v = d[key][0]
            t.append(("%d probes (%s) %s in <= 2 s" % (PROBES_N, name, what), "%.2f s" % v,
                      verdict(v, 2.0)))
    if ph:
        rows, fits = ph["rows"], R["fits"]
        bare = rows["wr_empty"]["quiet"][0]
        r16 = rows["wr_bt16"]["quiet"][0] / bare
        r128 = rows["wr_bt128"]["quiet"][0] / bare
        t.append(("bt depth 16 <= 1.25x a bare uprobe hit", "%.2fx%s" % (
            r16, beside_ratio(rows, "wr_bt16")), verdict(r16, 1.25)))
        t.append(("bt depth 128 <= 2x a bare uprobe hit", "%.2fx%s" % (
            r128, beside_ratio(rows, "wr_bt128")), verdict(r128, 2.0)))
        perf = rows["perf_dwarf"]["quiet"][0]
        worst = max(rows["wr_bt%d" % d]["quiet"][0] for d in DEPTHS)
        t.append(("every bt depth cheaper than perf --call-graph dwarf",
                  "deepest %s ns vs perf %s ns (%.2fx)" % (fmt(worst), fmt(perf), worst / perf),
                  verdict(worst, perf)))
        # The deep section's fit (depths 128-1024 on a deeper stack) when it
        # ran: between depths 16 and 128 the frames cost less than the
        # event's size varies, and that fit moves by several ns either way.
        deep_fit = (R.get("deep") or {}).get("fit")
        slope = deep_fit[1] if deep_fit else fits["bpf_deep"][1]
        t.append(("<= 60 ns per extra frame inside BPF%s" % (" (depths %s)" % "-".join(
            str(d) for d in DEEP_DEPTHS[::len(DEEP_DEPTHS) - 1]) if deep_fit else ""),
                  "%.1f ns" % slope, verdict(slope, 60)))
        for key, name in (("wr_empty", "the empty probe"), ("wr_bt16", "bt depth 16")):
            r = live_ratio(rows[key])
            t.append(("live <= 1.05x quiet, %s" % name, "%.2fx" % r, verdict(r, 1.05)))
        if "wr_count16" in rows:
            c = rows["wr_count16"]
            r = c["quiet"][0] / bare
            t.append(("count bt depth 16 <= 1.3x a bare uprobe hit", "%.2fx%s" % (
                r, beside_ratio(rows, "wr_count16")), verdict(r, 1.3)))
            lost = c["live_lost_frac"][2] if c["live_lost_frac"] else None
            t.append(("count bt: no hit lost at the hot-loop rate",
                      "%s of %d live hits not counted (worst repetition)"
                      % ("n/a" if lost is None else "%.2f %%" % (100 * lost), LIVE_N),
                      "not measured" if lost is None else "met" if lost == 0 else "missed"))
    t.extend(hits.targets(R))
    t.extend(hits.real_targets(R))
    t.extend(deep_targets(R))
    if st:
        big = st["cfi"].get(ctx.biglib)
        if big:
            rps = big["rows_per_s"][0]
            t.append(("CFI extraction >= 3 M rows/s (%s)" % os.path.basename(ctx.biglib),
                      "%.2f M rows/s" % (rps / 1e6), verdict(rps, 3e6, True)))
        b = st["big"]["bytes"] / st["big"]["rows"]
        t.append(("<= 12 bytes of map memory per row", "%.2f B/row" % b, verdict(b, 12)))
        for key, what, limit in (("small", "process mapping only libc", 60),
                                 ("big", "process with libLLVM mapped", 150)):
            ready = st[key]["ready"][0] * 1e3
            t.append(("ready <= %d ms, %s" % (limit, what), "%.0f ms" % ready,
                      verdict(ready, limit)))
            if st[key].get("ready_warm"):
                ready = st[key]["ready_warm"][0] * 1e3
                t.append(("ready <= %d ms, %s, probe cache warm" % (limit, what),
                          "%.0f ms" % ready, verdict(ready, limit)))
        for key, what in (("line_py", "python3.11d"), ("line_big", "generated -O3 -flto program")):
            if key in st:
                ready = st[key]["ready"][0] * 1e3
                t.append(("file:line ready <= 300 ms, %s" % what, "%.0f ms" % ready,
                          verdict(ready, 300)))
        if "sites_big" in st:
            for k, what in (("ready", ""), ("ready_warm", ", probe cache warm")):
                ready = st["sites_big"][k][0] * 1e3
                t.append(("%d-site probe ready <= 300 ms, generated -O3 -flto program%s"
                          % (SITES_N, what), "%.0f ms" % ready, verdict(ready, 300)))
    co, pi = R.get("consumer"), R.get("pipe")
    if co:
        fps = co["json/null"]["frames_per_s"][0]
        t.append((">= 1 M frames/s written as NDJSON (to /dev/null)", "%.2f M/s" % (fps / 1e6),
                  verdict(fps, 1e6, True)))
    if pi:
        d = pi["delivered"][0]
        t.append((">= 99%% of the hot loop's bt events through a pipe (%d calls)" % pi["calls"],
                  "%.1f %%" % (100 * d), verdict(d, 0.99, True)))
    if sy:
        warm = min(v["warm_per_s"][0] for v in sy.values())
        t.append((">= 2 M frames/s symbolized, warm cache", "%.1f M/s" % (warm / 1e6),
                  verdict(warm, 2e6, True)))
    return t


def summary_table(ctx, R):
    """The one table printed on stdout: every figure, median [min-max]."""
    lines = []
    add = lines.append
    add("%-58s %-34s %s" % ("measurement", "median [min-max]", "note"))
    add("-" * 118)
    ph = R.get("perhit")
    if ph:
        rows = ph["rows"]
        bare = rows["wr_empty"]["quiet"][0]
        add("%-58s %-34s %s" % ("getppid() system call (machine anchor)",
                                fmt_s(ph["syscall_ns"], " ns"), ""))
        add("%-58s %-34s %s" % ("untraced call", fmt_s(ph["untraced"], " ns", 1), ""))
        for key, row in rows.items():
            add("%-58s %-34s %s" % (
                "per hit, quiet: " + row["label"], fmt_s(row["quiet"], " ns"),
                "%.2fx bare (%+.0f ns); live %s ns; bpf %s ns/run" % (
                    row["quiet"][0] / bare, row["quiet"][0] - bare, fmt(row["live"][0]),
                    fmt(row["bpf"][0]) if row["bpf"] else "-")))
        f = R["fits"]
        add("%-58s %-34s %s" % ("ns per extra frame, wall (fit over depths)",
                                "%.1f ns" % f["quiet"][1], "intercept %.0f ns" % f["quiet"][0]))
        add("%-58s %-34s %s" % ("ns per extra frame inside BPF (fit, depth >= 16)",
                                "%.1f ns" % f["bpf_deep"][1],
                                "all depths: %.1f ns" % f["bpf"][1]))
        it = ph["interference"]
        add("%-58s %-34s %s" % ("bare bpftrace uprobe, CPU 1 idle / busy (CPU time)",
                                "%s / %s ns" % (fmt(stats_of(it["idle"])[0]),
                                                fmt(stats_of(it["busy"])[0])),
                                "wall %s / %s ns" % (fmt(stats_of(it["idle_wall"])[0]),
                                                     fmt(stats_of(it["busy_wall"])[0]))))
    lines.extend(hits.table_lines(R, fmt_s))
    st = R.get("startup")
    if st:
        for key in [k for k in STARTUP_KEYS if k in st]:
            t = st[key]
            name = {"small": "libc only", "big": os.path.basename(ctx.biglib),
                    "demo": "demo (kvservice)"}.get(key) or t["name"]
            add("%-58s %-34s %s" % ("ready (exec to status line), %s" % name,
                                    fmt_s(t["ready"], " ms", 0, 1e3),
                                    "dry run %s ms, exec %s ms" % (fmt(t["dry"][0] * 1e3),
                                                                   fmt(t["exec"][0] * 1e3))))
            if t.get("ready_warm"):
                add("%-58s %-34s %s" % ("ready, probe cache warm, %s" % name,
                                        fmt_s(t["ready_warm"], " ms", 0, 1e3), ""))
        for path, c in st["cfi"].items():
            add("%-58s %-34s %s" % ("CFI rows/s, %s (%s rows)" % (os.path.basename(path),
                                                                 fmt(c["rows"])),
                                    fmt_s(c["rows_per_s"], "", 0),
                                    "%.2f B/row, first call %.0f ms" % (
                                        c["bytes"] / max(c["rows"], 1), c["first_s"] * 1e3)))
    sy = R.get("sym")
    if sy:
        for path, s in sy.items():
            add("%-58s %-34s %s" % ("symbolize cold, frames/s, %s" % os.path.basename(path),
                                    fmt_s(s["cold_per_s"]),
                                    "first use %s ms" % fmt(s["first_s"][0] * 1e3)))
            add("%-58s %-34s %s" % ("symbolize warm, frames/s, %s" % os.path.basename(path),
                                    fmt_s(s["warm_per_s"]), ""))
    dl = R.get("delivery")
    if dl:
        for tp, per in dl.items():
            for rate, d in per.items():
                add("%-58s %-34s %s" % ("delivery %s, offered %s/s" % (tp, rate),
                                        "loss " + fmt_s(d["loss"], " %", 1, 100),
                                        "achieved %s/s" % fmt(d["achieved"][0])))
    fi = R.get("faultin")
    if fi:
        bare = fi["rows"]["bpft_empty"]["quiet"][0]
        for key, row in fi["rows"].items():
            add("%-58s %-34s %s" % ("per hit, quiet: " + row["label"], fmt_s(row["quiet"], " ns"),
                                    "%.2fx bare; bpf %s ns/run" % (
                                        row["quiet"][0] / bare,
                                        fmt(row["bpf"][0]) if row["bpf"] else "-")))
    for key, c in (R.get("consumer") or {}).items():
        add("%-58s %-34s %s" % ("consumer, bt depth %d, %s" % (streaming.CONSUMER_DEPTH, key),
                                fmt_s(c["events_per_s"], " events/s"),
                                "%s frames/s; CPU %s us/event" % (
                                    fmt(c["frames_per_s"][0]), fmt(c["cpu_per_event_us"][0], "", 2))))
    pi = R.get("pipe")
    if pi:
        add("%-58s %-34s %s" % ("hot loop live, bt as NDJSON | grep -c",
                                "delivered " + fmt_s(pi["delivered"], " %", 1, 100),
                                "%s calls/s, %d frames/event" % (fmt(pi["calls_per_s"][0]),
                                                                   pi["frames"])))
    for name, measured, v in R.get("targets", []):
        add("%-58s %-34s %s" % ("TARGET " + name, measured, v))
    return "\n".join(lines)


def plot(ctx, R, png):
    ph = R["perhit"]
    rows, fits = ph["rows"], R["fits"]
    with tempfile.TemporaryDirectory() as d:
        dat = os.path.join(d, "bt.dat")
        with open(dat, "w") as f:
            for dep in DEPTHS:
                r = rows["wr_bt%d" % dep]
                f.write("%d %f %f %f %f %f %f\n" % ((dep,) + tuple(r["quiet"]) + tuple(r["bpf"])))
        ref = {k: rows[k]["quiet"][0] for k in ("wr_empty", "bpft_empty", "bpft_ustack",
                                                "perf_dwarf")}
        gp = """
set terminal pngcairo size 1100,480 font ",10" noenhanced
set output '%(png)s'
set multiplot layout 1,2 title "wraith: cost of one uprobe hit (median of %(reps)d, bars min-max)"
set logscale x 2
set xrange [0.8:160]
set xlabel "bt depth (frames)"
set ylabel "ns per hit (CPU time of the traced thread)"
set key top left
set grid
set yrange [0:*]
plot '%(dat)s' u 1:2:3:4 w yerrorlines lw 2 pt 7 t "wraith bt", \\
     %(bare)f w l dt 2 lw 2 t "wraith empty probe (bare uprobe)", \\
     %(bpfte)f w l dt 3 lw 1 t "bpftrace empty uprobe", \\
     %(ustack)f w l dt 4 lw 2 t "bpftrace ustack (frame pointers)", \\
     %(perf)f w l dt 1 lw 2 lc rgb "red" t "perf record --call-graph dwarf", \\
     %(t125)f w l dt 5 lc rgb "gray" t "target at depth 16: 1.25x bare", \\
     %(t2)f w l dt 6 lc rgb "black" t "target at depth 128: 2x bare"
unset logscale x
set xrange [0:135]
set xtics 16
set ylabel "ns per run inside BPF (kernel.bpf_stats_enabled)"
set key top left
plot '%(dat)s' u 1:5:6:7 w yerrorbars pt 7 t "wraith probe + tail-called steps", \\
     %(a)f + %(b)f * x w l t sprintf("fit, depth >= 16: %%.1f ns/frame", %(b)f)
unset multiplot
""" % {"png": png, "reps": ctx.reps, "dat": dat, "bare": ref["wr_empty"],
            "bpfte": ref["bpft_empty"], "ustack": ref["bpft_ustack"], "perf": ref["perf_dwarf"],
            "t125": 1.25 * ref["wr_empty"], "t2": 2 * ref["wr_empty"],
            "a": fits["bpf_deep"][0], "b": fits["bpf_deep"][1]}
        r = subprocess.run(["gnuplot"], input=gp, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("gnuplot failed: " + r.stderr)


def write_markdown(ctx, R, table, path):
    import report  # bench/report.py: the prose of doc/performance.md
    text = report.render(ctx, R, table, DEPTHS, {
        "QUIET_N": QUIET_N, "QUIET_ROUNDS": QUIET_ROUNDS, "LIVE_N": LIVE_N,
        "STACK_DEPTH": STACK_DEPTH, "RATES": RATES, "DELIVERY_SECONDS": DELIVERY_SECONDS,
        "DEEP_DEPTHS": DEEP_DEPTHS, "DEEP_STACK": DEEP_STACK, "DEEP_N": DEEP_N,
        "DEEP_TARGET_NS": DEEP_TARGET_NS})
    kept = values.kept_block(path)
    with open(path, "w") as f:
        f.write(text + ("\n" + kept if kept else ""))


# ---------------------------------------------------------------------------

class Ctx:
    pass


def bench_env(ctx):
    """What the sections in other files use of this one."""
    return types.SimpleNamespace(
        ctx=ctx, spawn=spawn, cpu_of=cpu_of, Fixture=Fixture, stats_of=stats_of, log=log,
        TOOL_CPU=TOOL_CPU, PROBE_CPU=PROBE_CPU, wraith_stack_sample=wraith_stack_sample,
        start_tracer=start_tracer,
        prog_ids_of=prog_ids_of, sysctl=sysctl, bpf_progs=bpf_progs, bpf_delta=bpf_delta)


def find_biglib(wraith):
    """The shared libLLVM: the one wraith links, or (wraith links LLVM
    statically) the one installed with llvm-19."""
    out = subprocess.run(["ldd", wraith], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r"(libLLVM[^ ]*) => (\S+)", line)
        if m:
            return os.path.realpath(m.group(2))
    dirs = ["/usr/lib/x86_64-linux-gnu"]
    try:
        dirs.insert(0, subprocess.run(["llvm-config-19", "--libdir"], capture_output=True,
                                      text=True).stdout.strip())
    except OSError:
        pass
    for d in dirs:
        for name in sorted(glob.glob(os.path.join(d, "libLLVM*.so.*"))):
            return os.path.realpath(name)
    return None


def machine_info():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break

    def version(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "?"
    return {
        "kernel": platform.release(), "cpu": cpu, "cpus": os.cpu_count(),
        "bpftrace": version(["bpftrace", "--version"]), "perf": version(["perf", "--version"]),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
    }


# The sections doc/performance.md is written from (the default of --only).
DOC_SECTIONS = ("perhit", "hits", "helpers", "sites", "real", "startup", "probes", "sym", "delivery",
                "consumer", "pipe", "faultin", "deep")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="wraith source directory")
    ap.add_argument("--build", required=True, help="wraith build directory")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per figure (>= 5)")
    ap.add_argument("--only", default=",".join(DOC_SECTIONS),
                    help="comma-separated sections to run")
    ap.add_argument("--no-doc", action="store_true", help="print the table, write no files")
    ap.add_argument("--stages-wraith", metavar="PATH",
                    help="a wraith built --enable-stage-timing: the hits section splits "
                         "each wraith configuration's BPF time by stage with it")
    ap.add_argument("--wraith", metavar="PATH",
                    help="the wraith to measure (default: the build's; e.g. one built "
                         "--enable-stage-timing for the hits section's split by stage)")
    ap.add_argument("--allow-few-reps", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--from-json", metavar="FILE",
                    help="measure nothing: render the doc again from a results.json")
    args = ap.parse_args()
    if args.from_json:
        return rerender(args.from_json, os.path.abspath(args.src))
    if args.reps < 5 and not args.allow_few_reps:
        ap.error("--reps must be at least 5")
    ctx = Ctx()
    ctx.reps = args.reps
    ctx.src, ctx.build = os.path.abspath(args.src), os.path.abspath(args.build)
    ctx.wraith = os.path.abspath(args.wraith) if args.wraith else os.path.join(ctx.build, "wraith")
    ctx.hotloop = os.path.join(ctx.build, "bench", "hotloop")
    ctx.stages_wraith = os.path.abspath(args.stages_wraith) if args.stages_wraith else None
    ctx.microbench = os.path.join(ctx.build, "bench", "microbench")
    ctx.demo = os.path.join(ctx.build, "scripts", "demo", "kvservice")
    ctx.biglib = find_biglib(ctx.wraith)
    ctx.libc = os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6")
    ctx.machine = machine_info()
    ctx.workdir = tempfile.mkdtemp(prefix="wraith-bench.")
    # Other sections' wraiths keep their probes here, not in root's cache;
    # the start-up section says where each of its runs keeps them.
    os.environ["WRAITH_PROBE_CACHE_DIR"] = os.path.join(ctx.workdir, "probes")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    # The driver itself stays off the probed CPU.
    os.sched_setaffinity(0, {int(TOOL_CPU)})
    only = set(args.only.split(","))
    R = {}
    t_start = now()
    load0 = os.getloadavg()[0]
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    try:
        if "perhit" in only:
            R["perhit"] = section_perhit(ctx)
            R["fits"] = perhit_fits(R["perhit"])
        if "hits" in only:
            R["hits"] = hits.section_hits(bench_env(ctx))
        if "helpers" in only:
            log("helpers: what each piece of a hit costs inside BPF")
            R["helpers"] = helpers.section(ctx.build)
        if "sites" in only:
            R["sites"] = hits.section_sites(bench_env(ctx))
        if "real" in only:
            R["real"] = hits.section_real(bench_env(ctx))
        if "startup" in only:
            R["startup"] = section_startup(ctx)
        if "probes" in only:
            R["probes"] = section_probes(ctx)
        if "sym" in only:
            R["sym"] = section_sym(ctx)
        if "delivery" in only:
            R["delivery"] = section_delivery(ctx)
        if "faultin" in only:
            R["faultin"] = section_faultin(ctx)
        if "deep" in only:
            R["deep"] = section_deep(ctx)
        if "values" in only:
            R["values"] = values.section_values(bench_env(ctx))
        if "consumer" in only:
            R["consumer"] = streaming.section_consumer(bench_env(ctx))
        if "pipe" in only:
            R["pipe"] = streaming.section_pipe(bench_env(ctx))
    finally:
        cleanup()
        shutil.rmtree(ctx.workdir, ignore_errors=True)
    R["elapsed_s"] = now() - t_start
    R["load"] = ("%.1f" % load0, "%.1f" % os.getloadavg()[0])
    R["targets"] = build_targets(ctx, R)
    table = summary_table(ctx, R) if only - {"deep", "values"} else ""
    table += "\n".join(deep_table(R, with_targets=not table))
    print(table)
    if not args.no_doc and only == set(DOC_SECTIONS):
        doc = os.path.join(ctx.src, "doc")
        plot(ctx, R, os.path.join(doc, "performance.png"))
        write_markdown(ctx, R, table, os.path.join(doc, "performance.md"))
        log("wrote %s/performance.md and performance.png (%.0f s)" % (doc, R["elapsed_s"]))
    elif not args.no_doc and R.get("values"):
        values.write_doc(os.path.join(ctx.src, "doc", "performance.md"), R["values"], ctx.machine)
        log("wrote the values section of %s/doc/performance.md" % ctx.src)
    R["ctx"] = {k: getattr(ctx, k) for k in ("reps", "machine", "biglib", "libc", "wraith")}
    with open(os.path.join(ctx.build, "bench", "results.json"), "w") as f:
        json.dump(R, f, indent=1, default=str)
    return 0


def rerender(path, src):
    """Write the doc from a saved run (after editing report.py's prose)."""
    with open(path) as f:
        R = json.load(f)
    ctx = Ctx()
    for k, v in R["ctx"].items():
        setattr(ctx, k, v)
    for tp in R.get("delivery", {}).values():
        for k in list(tp):
            tp[int(k) if k.isdigit() else k] = tp.pop(k)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    R["targets"] = build_targets(ctx, R)
    table = summary_table(ctx, R) + "\n".join(deep_table(R, with_targets=False))
    print(table)
    doc = os.path.join(src, "doc")
    plot(ctx, R, os.path.join(doc, "performance.png"))
    write_markdown(ctx, R, table, os.path.join(doc, "performance.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
