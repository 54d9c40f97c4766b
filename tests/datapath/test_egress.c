// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The TC egress program (bloomwall_tc) through BPF_PROG_TEST_RUN: the
 * destination of a leaving packet is judged against the same filter as
 * on ingress, IPv4, IPv6, behind VLAN tags, fragments too; the allowlist,
 * monitor and verify mode apply; its counters are its own, and who tried
 * counts the local sources.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include "datapath.h"
#include "kernel/lpm.h"
#include "test_helpers.h"

#define A4 "203.0.113.10" /* listed */
#define A6 "2001:db8:a::10"
#define L4 "192.0.2.7" /* a local source, never listed */
#define L6 "2001:db8:1::7"
#define M4 "192.0.2.8"	  /* another local source */
#define C4 "203.0.113.30" /* never listed */
#define C6 "2001:db8:a::30"

static const char *const list_a[] = { A4, A6, NULL };

static void expect_out(struct bw_dp *dp, const char *tag,
		       const struct bw_pkt_spec *s, enum bw_outcome want)
{
	__u8 buf[BW_PKT_MAX];
	char desc[160];

	snprintf(desc, sizeof(desc), "egress %s: %s -> %s", tag,
		 s->src ? s->src : "-", s->dst ? s->dst : "default");
	bw_dp_expect(dp, desc, buf, bw_pkt_build(s, buf), want);
}

static void expect_flow(struct bw_dp *dp, const char *tag, const char *src,
			const char *dst, enum bw_outcome want)
{
	struct bw_pkt_spec s = { .src = src, .dst = dst, .payload = 16 };

	expect_out(dp, tag, &s, want);
}

static bool open_egress(struct bw_dp *dp, __u16 flags, struct bw_filter_map *m)
{
	return bw_dp_open_egress(dp) &&
	       ASSERT_OK(bw_dp_commit_addrs(dp, list_a, flags, m), "commit a");
}

/*
 * The destination decides, whatever --match says for ingress; the source
 * is never looked at on the way out.
 */
BW_TEST(test_egress_destination)
{
	static const __u16 match[] = { BW_F_MATCH_SRC, BW_F_MATCH_DST,
				       BW_F_MATCH_SRC | BW_F_MATCH_DST };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	size_t i;

	for (i = 0; i < sizeof(match) / sizeof(match[0]); i++) {
		if (!open_egress(&dp, match[i], &m))
			goto out;
		expect_flow(&dp, "listed v4", L4, A4, BW_OUT_DROP_V4);
		expect_flow(&dp, "listed v6", L6, A6, BW_OUT_DROP_V6);
		expect_flow(&dp, "unlisted v4", L4, C4, BW_OUT_PASS);
		expect_flow(&dp, "unlisted v6", L6, C6, BW_OUT_PASS);
		expect_flow(&dp, "listed source", A4, C4, BW_OUT_PASS);
		expect_flow(&dp, "listed source v6", A6, C6, BW_OUT_PASS);
		bw_filter_close(&m);
		bw_dp_close(&dp);
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * A TC program loaded without a filter (its .rodata left zero, as no
 * bloomwall loads one) passes everything, counted as no filter.
 */
BW_TEST(test_egress_no_filter)
{
	struct bw_pkt_spec arp = { .ethertype = ETH_P_ARP };
	struct bw_dp dp = {};

	if (!bw_dp_open_egress(&dp))
		goto out;
	expect_flow(&dp, "no filter v4", L4, A4, BW_OUT_NO_FILTER);
	expect_flow(&dp, "no filter v6", L6, A6, BW_OUT_NO_FILTER);
	expect_out(&dp, "arp", &arp, BW_OUT_NOT_IP);
out:
	bw_dp_close(&dp);
}

/* VLAN tags as on ingress, fragments, and what is not IP or malformed. */
BW_TEST(test_egress_shapes)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_pkt_spec s;
	struct bw_dp dp = {};

	if (!open_egress(&dp, BW_F_MATCH_SRC, &m))
		goto out;
	s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .tpid = { 0x8100 } };
	expect_out(&dp, "802.1Q", &s, BW_OUT_DROP_V4);
	s = (struct bw_pkt_spec){ .src = L6,
				  .dst = A6,
				  .tpid = { 0x88a8, 0x8100 } };
	expect_out(&dp, "QinQ v6", &s, BW_OUT_DROP_V6);
	s = (struct bw_pkt_spec){ .src = L4,
				  .dst = A4,
				  .tpid = { 0x8100, 0x8100, 0x8100 } };
	expect_out(&dp, "three tags", &s, BW_OUT_NOT_IP);
	s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .frag = 0x2000 };
	expect_out(&dp, "first fragment", &s, BW_OUT_DROP_V4);
	s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .frag = 100 };
	expect_out(&dp, "later fragment", &s, BW_OUT_DROP_V4);
	s = (struct bw_pkt_spec){
		.src = L6, .dst = A6, .v6_frag = true, .v6_frag_off = 100 << 3
	};
	expect_out(&dp, "v6 fragment", &s, BW_OUT_DROP_V6);
	s = (struct bw_pkt_spec){ .src = L4, .dst = C4, .frag = 100 };
	expect_out(&dp, "unlisted fragment", &s, BW_OUT_PASS);
	s = (struct bw_pkt_spec){ .ethertype = ETH_P_ARP };
	expect_out(&dp, "arp", &s, BW_OUT_NOT_IP);
	s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .ihl = 4 };
	expect_out(&dp, "ihl 4", &s, BW_OUT_MALFORMED);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_egress_monitor)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};

	if (!open_egress(&dp, BW_F_MATCH_SRC | BW_F_MONITOR, &m))
		goto out;
	expect_flow(&dp, "monitor", L4, A4, BW_OUT_MONITOR);
	expect_flow(&dp, "monitor", L6, A6, BW_OUT_MONITOR);
	expect_flow(&dp, "monitor", L4, C4, BW_OUT_PASS);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* The allowlist the XDP program reads is the one the egress program reads. */
