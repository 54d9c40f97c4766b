# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The traffic generator of the swap-under-load test (tests/load/flood.c and
# its BPF programs), and the XDP_PASS program the DNS tests put on a veth
# peer (xdp_pass.bpf.c), built with the tests: make test runs a short load test
# (tests/e2e/load_tests.sh). make soak runs the long one: SOAK_RELOADS
# reloads while at least SOAK_FRAMES frames cross the veth pair.
# Included by the top Makefile.

LOAD_OUT := $(OUTPUT)/load
SOAK_RELOADS ?= 1000
SOAK_FRAMES ?= 10000000

$(LOAD_OUT): | check-tools
	$(Q)mkdir -p $@

$(LOAD_OUT)/flood.bpf.o: tests/load/flood.bpf.c tests/load/flood.h | $(LOAD_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(ALL_BPF_CFLAGS) -Itests/load -c $< -o $@

$(LOAD_OUT)/flood.skel.h: $(LOAD_OUT)/flood.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name flood_bpf > $@

$(LOAD_OUT)/flood: tests/load/flood.c tests/load/flood.h $(wildcard include/*.h) \
		   $(LOAD_OUT)/flood.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(LOAD_OUT) -Itests/load $(LDFLAGS) $< $(LIBS) -o $@

$(LOAD_OUT)/xdp_pass.bpf.o: tests/load/xdp_pass.bpf.c | $(LOAD_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(ALL_BPF_CFLAGS) -c $< -o $@

build-tests: $(LOAD_OUT)/flood $(LOAD_OUT)/xdp_pass.bpf.o

.PHONY: soak
soak: $(BIN) $(LOAD_OUT)/flood
	$(Q)V=1 LOAD_RELOADS=$(SOAK_RELOADS) LOAD_FRAMES=$(SOAK_FRAMES) \
		BLOOMWALL=$(abspath $(BIN)) tests/e2e/run.sh test_reload_under_load
