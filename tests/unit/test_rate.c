// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The rate of a running filter by the model (user/filter/rate.c), which
 * decides whether an add goes in place or grows the filter: a fresh build
 * of one address and one name is within its target in every part; the
 * most keys the model lets in place keep the rate measured on random
 * non-members within twice the target (what add promises), and many more
 * are judged past it, as measuring confirms; a build with room for R adds
 * takes them in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/builder.h"
#include "filter/live_room.h"
#include "filter/rate.h"
#include "test_helpers.h"
#include "unit.h"

#define RATE_FPR 0.001
#define RATE_SAMPLES 200000
#define RATE_ROOM 1000

/* A list of one address (192.0.2.1) and one name. */
static bool rate_list(char *path)
{
	static const char text[] = "192.0.2.1\none.example\n";
	int fd = mkstemp(path);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1;
	close(fd);
	return ok;
}

/* The filter of the list, with room (NULL: none); NULL on failure. */
static void *rate_build(const char *path, const struct bw_live_room *room)
{
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_build b;
	void *mem;

	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.fpr = RATE_FPR;
	req.opts.seed = 7;
	req.room = room;
	if (bw_build_plan(&req, &b))
		return NULL;
	mem = calloc(bw_build_blocks(&b), BW_BLOCK_BYTES);
	if (mem)
		bw_build_fill(&b, mem);
	bw_build_free(&b);
	return mem;
}

static struct bw_prefix rate_host(__u32 a)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32, .lo = a };

	return p;
}

/* Sets n host keys of 10/8 in mem as add does, counted in its region. */
static int rate_add_hosts(void *mem, __u32 from, __u32 n)
{
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	struct bw_prefix p;
	struct bw_add_plan ap;
	__u32 i;

	for (i = from; i < from + n; i++) {
		p = rate_host(0x0a000000 | i);
		if (bw_add_plan(mem, &p, &ap))
			return -1;
		bw_add_insert(mem, &p, &ap);
		info->region_entries[ap.region]++;
		info->entries++;
	}
	return ap.region;
}

/* Hits among random addresses of 203/8 (never added). */
static double rate_measured_v4(const void *mem, __u64 *seed)
{
	struct bw_prefix a = { .family = BW_V4, .plen = 32 };
	size_t i, hits = 0;

	for (i = 0; i < RATE_SAMPLES; i++) {
		a.lo = 0xcb000000 | (bw_test_splitmix64(seed) & 0xffffff);
		hits += bw_filter_lookup(mem, &a, NULL) == 1;
	}
	return (double)hits / RATE_SAMPLES;
}

/* Sets n exact names nI.added as add does, counted in their region. */
static void rate_add_names(void *mem, int from, int n)
{
	struct bw_dns_hdr *dns = (struct bw_dns_hdr *)bw_filter_dns(mem);
	char name[32];
	int i, len;

	for (i = from; i < from + n; i++) {
		len = snprintf(name, sizeof(name), "n%d.added", i);
		bw_name_insert(mem, name, (size_t)len, false);
		dns->region_entries[BW_NAME_EXACT]++;
	}
}

/* Hits among names never added, as DNS queries test them. */
static double rate_measured_names(const void *mem, __u64 *seed)
{
	struct bw_name_hit hit;
	char name[48];
	size_t i, hits = 0;
	int len;

	for (i = 0; i < RATE_SAMPLES / 4; i++) {
		len = snprintf(
			name, sizeof(name), "u%llu.other.example",
			(unsigned long long)(bw_test_splitmix64(seed) >> 16));
		hits += bw_name_lookup(mem, name, (size_t)len, &hit) == 1;
	}
	return (double)hits / (RATE_SAMPLES / 4);
}

/* The most of part's keys (host keys of 10/8, or names) the model lets in. */
static __u64 rate_most(const void *mem, int part, int region)
{
	double target = bw_rate_target(mem, part);
	struct bw_rate_more m;
	__u64 k;

	for (k = 1; k < 1000000; k++) {
		memset(&m, 0, sizeof(m));
		if (part == BW_RATE_NAMES)
			m.names[BW_NAME_EXACT] = k;
		else
			m.keys[region] = k;
		if (bw_rate_of(mem, part, &m) > target)
			return k - 1;
	}
	return k;
}

