#!/bin/sh
# test.sh - the whole test suite from a fresh checkout, as CI runs it:
# installs dependencies, then
#   1. `make distcheck` with -Werror: builds from the release tarball, runs
#      every unit and end-to-end test (live uprobes, gdb as the oracle),
#      checks `make install` and the man page;
#   2. `make dist` from an in-tree build ships the same files
#      (scripts/check-dist.sh);
#   3. the same tests in an ASan+UBSan build (leaks included);
#   4. each libFuzzer harness for 60 s (`make fuzz` runs them longer).
# Needs root: the end-to-end tests load BPF programs and attach uprobes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
autoreconf -fi >/dev/null 2>&1
jobs=$(nproc 2>/dev/null || echo 2)

# After a failing `make check`: each failing test's FAIL lines and the end
# of its log, printed last so that an excerpt of CI's output shows them.
show_failures() {
	find "$top" -name '*.trs' -exec grep -l '^:test-result: \(FAIL\|ERROR\)' {} + 2>/dev/null |
		while read -r trs; do
			log=${trs%.trs}.log
			echo "==== $log"
			grep -E '^FAIL ' "$log" | head -n 20
			echo "---- its last lines:"
			tail -n 25 "$log"
		done
	return 1
}

mkdir -p build-test && cd build-test
"$top/configure" --enable-werror -q
make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror || show_failures
"$top/scripts/check-dist.sh" wraith-*.tar.gz
cd "$top"

mkdir -p build-asan && cd build-asan
"$top/configure" --enable-werror --enable-sanitizers -q
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	make -j"$jobs" check || show_failures
cd "$top/build-test"
make fuzz FUZZ_SECONDS=60
echo "test.sh: all tests passed (distcheck, in-tree dist, ASan+UBSan, fuzzing)"