BW_TEST(test_egress_allowlist)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_prefix p = bw_addr(A4);
	struct bw_lpm_key k;
	struct bw_dp dp = {};
	__u8 one = 1;

	if (!open_egress(&dp, BW_F_MATCH_SRC | BW_F_ALLOW, &m))
		goto out;
	expect_flow(&dp, "allowlist empty", L4, A4, BW_OUT_DROP_V4);
	bw_lpm_key_of(&k, &p);
	if (!ASSERT_OK(bpf_map_update_elem(dp.maps.allow, &k, &one, BPF_ANY),
		       "allow A4"))
		goto out;
	expect_flow(&dp, "allowlisted", L4, A4, BW_OUT_ALLOWED);
	expect_flow(&dp, "not allowlisted v6", L6, A6, BW_OUT_DROP_V6);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Verify mode: a hit drops only when the exact trie in its slot agrees. */
BW_TEST(test_egress_verify)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_prefix p = bw_addr(A4);
	struct bw_lpm_key k;
	struct bw_dp dp = {};
	__u8 one = 1;
	int trie = -1;

	if (!open_egress(&dp, BW_F_MATCH_SRC | BW_F_VERIFY, &m))
		goto out;
	expect_flow(&dp, "no exact trie", L4, A4, BW_OUT_FALSE_POS);
	trie = bw_lpm_create("bw_exact", 16);
	bw_lpm_key_of(&k, &p);
	if (!ASSERT_GE(trie, 0, "trie") ||
	    !ASSERT_OK(bpf_map_update_elem(trie, &k, &one, BPF_ANY), "A4") ||
	    !ASSERT_OK(bw_exact_set(dp.maps.exact,
				    ((struct bw_hdr *)m.mem)->exact_slot, trie),
		       "exact slot"))
		goto out;
	expect_flow(&dp, "confirmed", L4, A4, BW_OUT_DROP_V4);
	expect_flow(&dp, "refused v6", L6, A6, BW_OUT_FALSE_POS);
out:
	if (trie >= 0)
		close(trie);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * Who tried: the local source of each stopped packet, counted. On one
 * CPU, so that what waits in its latest sources is known.
 */
BW_TEST(test_egress_who)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_who_row rows[4];
	cpu_set_t all, one;
	struct bw_dp dp = {};
	int n, i;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (!ASSERT_OK(sched_getaffinity(0, sizeof(all), &all), "affinity") ||
	    !ASSERT_OK(sched_setaffinity(0, sizeof(one), &one), "one CPU"))
		return;
	if (!open_egress(&dp, BW_F_MATCH_SRC, &m))
		goto out;
	for (i = 0; i < 3; i++)
		expect_flow(&dp, "who v4", L4, A4, BW_OUT_DROP_V4);
	expect_flow(&dp, "who v6", L6, A6, BW_OUT_DROP_V6);
	expect_flow(&dp, "passed: not who", C4, C4, BW_OUT_PASS);
	n = bw_who_top(dp.egress.who, dp.egress.stats, rows, 4);
	if (!ASSERT_EQ(n, 2, "two sources"))
		goto out;
	ASSERT_EQ(rows[0].key.family, BW_V4, "most first: the IPv4 source");
	ASSERT_EQ(rows[0].key.addr[1], bw_addr(L4).lo, "its address");
	ASSERT_EQ(rows[0].packets, 3, "its 3 packets");
	ASSERT_EQ(rows[1].key.family, BW_V6, "then the IPv6 one");
	ASSERT_EQ(rows[1].packets, 1, "its packet");
	ASSERT_EQ(rows[1].key.addr[0], bw_addr(L6).hi, "its address, high");
	ASSERT_EQ(rows[1].key.addr[1], bw_addr(L6).lo, "its address, low");
	/*
	 * Another IPv4 source takes the IPv4 place of the CPU's latest (the
	 * IPv6 one keeps its own): L4's count moves to egress_who. Back to
	 * L4: its earlier count is there, the new ones in the CPU's latest;
	 * the reader adds both.
	 */
	expect_flow(&dp, "another v4 source", M4, A4, BW_OUT_DROP_V4);
	for (i = 0; i < 2; i++)
		expect_flow(&dp, "who v4 again", L4, A4, BW_OUT_DROP_V4);
	n = bw_who_top(dp.egress.who, dp.egress.stats, rows, 4);
	if (!ASSERT_EQ(n, 3, "three sources"))
		goto out;
	ASSERT_EQ(rows[0].key.addr[1], bw_addr(L4).lo, "L4 first");
	ASSERT_EQ(rows[0].packets, 5, "the IPv4 source: 3 + 2 packets");
	ASSERT_EQ(rows[1].packets, 1, "then one packet each");
	ASSERT_EQ(rows[2].packets, 1, "then one packet each");
	/* The latest packets' counts are still in the CPUs' latest. */
	n = bw_who_top(dp.egress.who, -1, rows, 4);
	ASSERT_EQ(n, 2, "the LRU alone: L4's first 3 and M4's");
	ASSERT_EQ(rows[0].packets, 3, "the LRU alone lags the CPUs' latest");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
	sched_setaffinity(0, sizeof(all), &all);
}
