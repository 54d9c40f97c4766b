# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# One entry point: deps, all, test, demo, bench, install, clean.
# Build outputs go to .output/; V=1 shows the full commands.

# Build dir; a second tree (make OUTPUT=.output-x) lets builds run side by side.
OUTPUT ?= .output
BIN := $(OUTPUT)/bloomwall
CLANG ?= clang
# make's built-in default for CC is cc; gcc is what Debian's package is called.
ifeq ($(origin CC),default)
CC := gcc
endif
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
# The unit and the completion go where systemd and bash-completion look for
# a local install; a package sets /lib/systemd/system and /usr/share.
UNITDIR ?= /etc/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SYSCONFDIR ?= /etc
# The alert rules and the dashboard; the example files (the package puts
# them under /usr/share/doc/bloomwall/examples).
DATADIR ?= $(PREFIX)/share/bloomwall
EXAMPLESDIR ?= $(SYSCONFDIR)/bloomwall
# fail2ban's action.d: where fail2ban is installed, unless given (debian/rules).
FAIL2BANDIR ?= $(if $(wildcard $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d),$(SYSCONFDIR)/fail2ban/action.d)
DESTDIR ?=

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)
ARCH := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')

LIBS_PC := libbpf libxdp libelf zlib json-c libxxhash libsodium yaml-0.1 liblzma
# Recursive (=) on purpose, like CLANG_BPF_SYS_INCLUDES: on a fresh machine
# the tools appear only once make deps (or make test, make demo) has run.
LIBS = $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null || echo -lxdp -lbpf -lelf -lz -ljson-c -lxxhash -lsodium -lyaml -llzma) -lbz2 -lm
# libcurl, libmicrohttpd and libsystemd are not linked: the verbs that use
# them open them (user/net/dl_libs.c), so that their dependencies'
# relocations do not slow every start. By the soname of the library the headers are for,
# read from its .so (the code falls back to Debian's).
OBJDUMP ?= objdump
pc_soname = $(shell $(OBJDUMP) -p "$$($(PKG_CONFIG) --variable=libdir $(1))/$(1).so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
$(OUTPUT)/user/net/dl_libs.o: ALL_CFLAGS += \
	$(patsubst %,-DBW_CURL_SONAME='"%"',$(call pc_soname,libcurl)) \
	$(patsubst %,-DBW_MHD_SONAME='"%"',$(call pc_soname,libmicrohttpd)) \
	$(patsubst %,-DBW_SYSTEMD_SONAME='"%"',$(call pc_soname,libsystemd))

# clang -target bpf does not search Debian's multiarch include dir, where
# asm/types.h lives; ask clang for the host's system dirs and pass them on
# (the same fix as libbpf-bootstrap's CLANG_BPF_SYS_INCLUDES).
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

# CFLAGS, CPPFLAGS, BPF_CFLAGS and LDFLAGS are the caller's (make CFLAGS='-O0 -g'):
# they come last and replace only the defaults below. What the code needs to
# build (standard, warnings, include paths, defines) is in the ALL_ variables.
# WERROR=1 makes every warning of both compilers an error. Objects are not
# rebuilt when flags change: give other flags a build dir of their own
# (make OUTPUT=.output-werror WERROR=1, as .ci/run does).
WARNINGS := -Wall -Wextra -Wno-unused-parameter
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
INCLUDES := -Iinclude -Iuser -I$(OUTPUT)
DEFINES := -DBW_VERSION_STRING='"$(VERSION)"' -D_GNU_SOURCE
BPF_INCLUDES := -Iinclude -Ibpf

CFLAGS ?= -O2 -g
BPF_CFLAGS ?= -O2
LDFLAGS ?=
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(INCLUDES) $(DEFINES) $(CPPFLAGS) $(CFLAGS)
# -g makes the BTF (map value field names for bpftool, line info); the DWARF
# that comes with it is stripped from the embedded object below.
ALL_BPF_CFLAGS = -g -target bpf -D__TARGET_ARCH_$(ARCH) $(WARNINGS) \
		 $(BPF_INCLUDES) $(CLANG_BPF_SYS_INCLUDES) $(BPF_CFLAGS)

# user/ is in layers, from the bottom; a file includes only headers of its
# own folder and of the folders below it, and no two files depend on each
# other (make check-layers; doc/design.md "Layers"). The kernel-free layers build
# into one archive that the unit tests and the fuzz harnesses link alone.
LAYERS := base lists filter image net kernel ops out daemon cmd
CORE_LAYERS := base lists filter image net
UPPER_LAYERS := $(filter-out $(CORE_LAYERS),$(LAYERS))
CORE_SRCS := $(wildcard $(patsubst %,user/%/*.c,$(CORE_LAYERS)))
UPPER_SRCS := $(wildcard $(patsubst %,user/%/*.c,$(UPPER_LAYERS)))
USER_SRCS := $(CORE_SRCS) $(UPPER_SRCS)
CORE_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(CORE_SRCS))
UPPER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(UPPER_SRCS))
USER_OBJS := $(CORE_OBJS) $(UPPER_OBJS)
MAIN_OBJ := $(OUTPUT)/user/cmd/main.o
CORE_LIB := $(OUTPUT)/libbloomwall-core.a
UPPER_LIB := $(OUTPUT)/libbloomwall.a
# Everything but main(), the upper layers first (a static archive is
# searched once): what the test programs and the bench link.
LIB_OBJS := $(UPPER_LIB) $(CORE_LIB)
# Only the files that include the skeleton depend on it.
SKEL_USERS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,\
	$(shell grep -l 'bloomwall\.skel\.h' $(USER_SRCS) 2>/dev/null))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UPPER_TEST_SRCS := $(wildcard tests/upper/*.c)
DATAPATH_SRCS := $(wildcard tests/datapath/*.c)
TEST_HDRS := $(wildcard tests/*.h tests/unit/*.h tests/upper/*.h tests/datapath/*.h)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps check-tools check-layers test build-tests unit datapath e2e crash-sweep fleet demo bench \
	fuzz build-fuzz install uninstall deb clean format format-check

all: $(BIN) bloomwall

# ./bloomwall is a link to the binary of the default build dir.
bloomwall: $(BIN)
	$(Q)[ "$(OUTPUT)" != .output ] || ln -sf $(BIN) bloomwall

# Installs the Debian packages (apt-get) that building, the tests, the demo,
# the benchmark and CI need.
deps:
	$(Q)scripts/install-deps.sh

# What a build runs, as COMMAND:DEBIAN-PACKAGE (and pkg-config modules). A
# plain make only checks them and names what is missing; the goals that run
# something (test and its suites, demo, bench, fuzz, deb) install the packages
# first, so the README's make demo and make test work on a fresh machine.
BUILD_TOOLS = $(firstword $(CLANG)):clang $(firstword $(CC)):gcc \
	      $(firstword $(BPFTOOL)):bpftool $(firstword $(PKG_CONFIG)):pkg-config
BUILD_LIBS := libbpf:libbpf-dev libxdp:libxdp-dev libelf:libelf-dev zlib:zlib1g-dev \
	json-c:libjson-c-dev libxxhash:libxxhash-dev libcurl:libcurl4-openssl-dev \
	libsodium:libsodium-dev libsystemd:libsystemd-dev yaml-0.1:libyaml-dev
BUILD_LIBS += libmicrohttpd:libmicrohttpd-dev liblzma:liblzma-dev

ifneq ($(filter deps test unit datapath e2e crash-sweep fleet demo bench soak fuzz fuzz-% deb,$(MAKECMDGOALS)),)
check-tools: deps
endif

check-tools:
	$(Q)missing=0; \
	for t in $(BUILD_TOOLS); do \
		command -v "$${t%:*}" >/dev/null 2>&1 && continue; \
		echo "$${t%:*} not found: run 'make deps' (Debian package $${t##*:})" >&2; \
		missing=1; \
	done; \
	if command -v "$(firstword $(PKG_CONFIG))" >/dev/null 2>&1; then \
		for l in $(BUILD_LIBS); do \
			$(PKG_CONFIG) --exists "$${l%:*}" && continue; \
			echo "$${l%:*} not found: run 'make deps' (Debian package $${l##*:})" >&2; \
			missing=1; \
		done; \
	fi; \
	[ "$$missing" = 0 ]

# Every build starts by making its dirs, so this is where the tools are checked.
$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tests $(OUTPUT)/fuzz: | check-tools
	$(Q)mkdir -p $@

# The object as clang writes it, with DWARF (llvm-objdump -S reads it) ...
$(OUTPUT)/%.tmp.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(ALL_BPF_CFLAGS) -c $< -o $@

# ... and the one the skeleton embeds: bpftool's linker keeps .BTF and .BTF.ext
# (bpftool map dump names the fields, the verifier log has source lines) and
# drops the .debug_* sections, which only made the binary bigger.
$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

# -MMD -MP: the compiler writes what each object includes, so a change to
# a header rebuilds only the objects that include it.
$(OUTPUT)/user/%.o: user/%.c | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(SKEL_USERS): $(OUTPUT)/bloomwall.skel.h

-include $(USER_OBJS:.o=.d)

$(CORE_LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(UPPER_LIB): $(filter-out $(MAIN_OBJ),$(UPPER_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ $(LIBS) -o $@

# The unit tests link the kernel-free layers alone: a call from them into
# kernel/ or above does not link.
$(OUTPUT)/tests/test_unit: $(UNIT_SRCS) $(TEST_HDRS) $(CORE_LIB) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) $(UNIT_SRCS) $(CORE_LIB) $(LIBS) -o $@

$(OUTPUT)/tests/test_upper: $(UPPER_TEST_SRCS) $(TEST_HDRS) $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) $(UPPER_TEST_SRCS) $(LIB_OBJS) $(LIBS) -o $@

$(OUTPUT)/tests/test_datapath: $(DATAPATH_SRCS) $(TEST_HDRS) $(LIB_OBJS) \
			       $(OUTPUT)/bloomwall.skel.h | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) $(DATAPATH_SRCS) $(LIB_OBJS) $(LIBS) -o $@

# The layers (LAYERS above) kept: includes and calls go down or stay in
# their folder, no cycle between files, each file's symbols declared in
# its own header (scripts/check-layers.py says how), and the kernel-free
# archive links alone, with nothing above it.
check-layers: $(USER_OBJS) $(OUTPUT)/core-links-alone
	$(Q)scripts/check-layers.py "$(LAYERS)" $(OUTPUT)/user

# Every member of the kernel-free archive linked with only the libraries: a
# call from base/, lists/, filter/ or image/ into kernel/ or above is an
# undefined reference here.
$(OUTPUT)/core-links-alone: $(CORE_LIB)
	$(call msg,LINK,$@)
	$(Q)printf 'int main(void) { return 0; }\n' | $(CC) -x c - -x none -o $@ \
		-Wl,--whole-archive $(CORE_LIB) -Wl,--no-whole-archive $(LIBS)

# Every program make test runs, built but not run (CI's -Werror build).
build-tests: $(BIN) $(OUTPUT)/tests/test_unit $(OUTPUT)/tests/test_upper \
	     $(OUTPUT)/tests/test_datapath

# make test: the layers checked, every suite run (side by side, e2e in
# E2E_JOBS workers: tests/run.sh), then one summary line; non-zero on any
# failure. Its budget is 15 minutes on 2 cores.
test: build-tests check-layers
	$(Q)OUTPUT=$(OUTPUT) BLOOMWALL=$(abspath $(BIN)) tests/run.sh

unit: $(OUTPUT)/tests/test_unit $(OUTPUT)/tests/test_upper
	$(Q)$(OUTPUT)/tests/test_unit && $(OUTPUT)/tests/test_upper

datapath: $(OUTPUT)/tests/test_datapath
	$(Q)$(OUTPUT)/tests/test_datapath

e2e: $(BIN)
	$(Q)BLOOMWALL=$(abspath $(BIN)) tests/e2e/run.sh

# Every mutating verb, the watch's rebuild, its live entries' takeover
# and expiry, its CrowdSec decisions' add, delete and end in place, and a
# remove handed to a watch, killed before each of their system calls (make
# test runs a sample of the points; this runs them all, the sweeps side by
# side in E2E_JOBS workers: about three hours one by one).
crash-sweep: $(BIN)
	$(Q)BW_CRASH_FULL=1 V=1 BLOOMWALL=$(abspath $(BIN)) \
		tests/e2e/run.sh test_crash_sweep test_crash_sweep_adds test_crash_sweep_allow \
		test_crash_sweep_load test_crash_sweep_watch test_crash_sweep_watch_odd \
		test_crash_sweep_live test_crash_sweep_owner \
		test_crash_sweep_cs test_crash_sweep_remove_live \
		test_crash_sweep_remove_live_names test_crash_sweep_add_live \
		test_crash_sweep_remove_bulk

# A fleet of 20 hosts pulling from nginx (make test runs 5): the spread of
# the new image's arrival is printed (tests/e2e/fleet_tests.sh).
fleet: $(BIN)
	$(Q)FLEET_HOSTS=$${FLEET_HOSTS:-20} FLEET_INTERVAL=$${FLEET_INTERVAL:-2} V=1 \
		BLOOMWALL=$(abspath $(BIN)) tests/e2e/run.sh test_fleet_pull test_fleet_signed

demo: all
	$(Q)BLOOMWALL=$(abspath $(BIN)) scripts/demo.sh

-include tests/bench/bench.mk
-include tests/load/load.mk

# make fuzz: every harness tests/fuzz/fuzz_NAME.c under libFuzzer with ASan
# and UBSan, FUZZ_TIME seconds each, one after the other (not part of make
# test). make fuzz-NAME runs one. A harness links the kernel-free layers
# alone (their archive, built with the sanitizers) and starts from the seeds
# in fuzz_NAME_SEEDS (default tests/fuzz/seeds/fuzz_NAME/).
FUZZ_TIME ?= 60
FUZZ_CFLAGS ?= -g -O1
FUZZ_ARGS ?= -max_len=1024
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_CORE_OBJS := $(patsubst user/%.c,$(OUTPUT)/fuzz/user/%.o,$(CORE_SRCS))
FUZZ_CORE_LIB := $(OUTPUT)/fuzz/libbloomwall-core.a
FUZZ_SAN := -fsanitize=address,undefined

fuzz_list_SEEDS := tests/fuzz/seeds
fuzz_names_SEEDS := tests/fuzz/seeds
fuzz_image_SEEDS := tests/fuzz/seeds_image
fuzz_name_filter_SEEDS := tests/fuzz/seeds
fuzz_formats_SEEDS := tests/fuzz/seeds_formats
fuzz_records_SEEDS := tests/fuzz/seeds_records
fuzz_cs_stream_SEEDS := tests/fuzz/seeds_cs_stream
fuzz_ask_SEEDS := tests/fuzz/seeds_ask
fuzz_config_SEEDS := tests/fuzz/seeds_config
fuzz_dropjson_SEEDS := tests/fuzz/seeds_dropjson

$(OUTPUT)/fuzz/user/%.o: user/%.c | $(OUTPUT)/fuzz
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -std=gnu11 $(WARNINGS) $(INCLUDES) $(DEFINES) \
		-fsanitize=fuzzer-no-link $(FUZZ_SAN) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

-include $(FUZZ_CORE_OBJS:.o=.d)

$(FUZZ_CORE_LIB): $(FUZZ_CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# $(1): harness name. Variables are expanded when the rule is read (the
# seed dirs above come first).
define fuzz_rules
$(1)_SEEDS ?= tests/fuzz/seeds/$(1)

$(OUTPUT)/fuzz/$(1): tests/fuzz/$(1).c $(FUZZ_CORE_LIB) | $(OUTPUT)/fuzz
	$$(call msg,FUZZ,$$@)
	$(Q)$(CLANG) -std=gnu11 $(WARNINGS) $(INCLUDES) $(DEFINES) \
		-fsanitize=fuzzer $(FUZZ_SAN) $(FUZZ_CFLAGS) -MMD -MP \
		$$< $(FUZZ_CORE_LIB) $$(LIBS) -o $$@

-include $(OUTPUT)/fuzz/$(1).d

fuzz-$(1): $(OUTPUT)/fuzz/$(1)
	$(Q)mkdir -p $(OUTPUT)/fuzz/$(1).corpus
	$(Q)if [ -d "$$($(1)_SEEDS)" ]; then cp "$$($(1)_SEEDS)"/* $(OUTPUT)/fuzz/$(1).corpus/; fi
	$(Q)$$< -max_total_time=$(FUZZ_TIME) $(FUZZ_ARGS) \
		-artifact_prefix=$(OUTPUT)/fuzz/$(1)- $(OUTPUT)/fuzz/$(1).corpus

.PHONY: fuzz-$(1)
endef
$(foreach h,$(FUZZ_NAMES),$(eval $(call fuzz_rules,$(h))))

# Built side by side, run one after the other (each gets the cores for its
# FUZZ_TIME); every harness runs, then the ones with a finding are named.
build-fuzz: $(addprefix $(OUTPUT)/fuzz/,$(FUZZ_NAMES))

fuzz: build-fuzz
	$(Q)failed=; \
	for h in $(FUZZ_NAMES); do \
		echo "=== $$h ($(FUZZ_TIME) s)"; \
		$(MAKE) --no-print-directory fuzz-$$h || failed="$$failed $$h"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings in:$$failed" >&2; exit 1; fi

# The files a package holds (debian/rules sets the Debian paths). Those
# whose source may be missing (the section-5 page, the rules, the
# dashboard, the YAML example) are installed when there; an existing
# bloomwall.yaml is never overwritten.
UNITS := bloomwall@.service bloomwall-crowdsec@.service
install: $(BIN)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/bloomwall
	for m in user/bloomwall.8 user/bloomwall.yaml.5; do \
		[ -f $$m ] || continue; \
		install -d $(DESTDIR)$(MANDIR)/man$${m##*.}; \
		install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/; \
	done
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(SYSCONFDIR)/bloomwall $(DESTDIR)$(EXAMPLESDIR)
	for u in $(UNITS); do \
		sed 's|/usr/sbin/bloomwall|$(SBINDIR)/bloomwall|g' scripts/$$u >$(DESTDIR)$(UNITDIR)/$$u; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u; \
	done
	install -m 0644 scripts/bloomwall.bash-completion $(DESTDIR)$(BASHCOMPDIR)/bloomwall
	install -m 0644 scripts/bloomwall.zsh-completion $(DESTDIR)$(ZSHCOMPDIR)/_bloomwall
	install -m 0644 scripts/bloomwall.fish-completion $(DESTDIR)$(FISHCOMPDIR)/bloomwall.fish
	install -m 0644 scripts/bloomwall.conf.example $(DESTDIR)$(EXAMPLESDIR)/bloomwall.conf.example
	if [ -f scripts/bloomwall.yaml.example ]; then \
		install -m 0644 scripts/bloomwall.yaml.example $(DESTDIR)$(EXAMPLESDIR)/; \
		[ -e $(DESTDIR)$(SYSCONFDIR)/bloomwall/bloomwall.yaml ] || \
			install -m 0644 scripts/bloomwall.yaml.example \
				$(DESTDIR)$(SYSCONFDIR)/bloomwall/bloomwall.yaml; \
	fi
	for f in scripts/prometheus/bloomwall.rules.yml scripts/grafana/bloomwall.json; do \
		[ -f $$f ] || continue; \
		install -d $(DESTDIR)$(DATADIR); \
		install -m 0644 $$f $(DESTDIR)$(DATADIR)/; \
	done
	# The fail2ban action (doc/why-and-expiry.md "fail2ban").
	if [ -n "$(FAIL2BANDIR)" ]; then \
		install -d $(DESTDIR)$(FAIL2BANDIR); \
		sed 's|^bloomwall = bloomwall$$|bloomwall = $(SBINDIR)/bloomwall|' \
			scripts/fail2ban/action.d/bloomwall.conf \
			>$(DESTDIR)$(FAIL2BANDIR)/bloomwall.conf; \
		chmod 0644 $(DESTDIR)$(FAIL2BANDIR)/bloomwall.conf; \
	fi

# bloomwall.yaml stays: it may be the operator's.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/bloomwall $(DESTDIR)$(MANDIR)/man8/bloomwall.8
	rm -f $(DESTDIR)$(MANDIR)/man5/bloomwall.yaml.5
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(BASHCOMPDIR)/bloomwall
	rm -f $(DESTDIR)$(ZSHCOMPDIR)/_bloomwall $(DESTDIR)$(FISHCOMPDIR)/bloomwall.fish
	rm -f $(DESTDIR)$(EXAMPLESDIR)/bloomwall.conf.example $(DESTDIR)$(EXAMPLESDIR)/bloomwall.yaml.example
	rm -f $(DESTDIR)$(DATADIR)/bloomwall.rules.yml $(DESTDIR)$(DATADIR)/bloomwall.json
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
	[ -z "$(FAIL2BANDIR)" ] || rm -f $(DESTDIR)$(FAIL2BANDIR)/bloomwall.conf
	-rmdir $(DESTDIR)$(SYSCONFDIR)/bloomwall 2>/dev/null

# make deb: the Debian package (debian/, debhelper), built by
# dpkg-buildpackage in a copy of the tree under $(OUTPUT)/deb so that
# nothing lands beside the tree or in debian/; bloomwall_*.deb (and its
# .buildinfo and .changes) end up in $(OUTPUT). debian/changelog's version
# must be VERSION's.
DEB_SRC := $(OUTPUT)/deb/bloomwall-$(VERSION)
deb: | $(OUTPUT)
	$(Q)v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(VERSION)" ] || \
		{ echo "make deb: debian/changelog says $$v, VERSION $(VERSION)" >&2; exit 1; }
	$(Q)rm -rf $(OUTPUT)/deb && mkdir -p $(DEB_SRC)
	$(Q)tar -c --exclude='./.output*' --exclude=./.git --exclude=./bloomwall . | tar -x -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc $(if $(filter 1,$(V)),,>../build.log 2>&1) || \
		{ tail -n 30 ../build.log 2>/dev/null; exit 1; }
	$(Q)rm -f $(OUTPUT)/bloomwall_*.deb $(OUTPUT)/bloomwall-dbgsym_*.deb $(OUTPUT)/bloomwall_*.buildinfo $(OUTPUT)/bloomwall_*.changes
	$(Q)mv $(OUTPUT)/deb/bloomwall_* $(OUTPUT)/deb/bloomwall-dbgsym_* $(OUTPUT)/ 2>/dev/null; ls $(OUTPUT)/bloomwall_*.deb

# tests/*.h keep their hand-aligned macro and vector tables.
FORMAT_SRCS = include/*.h bpf/*.c bpf/*.h user/*/*.c user/*/*.h tests/unit/*.[ch] tests/upper/*.c \
	      tests/datapath/*.[ch] tests/bench/*.[ch] tests/load/*.[ch] \
	      tests/fuzz/*.c

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf $(OUTPUT) bloomwall
