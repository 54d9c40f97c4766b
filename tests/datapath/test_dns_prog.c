// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * user/kernel/prog.c for names: a program loaded without a name allowlist or DNS
 * counters (a running program of bloomwall 0.2 has none) gets new ones,
 * one given them shares them, bw_prog_maps finds them; a header that says
 * BW_F_DNS without a valid DNS block in the map is refused.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dns_fixture.h"
#include "kernel/prog.h"
#include "test_helpers.h"

static const char *const subtree[] = { "example.net", NULL };

/* Loads a program for m with maps mp; its maps as bw_prog_maps finds them. */
static bool load_and_find(const struct bw_maps *mp,
			  const struct bw_filter_map *m, struct bw_maps *found)
{
	int fd = bw_prog_load(mp, m), err;

	if (!ASSERT_GE(fd, 0, "bw_prog_load"))
		return false;
	err = bw_prog_maps(fd, found);
	close(fd);
	return ASSERT_OK(err, "bw_prog_maps");
}

BW_TEST(test_dns_prog_maps)
{
	struct dns_filter f = { .subtree = subtree };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_maps none, found = BW_MAPS_INIT;
	struct bw_dp dp = {};

	if (!bw_dp_open(&dp) || !ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
		goto out;
	if (load_and_find(&dp.maps, &m, &found)) {
		ASSERT_EQ(bw_obj_id(found.allow_names),
			  bw_obj_id(dp.maps.allow_names),
			  "the name allowlist given is shared");
		ASSERT_EQ(bw_obj_id(found.dns_stats),
			  bw_obj_id(dp.maps.dns_stats),
			  "the DNS counters given are shared");
	}
	bw_maps_close(&found);
	none = dp.maps;
	none.allow_names = -1;
	none.dns_stats = -1;
	if (load_and_find(&none, &m, &found)) {
		ASSERT_GE(found.allow_names, 0, "a new name allowlist");
		ASSERT_NEQ(bw_obj_id(found.allow_names),
			   bw_obj_id(dp.maps.allow_names),
			   "not the skeleton's name allowlist");
		ASSERT_GE(found.dns_stats, 0, "new DNS counters");
		ASSERT_NEQ(bw_obj_id(found.dns_stats),
			   bw_obj_id(dp.maps.dns_stats),
			   "not the skeleton's DNS counters");
		ASSERT_EQ(bw_obj_id(found.stats), bw_obj_id(dp.maps.stats),
			  "stats still shared");
	}
	bw_maps_close(&found);
	none.stats = -1;
	ASSERT_EQ(bw_prog_load(&none, &m), -EBADF,
		  "stats stay required: -EBADF");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_dns_prog_refuses)
{
	struct dns_filter f = { .subtree = subtree };
	struct bw_filter_map m = BW_FILTER_MAP_INIT, small = BW_FILTER_MAP_INIT;
	struct bw_dns_hdr *dns;
	struct bw_dp dp = {};
	__u32 at;

	if (!bw_dp_open(&dp) || !ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
		goto out;
	at = bw_dns_block(m.mem);
	dns = (struct bw_dns_hdr *)((char *)m.mem + at * BW_BLOCK_BYTES);
	dns->magic ^= 1;
	ASSERT_EQ(bw_prog_load(&dp.maps, &m), -EINVAL, "bad DNS magic");
	dns->magic ^= 1;
	dns->action = BW_DNS_ACTIONS;
	ASSERT_EQ(bw_prog_load(&dp.maps, &m), -EINVAL, "unknown action");
	dns->action = BW_DNS_NULL;
	dns->region_end[BW_NAME_SUBTREE] += 1;
	ASSERT_EQ(bw_prog_load(&dp.maps, &m), -EINVAL,
		  "name region past the map");
	dns->region_end[BW_NAME_SUBTREE] -= 1;
	/* The header alone in a map with no room for its DNS block. */
	if (ASSERT_OK(bw_filter_create(at, &small), "small map")) {
		memcpy(small.mem, m.mem, BW_BLOCK_BYTES);
		ASSERT_EQ(bw_prog_load(&dp.maps, &small), -EINVAL,
			  "BW_F_DNS without a DNS block");
	}
	ASSERT_OK(bw_dp_commit(&dp, &m), "the filter as it was loads");
out:
	bw_filter_close(&small);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* The counters' names, as status and the JSON output show them. */
BW_TEST(test_dns_stats_fields)
{
	static const char *const want[] = {
		"queries",	   "blocked_null", "blocked_nxdomain",
		"blocked_refused", "blocked_drop", "allowed",
		"monitored",	   "malformed",	   "not_query",
		"answer_failed",   "fragments",	   "frag_dropped",
		"not_answered",
	};
	struct bw_dns_stats s = { .blocked = { 1, 2, 3, 4 }, .queries = 9 };
	size_t i;

	if (!ASSERT_EQ(bw_dns_stats_nfields, sizeof(want) / sizeof(want[0]),
		       "fields"))
		return;
	for (i = 0; i < bw_dns_stats_nfields; i++)
		ASSERT_STREQ(bw_dns_stats_fields[i].name, want[i], want[i]);
	ASSERT_EQ(bw_dns_stats_get(&s, &bw_dns_stats_fields[3]), 3,
		  "blocked_refused reads blocked[BW_DNS_REFUSED]");
	ASSERT_EQ(bw_dns_stats_blocked(&s), 10, "blocked of every action");
}
