// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Room for live entries (user/filter/live_room.c): a build of a 2-entry
 * IPv4-only list asked to make room for live prefixes of both families
 * (host addresses, and ranges shorter than the list's only length) gets
 * target lengths for all of them, and regions so sized that with every
 * one of them set the measured false-positive rate on random non-members
 * stays within 1.5 x the target in each family.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/live.h"
#include "filter/live_room.h"
#include "test_helpers.h"
#include "unit.h"

#define ROOM_FPR 0.001
#define ROOM_V4 20000
#define ROOM_V6 3000
#define ROOM_V4_RANGES 50 /* /20s in 10.0.0.0/8 */
#define ROOM_V6_RANGES 20 /* /48s in 2001:db8::/32 */
#define ROOM_SAMPLES 200000

static struct bw_prefix room_pfx(__u64 *seed, int i)
{
	struct bw_prefix p = { 0 };

	if (i < ROOM_V4) {
		p.family = BW_V4;
		p.plen = 32;
		p.lo = bw_test_splitmix64(seed) & 0xffffffff;
	} else if (i < ROOM_V4 + ROOM_V6) {
		p.family = BW_V6;
		p.plen = 128;
		p.hi = bw_test_splitmix64(seed);
		p.lo = bw_test_splitmix64(seed);
	} else if (i < ROOM_V4 + ROOM_V6 + ROOM_V4_RANGES) {
		p.family = BW_V4;
		p.plen = 20;
		p.lo = 0x0a000000 | (bw_test_splitmix64(seed) & 0xfff000);
	} else {
		p.family = BW_V6;
		p.plen = 48;
		p.hi = 0x20010db800000000ULL |
		       (bw_test_splitmix64(seed) & 0xffff0000ULL);
	}
	return p;
}

#define ROOM_N (ROOM_V4 + ROOM_V6 + ROOM_V4_RANGES + ROOM_V6_RANGES)

/* Hits among random addresses of family f outside the ranges and list. */
static double room_fpr(const void *mem, int f, __u64 *seed)
{
	struct bw_prefix a = { .family = (__u8)f };
	size_t i, hits = 0;

	for (i = 0; i < ROOM_SAMPLES; i++) {
		a.plen = f == BW_V4 ? 32 : 128;
		if (f == BW_V4) {
			a.lo = bw_test_splitmix64(seed) & 0xffffffff;
			/* Not 10/8 nor the list's 192/8, 198/8. */
			if (a.lo >> 24 == 10 || a.lo >> 24 == 192 ||
			    a.lo >> 24 == 198)
				a.lo ^= 0x40000000;
		} else {
			a.hi = bw_test_splitmix64(seed) | (1ULL << 62);
			a.lo = bw_test_splitmix64(seed);
		}
		hits += bw_filter_lookup(mem, &a, NULL) == 1;
	}
	return (double)hits / ROOM_SAMPLES;
}

static bool room_list(char *path)
{
	static const char text[] = "192.0.2.1\n198.51.100.0/24\n";
	int fd = mkstemp(path);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1;
	close(fd);
	return ok;
}

BW_TEST(test_live_room_sizing)
{
	char path[] = "/tmp/bw-room-XXXXXX";
	const char *lists[] = { path };
	struct bw_prefix *live = calloc(ROOM_N, sizeof(*live));
	struct bw_live_room room;
	struct bw_build_req req;
	struct bw_build b;
	struct bw_live set;
	__u64 seed = 42;
	size_t refused = 0;
	void *mem = NULL;
	int i, f;

	if (!ASSERT_TRUE(live && room_list(path), "list file"))
		goto out;
	bw_room_init(&room);
	room.host_targets = true;
	for (i = 0; i < ROOM_N; i++) {
		live[i] = room_pfx(&seed, i);
		bw_room_add(&room, &live[i]);
	}
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.fpr = ROOM_FPR;
	req.opts.seed = 7;
	req.room = &room;
	if (!ASSERT_OK(bw_build_plan(&req, &b), "build"))
		goto out;
	mem = calloc(bw_build_blocks(&b), BW_BLOCK_BYTES);
	if (!ASSERT_TRUE(mem != NULL, "memory")) {
		bw_build_free(&b);
		goto out;
	}
	bw_build_fill(&b, mem);
	ASSERT_EQ(b.sum.entries, 257, "the list's keys only are built in");
	bw_build_free(&b);
	bw_live_init(&set);
	ASSERT_OK(bw_live_layout(&set, mem), "layout");
	for (i = 0; i < ROOM_N; i++)
		refused += bw_live_add(&set, mem, &live[i], 0) != 0;
	ASSERT_EQ(refused, 0, "every live prefix has a target length");
	for (f = 0; f < BW_FAMILIES; f++) {
		double fpr = room_fpr(mem, f, &seed);

		if (getenv("BW_TEST_VERBOSE"))
			printf("  family %d: measured %.4f%% for %.4f%%\n", f,
			       100 * fpr, 100 * ROOM_FPR);
		ASSERT_TRUE(fpr <= 1.5 * ROOM_FPR,
			    "measured rate within 1.5 x the target");
	}
	bw_live_free(&set);
out:
	free(mem);
	free(live);
	unlink(path);
}

/*
 * A /48 where the family's one target length is /128 is 2^80 keys: too
 * many (the shift wrapped to 2^16 before, and 65,536 of its addresses
 * were let in as if they were all of it).
 */
BW_TEST(test_live_room_wide_refused)
{
	char path[] = "/tmp/bw-room-XXXXXX";
	const char *lists[] = { path };
	struct bw_prefix p = { .family = BW_V6, .plen = 48 };
	struct bw_live_room room;
	struct bw_build_req req;
	struct bw_add_plan ap;
	struct bw_build b;

	p.hi = 0x20010db800770000ULL;
	if (!ASSERT_TRUE(room_list(path), "list file"))
		return;
	bw_room_init(&room);
	room.host_targets = true;
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.room = &room;
	if (ASSERT_OK(bw_build_plan(&req, &b), "build")) {
		ASSERT_EQ(b.plan.hdr.nlengths[BW_V6], 1, "one IPv6 target");
		ASSERT_EQ(b.plan.hdr.plen[BW_V6][0], 128, "/128");
		ASSERT_EQ(bw_add_plan(&b.plan.hdr, &p, &ap), -E2BIG,
			  "the /48 refused");
		bw_build_free(&b);
	}
	unlink(path);
}
