# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make bench: per-packet cost of bloomwall against the other ways to hold a
# blocklist in BPF (BPF_PROG_TEST_RUN), build and swap times, and a veth
# drop-rate ratio. Included by the top Makefile; not part of `make test`.
# BENCH_QUICK=1: smaller sizes and fewer trials, for a fast check.
# BENCH_ARGS: extra options for the harness (see tests/bench/run.sh).
# BENCH_E2E=0: without the end-to-end DNS run (dnsperf.sh).
# BENCH_EGRESS=0: without bloomwall --egress against nftables (egress.sh).

BENCH_OUT := $(OUTPUT)/bench
BENCH_SRCS := $(filter-out %.bpf.c,$(wildcard tests/bench/*.c))
BENCH_HDRS := $(wildcard tests/bench/*.h)

$(BENCH_OUT): | check-tools
	$(Q)mkdir -p $@

# bench.bpf.c: the address rows; dnsbench.bpf.c: the DNS rows.
$(BENCH_OUT)/%.bpf.o: tests/bench/%.bpf.c $(wildcard bpf/*.h) \
		      $(wildcard include/*.h) | $(BENCH_OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(ALL_BPF_CFLAGS) -c $< -o $@

$(BENCH_OUT)/%.skel.h: $(BENCH_OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

$(BENCH_OUT)/bench: $(BENCH_SRCS) $(BENCH_HDRS) $(LIB_OBJS) \
		    $(BENCH_OUT)/bench.skel.h $(BENCH_OUT)/dnsbench.skel.h \
		    $(OUTPUT)/bloomwall.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BENCH_OUT) -Itests/bench \
		$(LDFLAGS) \
		$(BENCH_SRCS) $(LIB_OBJS) $(LIBS) -o $@

.PHONY: build-bench
build-bench: $(BENCH_OUT)/bench

bench: $(BENCH_OUT)/bench
	$(Q)BENCH_QUICK=$(BENCH_QUICK) tests/bench/run.sh $(BENCH_OUT)/bench \
		$(BENCH_OUT)/results.md $(BENCH_ARGS)

# make bench-crowdsec: the CrowdSec bouncer's times (tests/e2e/crowdsec_tests.sh
# test_cs_bench): cscli decisions add to the first dropped frame (median of
# 20), startup from 100,000 and 1,000,000 decisions. Needs root and crowdsec.
.PHONY: bench-crowdsec
bench-crowdsec: $(BIN)
	$(Q)V=1 BLOOMWALL=$(abspath $(BIN)) tests/e2e/run.sh test_cs_bench | grep -E 'BENCH|^\[|e2e:'
