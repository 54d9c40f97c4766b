// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live names in place (user/filter/live_names.c): random names on top of a
 * filter built with list names and room for live ones, a random half taken
 * out again. Every list name and every remaining live name is still found
 * through the data path's name test (bw_name_lookup), the deleted ones are
 * gone but for false positives, and the blocks are exactly the built
 * filter with the remaining keys set; refcounts, expiry, a filter with
 * only room for names (no list names at all), and a rebuild's hand-over
 * of a name's block (the rebase writes name blocks back as well).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/builder.h"
#include "filter/live.h"
#include "lists/list.h"
#include "test_helpers.h"

#define BASE_NAMES 3000
#define NLIVE_NAMES 1000
#define NAMES_FPR 0.01

struct nfix {
	struct bw_list l;
	struct bw_plan plan;
	void *mem, *base;
	char live[NLIVE_NAMES][40];
	bool sub[NLIVE_NAMES], gone[NLIVE_NAMES];
	__u64 seed;
};

static size_t rnd_name(__u64 *seed, const char *zone, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "h%012llx.%s",
				(unsigned long long)(bw_test_splitmix64(seed) &
						     0xffffffffffffULL),
				zone);
}

/* A filter of base names (a fifth subtrees) with room for live ones. */
static int nfix_init(struct nfix *f, __u64 seed, __u64 room, bool names)
{
	struct bw_build_opts o = { .fpr = NAMES_FPR,
				   .seed = 11,
				   .flags = BW_F_MATCH_SRC,
				   .name_room = { room, room } };
	struct bw_prefix p = { .family = BW_V4, .plen = 32, .lo = 0x0a000001 };
	char name[64];
	size_t len;
	int i;

	memset(f, 0, sizeof(*f));
	f->seed = seed;
	bw_list_init(&f->l);
	if (bw_list_push(&f->l, &p))
		return -1;
	for (i = 0; names && i < BASE_NAMES; i++) {
		len = rnd_name(&f->seed, "base.test", name, sizeof(name));
		if (bw_domain_push(&f->l, name, len,
				   i % 5 ? 0 : BW_DOM_SUBTREE))
			return -1;
	}
	bw_list_finish(&f->l);
	if (bw_plan_filter(&f->l, &o, &f->plan))
		return -1;
	f->mem = calloc(f->plan.nblocks, BW_BLOCK_BYTES);
	f->base = malloc((size_t)f->plan.nblocks * BW_BLOCK_BYTES);
	if (!f->mem || !f->base)
		return -1;
	bw_fill_filter(f->mem, &f->plan, &f->l);
	memcpy(f->base, f->mem, (size_t)f->plan.nblocks * BW_BLOCK_BYTES);
	for (i = 0; i < NLIVE_NAMES; i++) {
		rnd_name(&f->seed, "live.test", f->live[i], sizeof(f->live[i]));
		f->sub[i] = i % 3 == 0;
	}
	return 0;
}

static void nfix_free(struct nfix *f)
{
	bw_list_free(&f->l);
	free(f->mem);
	free(f->base);
}

/* The name found: for a subtree, a name under it as well. */
static bool name_found(const void *mem, const char *name, bool sub)
{
	struct bw_name_hit hit;
	char under[128];
	int n;

	if (bw_name_lookup(mem, name, strlen(name), &hit) != 1)
		return false;
	if (!sub)
		return true;
	n = snprintf(under, sizeof(under), "www.%s", name);
	return bw_name_lookup(mem, under, (size_t)n, &hit) == 1;
}

static size_t base_missed(const struct nfix *f, const void *mem)
{
	const struct bw_domain *d;
	char name[300];
	size_t i, miss = 0;

	for (i = 0; i < f->l.ndom; i++) {
		d = &f->l.dom[i];
		snprintf(name, sizeof(name), "%.*s", (int)d->len,
			 bw_domain_name(&f->l, d));
		miss += !name_found(mem, name, d->flags & BW_DOM_SUBTREE);
	}
	return miss;
}

/* The blocks are exactly the base with the live names' keys set. */
static bool exact(const struct nfix *f, const void *mem)
{
	size_t bytes = (size_t)f->plan.nblocks * BW_BLOCK_BYTES;
	char *want = malloc(bytes);
	bool same;
	int i;

	if (!want)
		return false;
	memcpy(want, f->base, bytes);
	for (i = 0; i < NLIVE_NAMES; i++)
		if (!f->gone[i])
			bw_name_insert(want, f->live[i], strlen(f->live[i]),
				       f->sub[i]);
	same = !memcmp(want, mem, bytes);
	free(want);
	return same;
}

