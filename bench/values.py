"""values.py - what printing a container costs inside BPF, per element
(bench/run.py imports this; issue 24).

Section:
  values  bench/values.cc and bench/values.rs hold a std::vector<int>, a
          std::map<std::string, int> and a Rust Vec<String>, of 1 and of
          200 elements, and pass them to a function about every 20 us.
          wraith traces that function with `print "{}", v;` for WINDOW
          seconds; the BPF nanoseconds per program run
          (kernel.bpf_stats_enabled) of the 200-element container less
          the 1-element one's, over 199, is the cost of one element (a
          contiguous container's: target at most 20 ns; a tree's node: at
          most 80 ns).  An empty probe's figure stands beside them.  Not in
          `make bench`'s default sections: `bench/run.py --only values`,
          which writes its figures as the last section of
          doc/performance.md (write_doc()); a `make bench` run keeps that
          section as it was (kept_block()).
"""
import os
import statistics
import subprocess
import time
import types

WINDOW = 3.0       # seconds a configuration is measured, per round
ROUNDS = 3
SIZES = (1, 200)

CASES = [
    # (key, label, program, function, what it prints, target ns per element)
    ("vector", "std::vector<int>", "values-cc", "wr_bench_vector", "v", 20),
    ("map", "std::map<std::string, int>", "values-cc", "wr_bench_map", "m", 80),
    ("strings", "Rust Vec<String>", "values-rs", "values::wr_bench_strings", "*v", 20),
]


def ns_per_run(b, prog, size, function, script, workdir):
    """Median BPF ns per run of wraith's programs, @script on @prog holding
    @size elements, over ROUNDS windows."""
    fx = b.spawn([prog, str(size)], cpu=b.PROBE_CPU, stdout=subprocess.PIPE, text=True)
    try:
        pid = int(fx.stdout.readline().split()[1])
        ctx = types.SimpleNamespace(**vars(b.ctx))
        tr = b.start_tracer(ctx, ("values", "", "wraith", script, 1), pid, workdir)
        try:
            ids = b.prog_ids_of(tr.p.pid)
            runs = []
            for _ in range(ROUNDS):
                b.sysctl("kernel.bpf_stats_enabled", 1)
                s0 = b.bpf_progs()
                time.sleep(WINDOW)
                s1 = b.bpf_progs()
                cnt, ns, _ = b.bpf_delta(s0, s1, ids)
                if cnt:
                    runs.append(ns / cnt)
                tr.drain(0, settle=0.05)
        finally:
            tr.finish()
    finally:
        fx.kill()
        fx.wait()
    return statistics.median(runs) if runs else None


def section_values(b):
    """Per case: ns per run empty, with 1 and 200 elements, per element."""
    ctx = b.ctx
    old = b.sysctl("kernel.bpf_stats_enabled")
    rows = {}
    try:
        for key, label, prog, fn, expr, target in CASES:
            path = os.path.join(ctx.build, "bench", prog)
            empty = ns_per_run(b, path, 1, fn, "trace %s { }" % fn, ctx.workdir)
            at = {n: ns_per_run(b, path, n, fn, 'trace %s { print "{}", %s; }' % (fn, expr), ctx.workdir)
                  for n in SIZES}
            per = (at[SIZES[1]] - at[SIZES[0]]) / (SIZES[1] - SIZES[0]) \
                if None not in at.values() else None
            rows[key] = {"label": label, "empty": empty, "sizes": at, "per_element": per, "target": target}
            b.log("  %-28s empty %s ns/run, 1: %s, 200: %s, per element %s ns (target <= %d)" % (
                label, fmt(empty), fmt(at[1]), fmt(at[200]), fmt(per), target))
    finally:
        b.sysctl("kernel.bpf_stats_enabled", old)
    load = os.getloadavg()
    b.log("  load average while measured: %.2f %.2f %.2f" % load)
    return {"rows": rows, "load": load}


def fmt(v):
    return "-" if v is None else "%.0f" % v


# The values section's place in doc/performance.md: from this line to the
# end, written by `bench/run.py --only values`, kept by other runs.
BEGIN = "<!-- bench/run.py --only values writes from here to the end; make bench keeps it -->"


def doc_block(v, machine):
    """The doc's section for the values results @v (section_values())."""
    out = [BEGIN, "## Printing containers, per element\n",
           "Measured by `bench/run.py --only values` on %s (not by `make bench`, whose default "
           "sections leave it out), load average %.2f / %.2f / %.2f while measured.  wraith traces "
           "a function taking the container with `print \"{}\", v;` (`*v` for the Rust one) for %d windows of %.0f s; the "
           "figure is the median BPF time per program run (kernel.bpf_stats_enabled): CPU time "
           "inside BPF, which other work on the machine inflates less than wall-clock time.  The "
           "200-element run less the 1-element one, over 199, is what an element costs.\n"
           % (((machine or {}).get("date", "?"),) + tuple(v["load"]) + (ROUNDS, WINDOW)),
           "| container | empty probe | 1 element | 200 elements | per element | target | verdict |",
           "|---|---|---|---|---|---|---|"]
    for key, label, _, _, _, target in CASES:
        r = v["rows"].get(key)
        if not r:
            continue
        per = r["per_element"]
        verdict = "-" if per is None else "met" if per <= target else "missed"
        out.append("| `%s` | %s ns | %s ns | %s ns | %s ns | <= %d ns | %s |" % (
            label, fmt(r["empty"]), fmt(r["sizes"].get(1, r["sizes"].get("1"))),
            fmt(r["sizes"].get(200, r["sizes"].get("200"))), fmt(per), target, verdict))
    return "\n".join(out) + "\n"


def kept_block(path):
    """The values section of the doc at @path as it stands ("" if none)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return ""
    return BEGIN + text.split(BEGIN, 1)[1] if BEGIN in text else ""


def write_doc(path, v, machine):
    """Replace (or add) the values section at the end of the doc at @path."""
    with open(path) as f:
        head = f.read().split(BEGIN, 1)[0].rstrip("\n")
    with open(path, "w") as f:
        f.write(head + "\n\n" + doc_block(v, machine))
