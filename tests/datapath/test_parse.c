// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Parsing through the real program: every header layout it must read,
 * everything it must refuse, and truncation at every length. Each case
 * asserts the XDP action and the exact counter deltas.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/if_ether.h>

#include "datapath.h"
#include "test_helpers.h"

#define LISTED4 "198.51.100.7"
#define UNLISTED4 "198.51.100.8"
#define LISTED6 "2001:db8:bad::7"
#define UNLISTED6 "2001:db8:bad::8"

#define Q ETH_P_8021Q
#define AD ETH_P_8021AD
#define MF 0x2000 /* IPv4 more-fragments flag in frag_off */
#define DF 0x4000

static const char *const listed[] = { LISTED4, LISTED6, NULL };

struct parse_case {
	const char *desc;
	struct bw_pkt_spec pkt;
	enum bw_outcome want;
};

/* Frame offsets in 8-byte units: 185 * 8 = 1480, a full Ethernet MTU. */
static const struct parse_case cases[] = {
	{ "ipv4 listed", { .src = LISTED4 }, BW_OUT_DROP_V4 },
	{ "ipv4 unlisted", { .src = UNLISTED4 }, BW_OUT_PASS },
	{ "ipv4 listed, DF set",
	  { .src = LISTED4, .frag = DF },
	  BW_OUT_DROP_V4 },
	{ "ipv4 listed, ihl 15, no payload",
	  { .src = LISTED4, .ihl = 15 },
	  BW_OUT_DROP_V4 },
	{ "ipv6 listed", { .src = LISTED6 }, BW_OUT_DROP_V6 },
	{ "ipv6 unlisted", { .src = UNLISTED6 }, BW_OUT_PASS },
	{ "ipv6 listed, 200 bytes payload",
	  { .src = LISTED6, .payload = 200 },
	  BW_OUT_DROP_V6 },
	/* VLAN: both TPIDs, alone and stacked in every order. */
	{ "802.1Q ipv4 listed",
	  { .src = LISTED4, .tpid = { Q } },
	  BW_OUT_DROP_V4 },
	{ "802.1ad ipv4 listed",
	  { .src = LISTED4, .tpid = { AD } },
	  BW_OUT_DROP_V4 },
	{ "802.1Q ipv4 unlisted",
	  { .src = UNLISTED4, .tpid = { Q } },
	  BW_OUT_PASS },
	{ "802.1Q ipv6 listed",
	  { .src = LISTED6, .tpid = { Q } },
	  BW_OUT_DROP_V6 },
	{ "QinQ 802.1ad+802.1Q ipv4 listed",
	  { .src = LISTED4, .tpid = { AD, Q } },
	  BW_OUT_DROP_V4 },
	{ "QinQ 802.1ad+802.1Q ipv6 listed",
	  { .src = LISTED6, .tpid = { AD, Q } },
	  BW_OUT_DROP_V6 },
	{ "QinQ 802.1ad+802.1Q ipv6 unlisted",
	  { .src = UNLISTED6, .tpid = { AD, Q } },
	  BW_OUT_PASS },
	{ "double 802.1Q ipv4 listed",
	  { .src = LISTED4, .tpid = { Q, Q } },
	  BW_OUT_DROP_V4 },
	{ "double 802.1ad ipv6 listed",
	  { .src = LISTED6, .tpid = { AD, AD } },
	  BW_OUT_DROP_V6 },
	{ "802.1Q+802.1ad ipv4 listed",
	  { .src = LISTED4, .tpid = { Q, AD } },
	  BW_OUT_DROP_V4 },
	/* Beyond the parse depth: not judged, so never dropped. */
	{ "three tags ipv4 listed",
	  { .src = LISTED4, .tpid = { AD, Q, Q } },
	  BW_OUT_NOT_IP },
	/* Every IPv4 fragment carries the source: judged like any packet. */
	{ "ipv4 first fragment listed",
	  { .src = LISTED4, .frag = MF },
	  BW_OUT_DROP_V4 },
	{ "ipv4 middle fragment listed",
	  { .src = LISTED4, .frag = MF | 185 },
	  BW_OUT_DROP_V4 },
	{ "ipv4 last fragment listed",
	  { .src = LISTED4, .frag = 370 },
	  BW_OUT_DROP_V4 },
	{ "ipv4 middle fragment unlisted",
	  { .src = UNLISTED4, .frag = MF | 185 },
	  BW_OUT_PASS },
	{ "ipv4 last fragment with options listed",
	  { .src = LISTED4, .frag = 370, .ihl = 7 },
	  BW_OUT_DROP_V4 },
	{ "ipv6 first fragment listed",
	  { .src = LISTED6, .v6_frag = true, .v6_frag_off = 1 },
	  BW_OUT_DROP_V6 },
	{ "ipv6 middle fragment listed",
	  { .src = LISTED6, .v6_frag = true, .v6_frag_off = 181 << 3 | 1 },
	  BW_OUT_DROP_V6 },
	{ "ipv6 last fragment listed",
	  { .src = LISTED6, .v6_frag = true, .v6_frag_off = 362 << 3 },
	  BW_OUT_DROP_V6 },
	{ "ipv6 fragment unlisted",
	  { .src = UNLISTED6, .v6_frag = true, .v6_frag_off = 181 << 3 | 1 },
	  BW_OUT_PASS },
	/* Not IP: nothing to test, passed and counted. */
	{ "arp", { .ethertype = ETH_P_ARP }, BW_OUT_NOT_IP },
	{ "802.1Q arp",
	  { .ethertype = ETH_P_ARP, .tpid = { Q } },
	  BW_OUT_NOT_IP },
	{ "mpls unicast", { .ethertype = ETH_P_MPLS_UC }, BW_OUT_NOT_IP },
	{ "lldp", { .ethertype = 0x88cc }, BW_OUT_NOT_IP },
	{ "802.3 length field", { .ethertype = 0x0040 }, BW_OUT_NOT_IP },
	/* Bad headers from a listed source: passed, never dropped. */
	{ "ipv4 ihl 0",
	  { .src = LISTED4, .ihl = BW_PKT_IHL_ZERO },
	  BW_OUT_MALFORMED },
	{ "ipv4 ihl 4", { .src = LISTED4, .ihl = 4 }, BW_OUT_MALFORMED },
	{ "ipv4 ihl 1", { .src = LISTED4, .ihl = 1 }, BW_OUT_MALFORMED },
	{ "ipv4 ethertype, version 6",
	  { .src = LISTED4, .version = 6 },
	  BW_OUT_MALFORMED },
	{ "ipv6 ethertype, version 4",
	  { .src = LISTED6, .version = 4 },
	  BW_OUT_MALFORMED },
	{ "802.1Q ipv4 ihl 3",
	  { .src = LISTED4, .ihl = 3, .tpid = { Q } },
	  BW_OUT_MALFORMED },
};

