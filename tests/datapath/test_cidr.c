// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Several target lengths per family through the BPF program: every region
 * is searched, each at its own length, and every address inside a listed
 * CIDR is dropped, whatever the expansion made of it.
 */
#include <stdio.h>
#include <string.h>

#include "lists/cidr.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "datapath.h"
#include "test_helpers.h"

/* First, last and one inner address of a prefix (host order). */
static void prefix_probes(const struct bw_prefix *p, struct bw_prefix out[3])
{
	unsigned int host, i;

	for (i = 0; i < 3; i++)
		out[i] = *p;
	if (p->family == BW_V4) {
		host = 32 - p->plen;
		if (host) {
			__u32 span = host >= 32 ? ~0U : (1U << host) - 1;

			out[1].lo = (__u32)p->lo | span;
			out[2].lo = (__u32)p->lo | (0x5a5a5a5aU & span);
		}
		for (i = 0; i < 3; i++)
			out[i].plen = 32;
		return;
	}
	host = 128 - p->plen;
	if (host >= 64) {
		__u64 span = host >= 128 ? ~0ULL : (1ULL << (host - 64)) - 1;

		out[1].hi = p->hi | span;
		out[1].lo = ~0ULL;
		out[2].hi = p->hi | (0x5a5a5a5a5a5a5a5aULL & span);
		out[2].lo = 0xa5a5a5a5a5a5a5a5ULL;
	} else if (host) {
		__u64 span = (1ULL << host) - 1;

		out[1].lo = p->lo | span;
		out[2].lo = p->lo | (0x5a5a5a5a5a5a5a5aULL & span);
	}
	for (i = 0; i < 3; i++)
		out[i].plen = 128;
}

/* Every probe address of every source prefix must be dropped. */
static void expect_covered(struct bw_dp *dp, const struct bw_list *src)
{
	struct bw_prefix dst4 = bw_addr("192.0.2.1"),
			 dst6 = bw_addr("2001:db8::1");
	struct bw_pkt_spec s = { .payload = 16 };
	struct bw_prefix p, probe[3];
	size_t i, n = src->n4 + src->n6, missed = 0;
	__u8 buf[BW_PKT_MAX];
	char txt[64];
	int j;

	for (i = 0; i < n; i++) {
		if (i < src->n4) {
			p = (struct bw_prefix){ .lo = bw_v4key_addr(src->v4[i]),
						.plen = bw_v4key_plen(
							src->v4[i]),
						.family = BW_V4 };
		} else {
			const struct bw_v6key *k = &src->v6[i - src->n4];

			p = (struct bw_prefix){ .hi = k->hi,
						.lo = k->lo,
						.plen = k->plen,
						.family = BW_V6 };
		}
		prefix_probes(&p, probe);
		for (j = 0; j < 3; j++) {
			size_t len = bw_pkt_build_addr(
				&s, &probe[j],
				p.family == BW_V4 ? &dst4 : &dst6, buf);

			if (bw_dp_verdict(dp, buf, len) == XDP_DROP)
				continue;
			if (missed++ < 5)
				fprintf(stderr,
					"  not dropped: %s (probe %d)\n",
					bw_prefix_str(&p, txt, sizeof(txt)), j);
		}
	}
	ASSERT_EQ(missed, 0, "addresses inside listed prefixes not dropped");
}

