// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP_PASS, nothing else: the program the e2e tests put on the peer of the
 * veth bloomwall answers DNS queries on. A veth takes XDP_TX frames from
 * its peer only while it runs NAPI, which a native XDP program turns on
 * (tests/e2e/resolver_tests.sh).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
