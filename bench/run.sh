#!/usr/bin/env bash
# run.sh - run wraith's benchmark suite (see bench/run.py for what it
# measures).  Needs root (BPF, uprobes, bpf_stats), two CPUs, python3,
# taskset, bpftool, bpftrace, perf and gnuplot.  Normally started by
# `make bench`; by hand:
#   bench/run.sh --src /path/to/wraith --build /path/to/build [--reps N]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (BPF programs, uprobes, kernel.bpf_stats_enabled)" >&2
	exit 1
fi
# The deep section alone measures wraith only.
need="python3 taskset bpftool bpftrace perf gnuplot clang-19"
case " $* " in *" --only deep "*) need="python3 taskset bpftool" ;; esac
missing=
for tool in $need; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "bench: missing tools:$missing; scripts/install-deps.sh --bench installs them" >&2
	exit 1
fi
if [ "$(nproc)" -lt 2 ]; then
	echo "bench: needs two CPUs (probed process on one, tracer on the other)" >&2
	exit 1
fi
exec python3 "$here/run.py" "$@"