BW_TEST(test_rate_add_in_place)
{
	char path[] = "/tmp/bw-rate-XXXXXX";
	struct bw_add_plan ap;
	struct bw_prefix p = rate_host(0x0a000000);
	double rate, target, fpr;
	__u64 seed = 99, most;
	void *mem = NULL;

	if (!ASSERT_TRUE(rate_list(path), "list file"))
		return;
	mem = rate_build(path, NULL);
	if (!ASSERT_TRUE(mem != NULL, "build"))
		goto out;
	ASSERT_EQ(bw_rate_past(mem, NULL, 1.0, &rate, &target), -1,
		  "a fresh build is within its target");
	ASSERT_TRUE(bw_rate_target(mem, BW_RATE_NAMES) == RATE_FPR,
		    "the names' target");
	if (!ASSERT_OK(bw_add_plan(mem, &p, &ap), "plan"))
		goto out;

	/* Addresses: as many as the model lets in, then ten times that. */
	most = rate_most(mem, BW_RATE_V4, ap.region);
	ASSERT_TRUE(most >= 1 && most < 1000, "a small region takes a few");
	rate_add_hosts(mem, 0, (__u32)most);
	fpr = rate_measured_v4(mem, &seed);
	if (getenv("BW_TEST_VERBOSE"))
		printf("  %llu hosts: model %.4f%%, measured %.4f%%\n",
		       (unsigned long long)most,
		       100 * bw_rate_of(mem, BW_RATE_V4, NULL), 100 * fpr);
	ASSERT_TRUE(fpr <= 2 * RATE_FPR,
		    "in place up to the model's most: within twice the target");
	ASSERT_EQ(bw_rate_past(mem, NULL, 1.0, &rate, &target), -1,
		  "and the model says within");
	rate_add_hosts(mem, (__u32)most, (__u32)(9 * most));
	ASSERT_EQ(bw_rate_past(mem, NULL, 1.0, &rate, &target), BW_RATE_V4,
		  "ten times as many: the IPv4 addresses past their target");
	ASSERT_TRUE(rate > 2 * RATE_FPR &&
			    rate_measured_v4(mem, &seed) > 2 * RATE_FPR,
		    "past twice the target, modelled and measured");

	/* Names: the same. */
	most = rate_most(mem, BW_RATE_NAMES, 0);
	ASSERT_TRUE(most >= 1 && most < 1000, "a small name region too");
	rate_add_names(mem, 0, (int)most);
	ASSERT_TRUE(rate_measured_names(mem, &seed) <= 2 * RATE_FPR,
		    "names in place up to the model's most: within twice");
	rate_add_names(mem, (int)most, (int)(9 * most));
	ASSERT_EQ(bw_rate_past(mem, NULL, 1.0, &rate, &target), BW_RATE_V4,
		  "the first part past is said first");
	ASSERT_TRUE(bw_rate_of(mem, BW_RATE_NAMES, NULL) > 2 * RATE_FPR &&
			    rate_measured_names(mem, &seed) > 2 * RATE_FPR,
		    "ten times as many names: past, modelled and measured");
out:
	free(mem);
	unlink(path);
}

/* Grown with room for R host adds: they go in place within the target. */
BW_TEST(test_rate_room_takes_adds)
{
	char path[] = "/tmp/bw-rate-XXXXXX";
	struct bw_live_room room;
	struct bw_prefix p;
	struct bw_rate_more m = { 0 };
	struct bw_add_plan ap;
	double rate, target;
	void *mem = NULL;
	__u32 i;

	if (!ASSERT_TRUE(rate_list(path), "list file"))
		return;
	bw_room_init(&room);
	for (i = 0; i < RATE_ROOM; i++) {
		p = rate_host(0x0a000000 | i);
		bw_room_add(&room, &p);
	}
	for (i = 0; i < RATE_ROOM; i++)
		bw_room_add_name(&room, false);
	mem = rate_build(path, &room);
	if (!ASSERT_TRUE(mem != NULL, "build"))
		goto out;
	p = rate_host(0x0a000000);
	if (!ASSERT_OK(bw_add_plan(mem, &p, &ap), "plan"))
		goto out;
	m.keys[ap.region] = bw_room_for(RATE_ROOM);
	m.names[BW_NAME_EXACT] = bw_room_for(RATE_ROOM);
	ASSERT_EQ(bw_rate_past(mem, &m, 1.0, &rate, &target), -1,
		  "the room's keys and names fit within the target");
	m.keys[ap.region] *= 4;
	ASSERT_EQ(bw_rate_past(mem, &m, 1.0, &rate, &target), BW_RATE_V4,
		  "four times the room does not");
out:
	free(mem);
	unlink(path);
}
