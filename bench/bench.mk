# bench.mk - builds the benchmark programs against a wraith build and runs
# the suite.  A plain GNU makefile, run by `make bench` in the build
# directory with SRC (absolute source directory), BUILD (absolute build
# directory), CC, WR_CPPFLAGS and WR_LIBS set (see the end of Makefile.am).
#
#   all   build $(BUILD)/bench/{hotloop,microbench,values-cc,values-rs} and the generated big
#         program $(BUILD)/bench/genbig/big (bench/genbig.py, -O3 -flto: takes
#         minutes on two CPUs, once)
#   run   build, then run bench/run.sh: one table on stdout, and
#         $(SRC)/doc/performance.md with $(SRC)/doc/performance.png
#   helpers  build the hot loop, then run bench/helpers.py: what each helper
#         call, map lookup, user read and event output costs inside BPF on
#         this host, as a table on stdout (no files written but its builds)
#
# BENCH_ARGS passes options to the driver (e.g. BENCH_ARGS='--reps 7' or
# '--only perhit,startup'); see `bench/run.sh --help`.
SRC ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BUILD ?= $(CURDIR)
CC ?= gcc
OUT := $(BUILD)/bench
BENCH_ARGS ?=

# The fixture stands in for a user program: never wraith's own flags.
FIXTURE_CFLAGS := -g -O2 -fomit-frame-pointer -Wall -Wextra
TOOL_CFLAGS := -std=gnu11 -g -O2 -Wall -Wextra

CHAIN_LIBS := $(OUT)/libwrchain1.so $(OUT)/libwrchain2.so $(OUT)/libwrchain3.so
CXX ?= g++
RUSTC ?= /usr/bin/rustc
PROGS := $(OUT)/hotloop $(OUT)/microbench $(OUT)/genbig/big $(CHAIN_LIBS) $(OUT)/values-cc $(OUT)/values-rs

all: $(PROGS)

$(OUT):
	mkdir -p $@

$(OUT)/hotloop: $(SRC)/bench/hotloop.c | $(OUT)
	$(CC) $(FIXTURE_CFLAGS) -o $@ $< -ldl

# The call chain through three libraries (chainlib.c): each library
# links the next, so its calls go through the PLT as between real ones.
$(OUT)/libwrchain3.so: $(SRC)/bench/chainlib.c | $(OUT)
	$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -DWR_CHAIN_LIB=3 -o $@ $<

$(OUT)/libwrchain2.so: $(SRC)/bench/chainlib.c $(OUT)/libwrchain3.so
	$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -DWR_CHAIN_LIB=2 -DWR_CHAIN_NEXT=3 -o $@ $< \
		-L$(OUT) -lwrchain3 -Wl,-rpath,$(OUT)

$(OUT)/libwrchain1.so: $(SRC)/bench/chainlib.c $(OUT)/libwrchain2.so
	$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -DWR_CHAIN_LIB=1 -DWR_CHAIN_NEXT=2 -o $@ $< \
		-L$(OUT) -lwrchain2 -Wl,-rpath,$(OUT)

# The containers bench/values.py prints (C++ and Rust, as users build them).
$(OUT)/values-cc: $(SRC)/bench/values.cc | $(OUT)
	$(CXX) -g -O2 -Wall -o $@ $<

$(OUT)/values-rs: $(SRC)/bench/values.rs | $(OUT)
	$(RUSTC) -g -C opt-level=2 -o $@ $<

$(OUT)/microbench: $(SRC)/bench/microbench.c $(BUILD)/src/libwraith.a | $(OUT)
	$(CC) $(TOOL_CFLAGS) $(WR_CPPFLAGS) -o $@ $< $(WR_LIBS)

# Built like a large server's release build with debug info; the sources
# are generated next to it so its line tables name them.
$(OUT)/genbig/big: $(SRC)/bench/genbig.py | $(OUT)
	rm -rf $(OUT)/genbig
	python3 $< $(OUT)/genbig
	cd $(OUT)/genbig && $(CC) -g -O3 -flto=auto -w -o big.tmp *.c && mv big.tmp big

run: all
	$(SRC)/bench/run.sh --src $(SRC) --build $(BUILD) $(BENCH_ARGS)

helpers: $(OUT)/hotloop
	python3 $(SRC)/bench/helpers.py --build $(BUILD)

clean:
	rm -rf $(OUT)

.PHONY: all run helpers clean