BW_TEST(test_live_names_delete_half)
{
	size_t i, miss = 0, gone = 0, still = 0;
	struct bw_live_stats st;
	struct bw_live l;
	struct nfix f;

	bw_live_init(&l);
	if (!ASSERT_OK(nfix_init(&f, 77, NLIVE_NAMES * 2, true), "fixture"))
		goto out;
	ASSERT_OK(bw_live_layout(&l, f.mem), "layout");
	for (i = 0; i < NLIVE_NAMES; i++)
		ASSERT_OK(bw_live_add_name(&l, f.mem, f.live[i],
					   strlen(f.live[i]), f.sub[i], 0),
			  "add name");
	for (i = 0; i < NLIVE_NAMES; i++)
		miss += !name_found(f.mem, f.live[i], f.sub[i]);
	ASSERT_EQ(miss, 0, "every live name found after the adds");
	ASSERT_EQ(base_missed(&f, f.mem), 0, "every list name found");
	ASSERT_TRUE(exact(&f, f.mem), "blocks = base | live names");
	bw_live_stats(&l, &st);
	ASSERT_EQ(st.names, NLIVE_NAMES, "names counted");
	ASSERT_EQ(st.keys, NLIVE_NAMES, "one key a name");

	for (i = 0; i < NLIVE_NAMES; i++) {
		if (!(bw_test_splitmix64(&f.seed) & 1))
			continue;
		f.gone[i] = true;
		ASSERT_OK(bw_live_del_name(&l, f.mem, f.live[i],
					   strlen(f.live[i]), f.sub[i]),
			  "del name");
	}
	miss = 0;
	for (i = 0; i < NLIVE_NAMES; i++) {
		if (!f.gone[i]) {
			miss += !name_found(f.mem, f.live[i], f.sub[i]);
			continue;
		}
		gone++;
		still += name_found(f.mem, f.live[i], f.sub[i]);
	}
	ASSERT_EQ(miss, 0, "every remaining live name found");
	ASSERT_EQ(base_missed(&f, f.mem), 0, "every list name found after");
	ASSERT_TRUE(exact(&f, f.mem), "blocks = base | remaining names");
	ASSERT_GE(gone, NLIVE_NAMES / 3, "a half deleted");
	/* A deleted name still found is a false positive: ~1 % of them. */
	ASSERT_LE(still, gone / 20 + 5, "deleted names gone");
out:
	bw_live_free(&l);
	nfix_free(&f);
}

BW_TEST(test_live_names_refcount_and_expiry)
{
	const char *a = "a.example.test", *b = "b.example.test";
	struct bw_live_stats st;
	struct bw_live l;
	struct nfix f;
	__u64 exp = 0;

	bw_live_init(&l);
	if (!ASSERT_OK(nfix_init(&f, 78, 64, true), "fixture"))
		goto out;
	ASSERT_OK(bw_live_layout(&l, f.mem), "layout");
	ASSERT_OK(bw_live_add_name(&l, f.mem, a, strlen(a), false, 0), "a");
	ASSERT_OK(bw_live_add_name(&l, f.mem, a, strlen(a), false, 0), "a 2");
	ASSERT_OK(bw_live_del_name(&l, f.mem, a, strlen(a), false), "del 1");
	ASSERT_TRUE(name_found(f.mem, a, false), "a stays after one delete");
	ASSERT_ERR(bw_live_del_name(&l, f.mem, a, strlen(a), true),
		   "the subtree of a is another entry");
	ASSERT_OK(bw_live_del_name(&l, f.mem, a, strlen(a), false), "del 2");
	ASSERT_FALSE(bw_live_has_name(&l, a, strlen(a), false, NULL), "gone");
	ASSERT_TRUE(
		!memcmp(f.base, f.mem, (size_t)f.plan.nblocks * BW_BLOCK_BYTES),
		"the filter is as built again");

	ASSERT_OK(bw_live_add_name(&l, f.mem, b, strlen(b), true, 100),
		  "*.b until 100");
	ASSERT_TRUE(name_found(f.mem, b, true), "*.b found");
	bw_live_stats(&l, &st);
	ASSERT_EQ_U64(st.next_expiry, 100, "next expiry of a name");
	ASSERT_EQ(bw_live_expire(&l, f.mem, 99), 0, "nothing ends before 100");
	ASSERT_OK(bw_live_name_expiry(&l, b, strlen(b), true, 200),
		  "a new timeout");
	ASSERT_TRUE(bw_live_has_name(&l, b, strlen(b), true, &exp) &&
			    exp == 200,
		    "its end moved");
	ASSERT_EQ(bw_live_expire(&l, f.mem, 150), 0, "not at 150 any more");
	ASSERT_EQ(bw_live_expire(&l, f.mem, 200), 1, "*.b ends at 200");
	ASSERT_FALSE(name_found(f.mem, b, true), "*.b out of the blocks");
	ASSERT_TRUE(
		!memcmp(f.base, f.mem, (size_t)f.plan.nblocks * BW_BLOCK_BYTES),
		"the filter is as built again after the expiry");
	ASSERT_ERR(bw_live_add_name(&l, f.mem, b, 0, false, 0),
		   "an empty name refused");
out:
	bw_live_free(&l);
	nfix_free(&f);
}

