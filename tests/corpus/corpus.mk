# corpus.mk - builds the value corpus (tests/corpus/gen.py writes its
# sources into GEN) seven ways, for tests/e2e/corpus.py.  A plain GNU
# makefile run by `make check` with GEN, OUT, CC and CLANG set:
#   gcc-O0 gcc-O2 clang-O0 clang-O2   DWARF 5
#   gcc-O2-dwarf4 clang-O2-dwarf4     DWARF 4
#   gcc-O2-lto                        -flto (program and library)
# Each build is OUT/corpus-BUILD with its own OUT/libcorpus-BUILD.so.
GEN ?= src
OUT ?= bin
CC ?= gcc
CLANG ?= clang-19

BUILDS := gcc-O0 gcc-O2 clang-O0 clang-O2 gcc-O2-dwarf4 clang-O2-dwarf4 gcc-O2-lto

cc_gcc-O0 := $(CC) -O0 -gdwarf-5
cc_gcc-O2 := $(CC) -O2 -gdwarf-5
cc_clang-O0 := $(CLANG) -O0 -gdwarf-5
cc_clang-O2 := $(CLANG) -O2 -gdwarf-5
cc_gcc-O2-dwarf4 := $(CC) -O2 -gdwarf-4
cc_clang-O2-dwarf4 := $(CLANG) -O2 -gdwarf-4
cc_gcc-O2-lto := $(CC) -O2 -gdwarf-5 -flto=auto

SOURCES := $(GEN)/corpus.c $(GEN)/part.c $(GEN)/corpus.h

all: $(foreach b,$(BUILDS),$(OUT)/corpus-$(b))

$(OUT):
	mkdir -p $@

define build_rule
$(OUT)/libcorpus-$(1).so: $(GEN)/libcorpus.c $(GEN)/corpus.h | $(OUT)
	$(cc_$(1)) -fPIC -shared -Wall -Wl,-soname,libcorpus-$(1).so -o $$@ $$<
$(OUT)/corpus-$(1): $(SOURCES) $(OUT)/libcorpus-$(1).so
	$(cc_$(1)) -Wall -o $$@ $(GEN)/corpus.c $(GEN)/part.c $(OUT)/libcorpus-$(1).so \
		-Wl,-rpath,$(abspath $(OUT))
endef
$(foreach b,$(BUILDS),$(eval $(call build_rule,$(b))))

.PHONY: all
