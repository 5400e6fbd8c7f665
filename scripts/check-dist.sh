#!/bin/sh
# check-dist.sh TARBALL - `make dist` from an in-tree build ships exactly
# the files of TARBALL (made out of tree, by distcheck): no objects, test
# fixtures, binaries or test logs an in-tree build leaves beside the
# sources.  TARBALL is unpacked, configured and built in place (wraith, the
# demo service and the test fixtures: what a developer's tree holds), test
# logs are left where a test run leaves them, and the two lists of files
# are compared.  Cheaper than a second distcheck: nothing is tested twice.
set -eu
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
tar xzf "$tarball"
cd wraith-*/
./configure -q
if ! make -j"$jobs" wraith scripts/demo/kvservice tests/fixtures/bin/.stamp >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	exit 1
fi
touch tests/e2e/cli.log tests/e2e/cli.trs test-suite.log
rm -f wraith-*.tar.gz
make dist >/dev/null
tar tzf "$tarball" | sed 's|^[^/]*/||' | sort >"$tmp/distcheck"
tar tzf wraith-*.tar.gz | sed 's|^[^/]*/||' | sort >"$tmp/in-tree"
if ! diff -u "$tmp/distcheck" "$tmp/in-tree"; then
	echo "check-dist: an in-tree \`make dist\` ships other files than distcheck (+ lines)" >&2
	exit 1
fi
echo "check-dist: an in-tree \`make dist\` ships the same $(wc -l <"$tmp/in-tree") files"
