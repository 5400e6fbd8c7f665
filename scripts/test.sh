#!/bin/sh
# test.sh - the whole test suite from a fresh checkout, as CI runs it
# (.ci/run).  Needs root: the end-to-end tests load BPF programs and
# attach uprobes.  In order:
#   1. installs the dependencies (scripts/install-deps.sh) and makes the
#      release tarball (`make dist`);
#   2. unpacks the tarball and builds it in place with ASan+UBSan and
#      -Werror, and runs every unit and end-to-end test there (leaks
#      included); then `make dist` from that in-tree build must ship
#      exactly the tarball's files: no object, fixture, log or test
#      directory an in-tree build leaves beside the sources;
#   3. `make distcheck` with -Werror, the build users get: the tarball
#      built out of tree with its sources read-only, every test run again,
#      `make install`, `make uninstall` and `make distclean` checked.  It
#      builds its own fixture programs: their debug info names the sources
#      they were built from, and tests match those paths in full (with
#      step 2's fixtures, `make check FIXTURES_FROM=TREE`, test_resolve
#      finds the other tree's path);
#   4. runs each libFuzzer harness for FUZZ_SECONDS (default 60; `make
#      fuzz` runs them longer).  They are built and run at the lowest
#      priority beside steps 2 and 3, on the CPU time the tests leave idle
#      (most of an end-to-end test is waiting: for a fixture's next call,
#      for gdb, for the kernel), and waited for at the end (stopped with
#      this script when it fails).
# Every test runs in both builds, so every test runs under ASan+UBSan:
# none is left out of the sanitizer pass.  Tests run side by side (make
# -jJOBS, JOBS twice the CPUs: the end-to-end tests mostly wait), each
# isolated from the others (tests/e2e/wraithtest.py).
#
# Each step prints its wall time, the CPU time it used (which a busy
# machine does not stretch) and the load average.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$(date +%s)
step_start=$start
cpu_then=0
times_out=$(mktemp)
fuzz_pid=""
# On the way out, failing or interrupted: the fuzzers too (their own
# process group, below).
trap 'rm -f "$times_out"; [ -z "$fuzz_pid" ] || kill -- -"$fuzz_pid" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
# step NAME: how long the step that ends here took, in wall and CPU time
# (the CPU time says what a busy machine does not: on a quiet machine
# with C CPUs, a step takes at least its CPU time divided by C).
step() {
	now=$(date +%s)
	# `times` in this shell (a subshell has no children): the CPU time
	# of the children waited for so far, user and system
	times >"$times_out"
	cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
		printf "%d\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$times_out")
	echo "test.sh: $1: $((now - step_start)) s, CPU $((cpu - cpu_then)) s" \
		"(load average $(cut -d' ' -f1-3 /proc/loadavg))"
	step_start=$now
	cpu_then=$cpu
}

scripts/install-deps.sh
step "dependencies"
autoreconf -fi >/dev/null 2>&1
cpus=$(nproc 2>/dev/null || echo 2)
jobs=$((cpus * 2))
fuzz_seconds=${FUZZ_SECONDS:-60}

# show_failures TREE: each failing test's FAIL lines and the end of its
# log, printed last so that an excerpt of CI's output shows them.
show_failures() {
	find "$1" -name '*.trs' -exec grep -l '^:test-result: \(FAIL\|ERROR\)' {} + 2>/dev/null |
		while read -r trs; do
			log=${trs%.trs}.log
			echo "==== $log"
			grep -E '^FAIL ' "$log" | head -n 20
			echo "---- its last lines:"
			tail -n 25 "$log"
		done
}
# A failing test pass does not stop the script: the other pass and the
# fuzzers still run, so that one run shows every failure (a build that
# fails stops it).  The passes that failed, and their trees:
failed=""
failed_trees=""

# ---- 1. the tarball ----
rm -rf build-test build-asan
mkdir build-test
cd build-test
"$top/configure" -q
make dist >/dev/null
tarball=$(pwd)/$(ls wraith-*.tar.gz)
step "configure and make dist"

# ---- 4, started: the fuzzers, at the lowest priority ----
setsid nice -n 19 make fuzz FUZZ_SECONDS="$fuzz_seconds" >fuzz.log 2>&1 &
fuzz_pid=$!

# ---- 2. ASan+UBSan, in place ----
mkdir "$top/build-asan"
cd "$top/build-asan"
tar xzf "$tarball"
cd wraith-*/
asan=$(pwd)
./configure --enable-werror --enable-sanitizers -q
make -j"$cpus" >/dev/null
step "ASan+UBSan build"
if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 make -j"$jobs" check >check.out 2>&1; then
	tail -n 20 check.out
	failed="$failed ASan+UBSan-tests"
	failed_trees="$failed_trees $asan"
fi
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' check.out || true
step "ASan+UBSan tests (fixtures included)"
"$top/scripts/check-dist.sh" "$tarball" "$asan"
step "in-tree make dist"

# ---- 3. distcheck, -Werror ----
cd "$top/build-test"
if ! make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
	>distcheck.out 2>&1; then
	tail -n 40 distcheck.out
	failed="$failed distcheck"
	failed_trees="$failed_trees $top/build-test"
fi
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)|archives ready for distribution' distcheck.out || true
step "distcheck (build and tests)"

# ---- 4. the fuzzers' end ----
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
fuzz_pid=""
if [ "$fuzz_status" -ne 0 ]; then
	tail -n 70 fuzz.log
	failed="$failed fuzzing"
fi
grep -E '^fuzz:|^Done [0-9]+ runs' fuzz.log || true
step "fuzzing (what was left of it)"

if [ -n "$failed" ]; then
	for tree in $failed_trees; do
		show_failures "$tree"
	done
	echo "test.sh: failed:$failed (in $(($(date +%s) - start)) s)"
	exit 1
fi
echo "test.sh: all tests passed (ASan+UBSan, in-tree dist, distcheck, fuzzing)" \
	"in $(($(date +%s) - start)) s"
