#!/bin/sh
# check-dist.sh TARBALL TREE - `make dist` from TREE, an in-tree build of
# TARBALL's sources (configured, built and tested in place: what a
# developer's tree holds), ships exactly the files of TARBALL: none of the
# objects, test fixtures, binaries, test logs or test directories an
# in-tree build leaves beside the sources.  scripts/test.sh runs it on its
# ASan+UBSan tree, so nothing is built for it alone.
set -eu
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tree=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$tree"/wraith-*.tar.gz
make -C "$tree" dist >/dev/null
mv "$tree"/wraith-*.tar.gz "$tmp/in-tree.tar.gz"
tar tzf "$tarball" | sed 's|^[^/]*/||' | sort >"$tmp/tarball"
tar tzf "$tmp/in-tree.tar.gz" | sed 's|^[^/]*/||' | sort >"$tmp/in-tree"
if ! diff -u "$tmp/tarball" "$tmp/in-tree"; then
	echo "check-dist: an in-tree \`make dist\` ships other files than $tarball (+ lines)" >&2
	exit 1
fi
echo "check-dist: an in-tree \`make dist\` ships the same $(wc -l <"$tmp/in-tree") files"
