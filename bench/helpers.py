#!/usr/bin/env python3
"""helpers.py - what each piece of a hit costs inside BPF on this host.

Runs the tiny programs of bench/helpers.bpf.c one at a time on
bench/hotloop's wr_bench_hot (the hot loop at its own depth, the probed
process on CPU 0, the loader and its ring reader on CPU 1), rotated for
ROUNDS rounds of CALLS calls, and prints for each its BPF ns per run
(kernel.bpf_stats_enabled: run_time_ns / run_cnt, median and min-max of
the rounds), what it adds over the empty program, and the traced
thread's added CPU time per call.  `empty` is the floor every program
pays, the statistics' own clock reads included; the event_floor rows put
together what every wraith event needs (the probe's cookie, pid and tid,
a timestamp, 32 bytes into the ring buffer).  doc/performance.md
(Method) says what the figures tell.

  bench/helpers.py --build BUILD [--rounds 5] [--calls 50000] [PROG...]

Builds BUILD/bench/helpers.bpf.o (clang-19) and BUILD/bench/helpers (cc,
libbpf) first; BUILD/bench/hotloop comes from `make bench` (bench.mk).
Needs root.  `make bench-helpers` in a build directory runs it alone;
`make bench` runs it as its section `helpers` (bench/run.py), whose table
doc/performance.md shows."""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_CPU, TOOL_CPU = "0", "1"


def build(out):
    obj, loader = os.path.join(out, "helpers.bpf.o"), os.path.join(out, "helpers")
    arch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
    subprocess.run(["clang-19", "-target", "bpf", "-mcpu=v3", "-O2", "-g", "-I/usr/include/" + arch,
                    "-c", os.path.join(HERE, "helpers.bpf.c"), "-o", obj], check=True)
    subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O2", "-Wall", "-Wextra", "-o", loader,
                    os.path.join(HERE, "helpers.c"), "-lbpf", "-lpthread"], check=True)
    return obj, loader


def programs():
    """The programs of helpers.bpf.c, in their order there."""
    with open(os.path.join(HERE, "helpers.bpf.c")) as f:
        names = re.findall(r'^SEC\("uprobe"\) int (\w+)\(', f.read(), re.M)
    return [n for n in names if n != "tail_callee"]


def file_offset(path, sym):
    """File offset of function @sym in ELF @path (where a uprobe goes)."""
    nm = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    va = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" T " + sym)), 16)
    ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
    for line in ph.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and int(f[2], 16) <= va < int(f[2], 16) + int(f[5], 16):
            return va - int(f[2], 16) + int(f[1], 16)
    raise SystemExit("helpers: %s not in a loaded segment of %s" % (sym, path))


class Talker:
    """A child serving one command a line."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.first = self.p.stdout.readline().split()

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().split()

    def close(self, last=None):
        if last and self.p.poll() is None:
            try:
                self.ask(last)
            except (BrokenPipeError, OSError):
                pass
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def measure(loader, hotloop, names, rounds, calls):
    off = file_offset(hotloop, "wr_bench_hot")
    fx = Talker(["taskset", "-c", FIXTURE_CPU, hotloop, "2"])
    ld = Talker(["taskset", "-c", TOOL_CPU] + loader)
    bpf, cpu, base = {n: [] for n in names}, {n: [] for n in names}, []
    try:
        if fx.first[:1] != ["ready"] or ld.first != ["ready"]:
            raise SystemExit("helpers: the hot loop or the loader did not start")
        for _ in range(rounds):
            base.append(int(fx.ask("run %d" % calls)[2]) / calls)
            for n in names:
                ok = ld.ask("attach %s %s %x %s" % (n, hotloop, off, fx.first[1]))
                if ok != ["ok"]:
                    raise SystemExit("helpers: attaching %s: %s" % (n, " ".join(ok)))
                fx.ask("run 2000")
                s0 = ld.ask("stats " + n)
                c = int(fx.ask("run %d" % calls)[2]) / calls
                s1 = ld.ask("stats " + n)
                ld.ask("detach")
                runs = int(s1[0]) - int(s0[0])
                bpf[n].append((int(s1[1]) - int(s0[1])) / runs if runs else float("nan"))
                cpu[n].append(c)
    finally:
        fx.close("quit")
        ld.close()
    return bpf, cpu, statistics.median(base)


def section(build_dir, rounds=5, calls=50000, names=None):
    """Build and measure: {"rows": {program: {"bpf": [median, min, max],
    "over": BPF ns over `empty`, "added": thread ns per call over an
    untraced call}}, "order", "rounds", "calls", "load" (at the start and
    the end), "untraced"}."""
    out = os.path.join(os.path.abspath(build_dir), "bench")
    hotloop = os.path.join(out, "hotloop")
    if not os.path.exists(hotloop):
        raise SystemExit("helpers: %s missing (make bench builds it)" % hotloop)
    obj, loader = build(out)
    names = list(names or programs())
    if "empty" not in names:
        names.insert(0, "empty")
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    load0 = os.getloadavg()[0]
    bpf, cpu, untraced = measure([loader, obj], hotloop, names, rounds, calls)
    floor = statistics.median(bpf["empty"])
    rows = {}
    for n in names:
        v = sorted(bpf[n])
        rows[n] = {"bpf": [statistics.median(v), v[0], v[-1]], "over": statistics.median(v) - floor,
                   "added": statistics.median(cpu[n]) - untraced}
    return {"rows": rows, "order": names, "rounds": rounds, "calls": calls,
            "load": [load0, os.getloadavg()[0]], "untraced": untraced}


def table(res):
    """The markdown table of section()'s result, as lines."""
    out = ["| program | BPF ns per run | over `empty` | thread, added ns per call |",
           "|---|---|---|---|"]
    for n in res["order"]:
        r = res["rows"][n]
        out.append("| `%s` | %.0f (%.0f–%.0f) | %+.0f | %.0f |" % (
            n, r["bpf"][0], r["bpf"][1], r["bpf"][2], r["over"], r["added"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="wraith build directory (bench/hotloop built)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=50000)
    ap.add_argument("progs", nargs="*", help="programs to run (default: all)")
    args = ap.parse_args()
    res = section(args.build, args.rounds, args.calls, args.progs)
    print("helpers: %d rounds of %d calls; load average %.1f at the start, %.1f at the end; "
          "untraced call %.1f ns" % (res["rounds"], res["calls"], res["load"][0], res["load"][1],
                                     res["untraced"]))
    print("\n".join(table(res)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
