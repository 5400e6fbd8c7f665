#!/bin/sh
# stress-tests.sh N [BUILDDIR] - the whole `make check` N times in the
# configured build tree BUILDDIR (default: the current directory) while
# two CPU-bound processes run, then the list of every test that failed at
# least once, with how often and where each failing run's log was kept.
# Exit status 0 when none failed.  A test that fails here depends on
# timing it does not control.  As root, like `make check`.
#
#   scripts/stress-tests.sh 3 build
#
# Each failing test's log (and its directory, NAME.dir, when the test left
# one) is copied to BUILDDIR/stress/run-I/ before the next run overwrites
# it; each run's `make check` output is BUILDDIR/stress/run-I/check.out.
# The runs use `make -jJOBS check` with JOBS from $STRESS_JOBS, else the
# number of CPUs (the README's `make -j2 check` on 2 CPUs).
set -eu
case ${1:-} in
''|*[!0-9]*|0) echo "usage: $0 N [BUILDDIR] (N >= 1 runs)" >&2; exit 2 ;;
esac
n=$1
build=$(cd "${2:-.}" && pwd)
test -f "$build/Makefile" || { echo "stress-tests: $build is not a configured build tree" >&2; exit 2; }
jobs=${STRESS_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$build/stress
rm -rf "$out"
mkdir -p "$out"

# The two CPU-bound processes, ended with this script however it ends.
burners=""
stop_burners() {
	for p in $burners; do
		kill "$p" 2>/dev/null || true
	done
}
trap stop_burners EXIT
trap 'exit 130' INT TERM
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	burners="$burners $!"
done

i=1
while [ "$i" -le "$n" ]; do
	run=$out/run-$i
	mkdir -p "$run"
	start=$(date +%s)
	status=passed
	make -C "$build" -j"$jobs" check >"$run/check.out" 2>&1 || status=failed
	echo "stress-tests: run $i of $n $status in $(($(date +%s) - start)) s" \
		"(load average $(cut -d' ' -f1-3 /proc/loadavg))"
	# The failing tests of this run, by their .trs files.
	find "$build/tests" -name '*.trs' -exec grep -l '^:test-result: \(FAIL\|ERROR\)' {} + \
		2>/dev/null | sort | while read -r trs; do
		t=${trs%.trs}
		name=${t#"$build"/}
		mkdir -p "$run/$(dirname "$name")"
		cp "$t.log" "$run/$name.log" || true
		if [ -d "$t.dir" ]; then
			cp -r "$t.dir" "$run/$name.dir" 2>/dev/null || true
		fi
		echo "$name $run/$name.log" >>"$out/failures"
	done
	if [ "$status" = failed ] && ! grep -q "run-$i/" "$out/failures" 2>/dev/null; then
		# make failed before or beside the tests (a build error).
		echo "(make check) $run/check.out" >>"$out/failures"
	fi
	i=$((i + 1))
done

if [ ! -s "$out/failures" ]; then
	echo "stress-tests: no test failed in $n runs"
	exit 0
fi
echo "stress-tests: tests that failed at least once (of $n runs), with their logs:"
cut -d' ' -f1 "$out/failures" | sort | uniq -c | while read -r count name; do
	echo "  $name: failed $count time(s)"
	grep "^$name " "$out/failures" | cut -d' ' -f2- | sed 's/^/    /'
done
exit 1
