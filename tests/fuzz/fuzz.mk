# fuzz.mk - libFuzzer harnesses for what reads untrusted bytes: the script
# front end (lexer, parser, checks), the CFI program reader, the DWARF
# location-expression evaluator and the wire decoder.  A plain GNU
# makefile, run by `make fuzz` in the build directory with SRC (absolute
# source directory), BUILD (absolute build directory) and WR_CPPFLAGS set
# (see the end of Makefile.am).
#
# The code under test is compiled again here with clang-19 and
# -fsanitize=fuzzer-no-link,address,undefined (coverage needs the code
# itself instrumented, not only the harness), into one archive each
# harness links.
#
#   all   build $(BUILD)/tests/fuzz/fuzz_{script,cfi,loc,wire}
#   run   build, then run each for FUZZ_SECONDS (default 600) from the
#         seeds in $(SRC)/tests/fuzz/corpus/NAME; new inputs go to
#         $(BUILD)/tests/fuzz/corpus/NAME, a finding to
#         $(BUILD)/tests/fuzz/NAME-crash-* (and the run fails)
SRC ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
BUILD ?= $(CURDIR)
FUZZ_CC ?= clang-19
FUZZ_SECONDS ?= 600
OUT := $(BUILD)/tests/fuzz
OBJ := $(OUT)/obj

SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer $(SAN) -Wno-unused-command-line-argument
LIBS := $(shell pkg-config --libs libdw libelf zlib libdebuginfod 2>/dev/null || \
	echo -ldw -lelf -lz -ldebuginfod) -liberty

# The layers that parse bytes a user or the kernel hands over; none of
# them needs LLVM or libbpf.
LIB_SOURCES := $(wildcard $(SRC)/src/util/*.c $(SRC)/src/script/*.c $(SRC)/src/protocol/*.c \
	$(SRC)/src/dwarf/*.c) $(SRC)/src/unwind/cfi.c $(SRC)/src/unwind/cfi_program.c
LIB_OBJECTS := $(patsubst $(SRC)/src/%.c,$(OBJ)/%.o,$(LIB_SOURCES))
NAMES := script cfi loc wire
FUZZERS := $(addprefix $(OUT)/fuzz_,$(NAMES))

all: $(FUZZERS)

$(OBJ)/%.o: $(SRC)/src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) -fsanitize=fuzzer-no-link $(WR_CPPFLAGS) -c -o $@ $<

$(OUT)/libfuzzwraith.a: $(LIB_OBJECTS)
	rm -f $@
	ar cr $@ $^

$(OUT)/fuzz_%: $(SRC)/tests/fuzz/fuzz_%.c $(OUT)/libfuzzwraith.a
	$(FUZZ_CC) $(CFLAGS) -fsanitize=fuzzer $(WR_CPPFLAGS) -o $@ $< $(OUT)/libfuzzwraith.a $(LIBS)

# One run per harness, in order; each prints how long it ran and how many
# inputs it tried ("Done N runs in S second(s)").
run: all
	@for n in $(NAMES); do \
		mkdir -p $(OUT)/corpus/$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		$(OUT)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -print_final_stats=1 -artifact_prefix=$(OUT)/$$n- \
			$(OUT)/corpus/$$n $(SRC)/tests/fuzz/corpus/$$n 2>$(OUT)/$$n.log || \
			{ tail -60 $(OUT)/$$n.log; echo "fuzz: $$n found a defect: $(OUT)/$$n-*"; exit 1; }; \
		grep -E "^Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb" $(OUT)/$$n.log; \
	done

clean:
	rm -rf $(OUT)

.PHONY: all run clean
