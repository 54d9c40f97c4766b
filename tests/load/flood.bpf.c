// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The two programs of the swap-under-load test (tests/load/flood.c):
 *
 * - tx: the sender, run by BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES
 *   on the sender's veth; every frame gets the next source address of the
 *   current set and that set's destination port, and goes out with XDP_TX
 *   (as tests/bench's veth sender does);
 * - count: tc ingress on the receiver's veth, so after bloomwall's XDP
 *   program: every frame it sees is one bloomwall passed; counted by set
 *   (from the destination port) and dropped there, so that millions of UDP
 *   frames do not go up the receiver's stack.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "flood.h"

/* Set by userspace before each round: one set a round. */
volatile __u32 set;
__u32 ctr;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FLOOD_SETS *FLOOD_SRCS);
	__type(key, __u32);
	__type(value, __u32); /* source address, network order */
} srcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FLOOD_SETS);
	__type(key, __u32);
	__type(value, __u64);
} passed SEC(".maps");

SEC("xdp")
int tx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct iphdr *iph = data + sizeof(struct ethhdr);
	struct udphdr *udp = (void *)(iph + 1);
	__u32 s = set, i;
	__u32 *addr;

	if ((void *)(udp + 1) > end || s >= FLOOD_SETS)
		return XDP_ABORTED;
	i = s * FLOOD_SRCS + (ctr++ & (FLOOD_SRCS - 1));
	addr = bpf_map_lookup_elem(&srcs, &i);
	if (!addr)
		return XDP_ABORTED;
	iph->saddr = *addr;
	udp->dest = bpf_htons(FLOOD_PORT + s);
	return XDP_TX;
}

SEC("tc")
int count(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp = (void *)(iph + 1);
	__u32 s;
	__u64 *n;

	/* Our frames: IPv4, no options, UDP to one of the sets' ports. */
	if ((void *)(udp + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    iph->ihl != 5 || iph->protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	s = bpf_ntohs(udp->dest) - FLOOD_PORT;
	if (s >= FLOOD_SETS)
		return TC_ACT_OK;
	n = bpf_map_lookup_elem(&passed, &s);
	if (n)
		*n += 1;
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
