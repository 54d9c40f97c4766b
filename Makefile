# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# One entry point: deps, all, test, demo, bench, install, clean.
# Build outputs go to .output/; V=1 shows the full commands.

# Build dir; a second tree (make OUTPUT=.output-x) lets builds run side by side.
OUTPUT ?= .output
BIN := $(OUTPUT)/bloomwall
CLANG ?= clang
CC ?= gcc
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')

LIBS_PC := libbpf libxdp libelf zlib json-c
# Recursive (=) on purpose, like CLANG_BPF_SYS_INCLUDES and BPF_CFLAGS: on a
# fresh machine the tools appear only once the deps step below has run.
LIBS = $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null || echo -lxdp -lbpf -lelf -lz) -lm

# clang -target bpf does not search Debian's multiarch include dir, where
# asm/types.h lives; ask clang for the host's system dirs and pass them on
# (the same fix as libbpf-bootstrap's CLANG_BPF_SYS_INCLUDES).
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

WARNINGS := -Wall -Wextra -Wno-unused-parameter
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 $(WARNINGS) -Iinclude -Iuser -I$(OUTPUT) \
	  -DBW_VERSION_STRING='"$(VERSION)"' -D_GNU_SOURCE
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARNINGS) \
	      -Iinclude -Ibpf $(CLANG_BPF_SYS_INCLUDES)

USER_SRCS := $(wildcard user/*.c)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
# Everything but main(): linked into the test programs too.
LIB_OBJS := $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
DATAPATH_SRCS := $(wildcard tests/datapath/*.c)
TEST_HDRS := $(wildcard tests/*.h tests/unit/*.h tests/datapath/*.h)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps test unit datapath e2e demo bench fuzz install uninstall clean \
	format format-check

all: $(BIN) bloomwall

# ./bloomwall is a link to the binary of the default build dir.
bloomwall: $(BIN)
	$(Q)[ "$(OUTPUT)" != .output ] || ln -sf $(BIN) bloomwall

deps:
	$(Q)scripts/install-deps.sh

# Every build starts by making its dirs, so this is where a fresh machine gets
# its packages (scripts/install-deps.sh is quiet and quick when all is there).
$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tests: | deps
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

$(OUTPUT)/user/%.o: user/%.c $(wildcard user/*.h) $(wildcard include/*.h) \
		    $(OUTPUT)/bloomwall.skel.h | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/tests/test_unit: $(UNIT_SRCS) $(TEST_HDRS) $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $(UNIT_SRCS) $(LIB_OBJS) $(LIBS) -o $@

$(OUTPUT)/tests/test_datapath: $(DATAPATH_SRCS) $(TEST_HDRS) $(LIB_OBJS) \
			       $(OUTPUT)/bloomwall.skel.h | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $(DATAPATH_SRCS) $(LIB_OBJS) $(LIBS) -o $@

# make test: every suite runs, then one summary line; non-zero on any failure.
test: $(BIN) $(OUTPUT)/tests/test_unit $(OUTPUT)/tests/test_datapath
	$(Q)OUTPUT=$(OUTPUT) BLOOMWALL=$(abspath $(BIN)) tests/run.sh

unit: $(OUTPUT)/tests/test_unit
	$(Q)$(OUTPUT)/tests/test_unit

datapath: $(OUTPUT)/tests/test_datapath
	$(Q)$(OUTPUT)/tests/test_datapath

e2e: $(BIN)
	$(Q)BLOOMWALL=$(abspath $(BIN)) tests/e2e/run.sh

demo:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BLOOMWALL=$(abspath $(BIN)) scripts/demo.sh

-include tests/bench/bench.mk

# make fuzz: the list parser and prefix expansion under libFuzzer with ASan
# and UBSan, FUZZ_TIME seconds (not part of make test); a finding stops it.
FUZZ_TIME ?= 60
FUZZ_BIN := $(OUTPUT)/fuzz/fuzz_list
FUZZ_SRCS := tests/fuzz/fuzz_list.c user/list.c user/cidr.c user/log.c

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard user/*.h) $(wildcard include/*.h) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -Iinclude -Iuser \
		$(FUZZ_SRCS) $(LIBS) -o $@

fuzz: $(FUZZ_BIN)
	$(Q)mkdir -p $(OUTPUT)/fuzz/corpus
	$(Q)cp tests/fuzz/seeds/* $(OUTPUT)/fuzz/corpus/
	$(Q)$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=1024 \
		-artifact_prefix=$(OUTPUT)/fuzz/ $(OUTPUT)/fuzz/corpus

install: $(BIN)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/bloomwall
	if [ -f user/bloomwall.8 ]; then \
		install -d $(DESTDIR)$(MANDIR)/man8; \
		install -m 0644 user/bloomwall.8 $(DESTDIR)$(MANDIR)/man8/; \
	fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/bloomwall $(DESTDIR)$(MANDIR)/man8/bloomwall.8

# tests/*.h keep their hand-aligned macro and vector tables.
FORMAT_SRCS = include/*.h bpf/*.c bpf/*.h user/*.c user/*.h tests/unit/*.[ch] \
	      tests/datapath/*.[ch] tests/bench/*.[ch] tests/fuzz/*.c

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf $(OUTPUT) bloomwall
