#!/bin/sh
# demo.sh - build wraith and its demo service, start the service, and trace
# it live with scripts/demo/demo.ws until Ctrl-C.  Needs root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
mkdir -p build && cd build
[ -f Makefile ] || "$top/configure" -q
make -j"$(nproc 2>/dev/null || echo 2)" wraith scripts/demo/kvservice >/dev/null
./scripts/demo/kvservice &
demo=$!
trap 'kill "$demo" 2>/dev/null' EXIT INT TERM
sleep 0.2
echo "demo: tracing kvservice (pid $demo) with scripts/demo/demo.ws; Ctrl-C stops"
./wraith -p "$demo" --script-file "$top/scripts/demo/demo.ws" || true