/* Four lengths per family: one region each, no expansion needed. */
static const char *const four_lengths[] = {
	"10.0.0.0/8",	     "172.16.0.0/12", "192.168.1.0/24",
	"198.51.100.7",	     "2001:db8::/32", "2001:db9:1::/48",
	"2001:dba:1:2::/64", "2001:dbb::7",   NULL,
};
static const struct {
	const char *addr;
	enum bw_outcome want;
} four_flows[] = {
	{ "10.0.0.0", BW_OUT_DROP_V4 },
	{ "10.255.255.255", BW_OUT_DROP_V4 },
	{ "172.31.1.2", BW_OUT_DROP_V4 },
	{ "192.168.1.200", BW_OUT_DROP_V4 },
	{ "198.51.100.7", BW_OUT_DROP_V4 },
	{ "11.0.0.0", BW_OUT_PASS },
	{ "172.32.0.1", BW_OUT_PASS },
	{ "192.168.2.1", BW_OUT_PASS },
	{ "198.51.100.6", BW_OUT_PASS },
	{ "2001:db8:ffff::1", BW_OUT_DROP_V6 },
	{ "2001:db9:1:ffff::1", BW_OUT_DROP_V6 },
	{ "2001:dba:1:2:ffff::1", BW_OUT_DROP_V6 },
	{ "2001:dbb::7", BW_OUT_DROP_V6 },
	{ "2001:db7::1", BW_OUT_PASS },
	{ "2001:db9:2::1", BW_OUT_PASS },
	{ "2001:dba:1:3::1", BW_OUT_PASS },
	{ "2001:dbb::8", BW_OUT_PASS },
};

BW_TEST(test_cidr_four_lengths)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	const struct bw_hdr *hdr;
	__u8 buf[BW_PKT_MAX];
	struct bw_dp dp = {};
	struct bw_prefix a;
	size_t i;

	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(
		    bw_dp_commit_addrs(&dp, four_lengths, BW_F_MATCH_SRC, &m),
		    "commit"))
		goto out;
	hdr = m.mem;
	ASSERT_EQ(hdr->nlengths[BW_V4], 4, "IPv4 target lengths");
	ASSERT_EQ(hdr->nlengths[BW_V6], 4, "IPv6 target lengths");
	for (i = 0; i < sizeof(four_flows) / sizeof(four_flows[0]); i++) {
		struct bw_pkt_spec s = { .src = four_flows[i].addr,
					 .payload = 16 };

		a = bw_addr(four_flows[i].addr);
		if (four_flows[i].want == BW_OUT_PASS &&
		    !ASSERT_EQ(
			    bw_filter_lookup(m.mem, &a, NULL), 0,
			    "precondition: outside address not a false positive"))
			continue;
		bw_dp_expect(&dp, four_flows[i].addr, buf,
			     bw_pkt_build(&s, buf), four_flows[i].want);
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

static const char *const cidr_files[] = {
	"spamhaus/drop.txt",
	"spamhaus/dropv6.txt",
	"ipv4/firehol/firehol_level1.netset",
	"ipv6/openshield/high-risk-networks_ipv6-cidrs.txt",
};

/*
 * Real CIDR lists, merged and expanded by user/lists/cidr.c to at most four
 * lengths per family: the first, the last and an inner address of every
 * listed prefix are dropped.
 */
BW_TEST(test_cidr_lists_no_false_negatives)
{
	struct bw_list_opts lo = {};
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	const char *dir = bw_test_data_dir();
	struct bw_list src, keys;
	struct bw_build_opts o;
	struct bw_dp dp = {};
	char path[512];
	size_t i;

	bw_list_init(&src);
	bw_list_init(&keys);
	if (!dir)
		goto out;
	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < sizeof(cidr_files) / sizeof(cidr_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cidr_files[i]);
		if (!ASSERT_OK(bw_list_load(&src, path, &lo), path))
			goto out;
	}
	if (!ASSERT_OK(bw_cidr_prepare(&src, NULL, &keys, NULL),
		       "cidr prepare"))
		goto out;
	bw_build_opts_init(&o);
	if (!ASSERT_OK(bw_dp_commit_list(&dp, &keys, &o, &m), "commit"))
		goto out;
	printf("  %zu source prefixes, %zu keys, %u+%u target lengths\n",
	       src.n4 + src.n6, keys.n4 + keys.n6,
	       ((struct bw_hdr *)m.mem)->nlengths[BW_V4],
	       ((struct bw_hdr *)m.mem)->nlengths[BW_V6]);
	expect_covered(&dp, &src);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
	bw_list_free(&keys);
	bw_list_free(&src);
}
