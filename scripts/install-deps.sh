#!/bin/sh
# install-deps.sh - install every Debian package wraith needs to build, test
# and benchmark.  Installs only what is missing; needs root (apt-get).
#   scripts/install-deps.sh          build and test dependencies
#   scripts/install-deps.sh --bench  also what `make bench` compares against
set -eu

# liblzma-dev, libbz2-dev: the archives of libdw's compression libraries, which
# configure links into wraith with the others (README).
# libc++-19-dev, libc++abi-19-dev: LLVM's C++ library, for the fixture built
# with clang-19 -stdlib=libc++ (its containers' layouts differ from libstdc++'s).
# libc6-dbg: libc's frames with their parameters and file:line, as gdb
# shows them; the tests hold without it too (batch.py checks).
# rustc, rust-gdb: Debian's Rust 1.63 builds the Rust fixtures and its
# rust-gdb is their oracle (configure looks for both in /usr/bin, not
# for a rustup toolchain first on PATH).
PACKAGES="gcc g++ make autoconf automake pkg-config binutils
llvm-19-dev clang-19 libclang-rt-19-dev libc++-19-dev libc++abi-19-dev libbpf-dev libdw-dev libelf-dev libdebuginfod-dev libiberty-dev
libcmocka-dev
libncurses-dev libreadline-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev
libprotobuf-c-dev protobuf-c-compiler
gdb rustc rust-gdb python3 python3-jsonschema python3-protobuf protobuf-compiler tmux bpftool valgrind util-linux procps libc6-dbg"
if [ "${1:-}" = "--bench" ]; then
	# python3.11-dbg: python3.11d, a big program with its own DWARF (start-up)
	PACKAGES="$PACKAGES bpftrace linux-perf gnuplot-nox python3.11-dbg"
fi

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (sudo $0) to install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