static bool open_listed(struct bw_dp *dp, struct bw_filter_map *m)
{
	if (!bw_dp_open(dp))
		return false;
	return ASSERT_OK(bw_dp_commit_addrs(dp, listed, BW_F_MATCH_SRC, m),
			 "commit filter");
}

/* The unlisted addresses must not be false positives of this filter. */
static bool unlisted_are_clean(const struct bw_filter_map *m)
{
	struct bw_prefix a4 = bw_addr(UNLISTED4), a6 = bw_addr(UNLISTED6);

	return ASSERT_EQ(bw_filter_lookup(m->mem, &a4, NULL), 0,
			 "precondition: " UNLISTED4 " not a false positive") &&
	       ASSERT_EQ(bw_filter_lookup(m->mem, &a6, NULL), 0,
			 "precondition: " UNLISTED6 " not a false positive");
}

BW_TEST(test_parse_table)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	__u8 buf[BW_PKT_MAX];
	struct bw_dp dp = {};
	size_t i, len;

	if (!open_listed(&dp, &m) || !unlisted_are_clean(&m))
		goto out;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = bw_pkt_build(&cases[i].pkt, buf);
		bw_dp_expect(&dp, cases[i].desc, buf, len, cases[i].want);
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* IHL 5..15: options are skipped whole; the source is found every time. */
BW_TEST(test_parse_ipv4_options)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	__u8 buf[BW_PKT_MAX];
	struct bw_dp dp = {};
	char desc[64];
	size_t len;
	__u8 ihl;

	if (!open_listed(&dp, &m) || !unlisted_are_clean(&m))
		goto out;
	for (ihl = 5; ihl <= 15; ihl++) {
		struct bw_pkt_spec s = { .src = LISTED4,
					 .ihl = ihl,
					 .payload = 16 };

		snprintf(desc, sizeof(desc), "ipv4 listed ihl %u", ihl);
		len = bw_pkt_build(&s, buf);
		bw_dp_expect(&dp, desc, buf, len, BW_OUT_DROP_V4);
		s.src = UNLISTED4;
		snprintf(desc, sizeof(desc), "ipv4 unlisted ihl %u", ihl);
		len = bw_pkt_build(&s, buf);
		bw_dp_expect(&dp, desc, buf, len, BW_OUT_PASS);
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * Every cut from the Ethernet header to 100 bytes of frames longer than
 * that: whatever the cut, the frame is shorter than its headers or its IP
 * length says, so it is malformed: passed and counted, never dropped.
 * (These frames fit in one buffer; test_frags.c cuts frames that do not.)
 */
static void truncate_series(struct bw_dp *dp, const char *name,
			    const struct bw_pkt_spec *s, enum bw_outcome whole)
{
	__u8 buf[BW_PKT_MAX];
	size_t full, need, len;
	char desc[96];

	full = bw_pkt_build(s, buf);
	need = bw_pkt_needed(s);
	if (!ASSERT_GE(full, 100, "frame long enough to cut"))
		return;
	for (len = ETH_HLEN; len <= 100; len++) {
		snprintf(desc, sizeof(desc), "%s cut at %zu (headers %zu)",
			 name, len, need);
		if (!bw_dp_expect(dp, desc, buf, len, BW_OUT_MALFORMED))
			return;
	}
	bw_dp_expect(dp, name, buf, full, whole);
}

/* Listed and unlisted sources; `whole` is the verdict of an uncut frame. */
static const struct {
	const char *name;
	struct bw_pkt_spec pkt;
	enum bw_outcome whole;
} cut_series[] = {
	{ "ipv4 listed", { .src = LISTED4, .payload = 80 }, BW_OUT_DROP_V4 },
	{ "ipv4 ihl 8 listed",
	  { .src = LISTED4, .ihl = 8, .payload = 80 },
	  BW_OUT_DROP_V4 },
	{ "ipv6 listed", { .src = LISTED6, .payload = 80 }, BW_OUT_DROP_V6 },
	{ "QinQ ipv4 listed",
	  { .src = LISTED4, .tpid = { AD, Q }, .payload = 80 },
	  BW_OUT_DROP_V4 },
	{ "QinQ ipv6 listed",
	  { .src = LISTED6, .tpid = { AD, Q }, .payload = 80 },
	  BW_OUT_DROP_V6 },
	{ "ipv4 unlisted", { .src = UNLISTED4, .payload = 80 }, BW_OUT_PASS },
	{ "ipv6 unlisted", { .src = UNLISTED6, .payload = 80 }, BW_OUT_PASS },
	{ "QinQ ipv4 unlisted",
	  { .src = UNLISTED4, .tpid = { AD, Q }, .payload = 80 },
	  BW_OUT_PASS },
};

BW_TEST(test_parse_truncated)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	size_t i;

	if (!open_listed(&dp, &m) || !unlisted_are_clean(&m))
		goto out;
	for (i = 0; i < sizeof(cut_series) / sizeof(cut_series[0]); i++)
		truncate_series(&dp, cut_series[i].name, &cut_series[i].pkt,
				cut_series[i].whole);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * The other way round: Ethernet pads short frames to 60 bytes, so a frame
 * may be longer than its IP packet. That is a whole packet, judged as such.
 */
BW_TEST(test_parse_padded)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_pkt_spec s4 = { .src = LISTED4 };
	struct bw_pkt_spec s6 = { .src = LISTED6 };
	__u8 buf[BW_PKT_MAX];
	struct bw_dp dp = {};
	size_t len;

	if (!open_listed(&dp, &m))
		goto out;
	len = bw_pkt_build(&s4, buf);
	memset(buf + len, 0, 24);
	bw_dp_expect(&dp, "ipv4 listed, 24 bytes of padding", buf, len + 24,
		     BW_OUT_DROP_V4);
	len = bw_pkt_build(&s6, buf);
	memset(buf + len, 0, 24);
	bw_dp_expect(&dp, "ipv6 listed, 24 bytes of padding", buf, len + 24,
		     BW_OUT_DROP_V6);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * BPF_PROG_TEST_RUN refuses XDP frames shorter than an Ethernet header
 * with EINVAL, so lengths 0..13 cannot reach the program here; its bounds
 * checks and the veth tests cover those. Nothing may be counted.
 */
BW_TEST(test_parse_runt_refused)
{
	struct bw_stats before, after;
	__u8 buf[BW_PKT_MAX];
	struct bw_pkt_spec s = { .src = LISTED4 };
	struct bw_dp dp = {};
	__u32 retval;
	size_t len;
	char desc[64];

	if (!bw_dp_open(&dp))
		goto out;
	bw_pkt_build(&s, buf);
	if (!ASSERT_OK(bw_dp_stats(&dp, &before), "stats before"))
		goto out;
	for (len = 1; len < ETH_HLEN; len++) {
		snprintf(desc, sizeof(desc), "test_run of a %zu-byte frame",
			 len);
		ASSERT_EQ(bw_dp_run(&dp, buf, len, &retval), -EINVAL, desc);
	}
	if (!ASSERT_OK(bw_dp_stats(&dp, &after), "stats after"))
		goto out;
	ASSERT_EQ(bw_stats_packets(&after) - bw_stats_packets(&before), 0,
		  "runts counted");
out:
	bw_dp_close(&dp);
}