/*
 * A filter built with no names at all but room for them has its DNS
 * block and both name regions; one with neither has none, and a live
 * name then has no region (-ENOENT, nothing kept).
 */
BW_TEST(test_live_names_room_only)
{
	const char *a = "only.example.test";
	struct bw_live l;
	struct nfix f;

	bw_live_init(&l);
	if (!ASSERT_OK(nfix_init(&f, 79, 5, false), "room only"))
		goto out;
	ASSERT_TRUE(f.plan.hdr.flags & BW_F_DNS, "a DNS block for the room");
	ASSERT_TRUE(f.plan.dns.region_end[BW_NAME_EXACT] >
			    bw_name_region_start(&f.plan.hdr, &f.plan.dns,
						 BW_NAME_EXACT),
		    "an exact region");
	ASSERT_TRUE(f.plan.dns.region_end[BW_NAME_SUBTREE] >
			    f.plan.dns.region_end[BW_NAME_EXACT],
		    "a subtree region");
	ASSERT_OK(bw_live_layout(&l, f.mem), "layout");
	ASSERT_OK(bw_live_add_name(&l, f.mem, a, strlen(a), true, 0), "add");
	ASSERT_TRUE(name_found(f.mem, a, true), "found with no list names");
	ASSERT_OK(bw_live_del_name(&l, f.mem, a, strlen(a), true), "del");
	ASSERT_FALSE(name_found(f.mem, a, true), "gone");
	bw_live_free(&l);
	nfix_free(&f);

	bw_live_init(&l);
	if (!ASSERT_OK(nfix_init(&f, 80, 0, false), "no names, no room"))
		goto out;
	ASSERT_FALSE(f.plan.hdr.flags & BW_F_DNS, "no DNS block");
	ASSERT_OK(bw_live_layout(&l, f.mem), "layout");
	ASSERT_ERR(bw_live_add_name(&l, f.mem, a, strlen(a), false, 0),
		   "no region: refused");
	ASSERT_EQ(l.names.n, 0, "nothing kept");
out:
	bw_live_free(&l);
	nfix_free(&f);
}

/*
 * The rebuild's hand-over: bases snapshotted from the new filter, a name
 * deleted while the set is stale (nothing written), then the rebase
 * writes the name's block back as its base: the name no longer matches.
 */
BW_TEST(test_live_names_rebase)
{
	const char *a = "r.example.test";
	struct bw_live_rec *recs = NULL;
	struct bw_live l;
	struct nfix f;
	size_t n;

	bw_live_init(&l);
	if (!ASSERT_OK(nfix_init(&f, 81, 64, true), "fixture"))
		goto out;
	ASSERT_OK(bw_live_layout(&l, f.mem), "layout");
	ASSERT_OK(bw_live_add_name(&l, f.mem, a, strlen(a), false, 0), "add");
	n = bw_live_nblocks(&l);
	ASSERT_EQ(n, 1, "one block");
	recs = calloc(n, sizeof(*recs));
	if (!ASSERT_TRUE(recs != NULL, "recs"))
		goto out;
	bw_live_snapshot(&l, recs);
	ASSERT_TRUE(name_found(f.mem, a, false), "set by the add");
	l.stale = true;
	ASSERT_OK(bw_live_del_name(&l, f.mem, a, strlen(a), false), "del");
	ASSERT_TRUE(name_found(f.mem, a, false), "stale: not written yet");
	ASSERT_OK(bw_live_rebase(&l, f.mem, recs, n), "rebase");
	ASSERT_FALSE(name_found(f.mem, a, false), "written back as its base");
	ASSERT_TRUE(
		!memcmp(f.base, f.mem, (size_t)f.plan.nblocks * BW_BLOCK_BYTES),
		"the filter is as built");
out:
	free(recs);
	bw_live_free(&l);
	nfix_free(&f);
}
