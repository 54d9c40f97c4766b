// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * CIDR lists through the XDP program, built and swapped in the CLI's way
 * (lists_fixture.h): the edges of every prefix at every chosen target
 * length, expanded or not; first and last address drop, the neighbours
 * pass. With and without verify mode.
 */
#include <stdio.h>

#include "bloomwall.h"
#include "lists/cidr.h"
#include "lists/list_parse.h"
#include "lists_fixture.h"
#include "test_helpers.h"

/*
 * Six lengths per family, four targets: the DP keeps the lengths that
 * would cost most to expand and expands the cheap ones (/22 -> 4 x /24,
 * /15 -> 2 x /16; /47 -> 2 x /48, /31 -> 2 x /32). A target must save more
 * than 4096 keys to be kept, so edge_bulk gives IPv4's /8, /16 and /24
 * sixteen more prefixes each (IPv6's short lengths are worth it alone).
 */
static const char *const edge_list[] = {
	"203.0.113.7",	       "203.0.113.9/32",
	"198.51.100.0/24",     "192.0.0.0/22",
	"172.20.0.0/16",       "100.64.0.0/15",
	"10.0.0.0/8",	       "2001:db8::1",
	"2001:db8:aa:bb::/64", "2001:db8:1::/48",
	"2001:db8:4::/47",     "2001:db9::/32",
	"2001:dc0::/31",       NULL,
};

#define EDGE_BULK 16

/*
 * The edge list, then EDGE_BULK more /8s, /16s and /24s, NULL-terminated;
 * none next to an edge prefix (whose neighbours must be unlisted) nor to
 * each other (siblings would merge).
 */
static const char **edge_bulk_list(void)
{
	static char bulk[3 * EDGE_BULK][24];
	static const char *
		lines[sizeof(edge_list) / sizeof(edge_list[0]) + 3 * EDGE_BULK];
	size_t n = 0, i;

	for (i = 0; edge_list[i]; i++)
		lines[n++] = edge_list[i];
	for (i = 0; i < EDGE_BULK; i++) {
		snprintf(bulk[3 * i], sizeof(bulk[0]), "%zu.0.0.0/8",
			 30 + 2 * i);
		snprintf(bulk[3 * i + 1], sizeof(bulk[0]), "172.%zu.0.0/16",
			 40 + 2 * i);
		snprintf(bulk[3 * i + 2], sizeof(bulk[0]), "198.51.%zu.0/24",
			 120 + 2 * i);
		lines[n++] = bulk[3 * i];
		lines[n++] = bulk[3 * i + 1];
		lines[n++] = bulk[3 * i + 2];
	}
	lines[n] = NULL;
	return lines;
}

static void check_targets(const struct bw_hdr *hdr)
{
	static const __u8 want[BW_FAMILIES][BW_MAX_LENGTHS] = {
		{ 32, 24, 16, 8 },
		{ 128, 64, 48, 32 },
	};
	int f, i;

	for (f = 0; f < BW_FAMILIES; f++) {
		ASSERT_EQ(hdr->nlengths[f], BW_MAX_LENGTHS, "target lengths");
		for (i = 0; i < BW_MAX_LENGTHS; i++)
			ASSERT_EQ(hdr->plen[f][i], want[f][i], "target length");
	}
}

/* First and last address drop; the ones just outside do not. */
static void check_edges(struct bw_dp *dp, const void *mem)
{
	const char *const *s;
	struct bw_prefix p, a;
	char err[BW_ERRLEN];
	u128 first, last;

	for (s = edge_list; *s; s++) {
		if (!ASSERT_OK(bw_parse_prefix(*s, &p, err, sizeof(err)), *s))
			continue;
		first = lf_addr_num(&p);
		last = first + lf_span_of(&p);
		a = lf_addr_at(p.family, first);
		lf_expect(dp, &a, lf_drop(p.family));
		a = lf_addr_at(p.family, last);
		lf_expect(dp, &a, lf_drop(p.family));
		a = lf_addr_at(p.family, first - 1);
		lf_expect(dp, &a, lf_outside(mem, &a));
		a = lf_addr_at(p.family, last + 1);
		lf_expect(dp, &a, lf_outside(mem, &a));
	}
}

BW_TEST(test_allow_prefix_edges)
{
	struct bw_built b = BW_BUILT_INIT;
	const struct bw_info *info;
	struct bw_dp dp = {};
	char *files[1];
	int verify;

	if (!bw_dp_open(&dp) || !lf_tmp_setup())
		goto out;
	files[0] = lf_write_list("edges.txt", edge_bulk_list());
	for (verify = 0; files[0] && verify < 2; verify++) {
		bw_built_close(&b);
		if (!lf_build_swap(&dp, files, 1, verify, verify + 1, &b))
			break;
		info = (const void *)((char *)b.filter.mem + BW_BLOCK_BYTES);
		check_targets(b.filter.mem);
		ASSERT_EQ(info->source_entries, 13 + 3 * EDGE_BULK,
			  "source prefixes");
		/* /22 +3, /15 +1, /47 +1, /31 +1 */
		ASSERT_EQ(info->entries, 13 + 3 * EDGE_BULK + 6,
			  "expanded entries");
		check_edges(&dp, b.filter.mem);
	}
out:
	bw_built_close(&b);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}
