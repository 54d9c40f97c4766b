// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's adopted adds (user/daemon/live_rec.c) kept through the
 * index of the records (user/filter/records_index.c): the watch's own
 * add or remove of R entries visits O(R) of the record area's entries,
 * not the N it holds (bw_records_visits counts them: work, not time);
 * the set kept that way is exactly the one a full read of the records
 * gives, through new ends, ended adds, removes and adds again, and names
 * under --subdomains with both forms of one text; another writer's
 * change is seen, and a full sync follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/live_rec.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_log.h"
#include "filter/records_read.h"
#include "filter/records_write.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

#define NOW 1800000000ULL

struct area {
	void *mem;
	__u32 nblocks;
};

/* A small filter (10.0.0.1, seed 7) with w's area and its log's room. */
static bool area_make(struct area *a, const struct bw_records *w)
{
	struct bw_build_opts o = { .fpr = 0.001,
				   .seed = 7,
				   .flags = BW_F_MATCH_SRC };
	__u32 extra = bw_records_blocks(w) + bw_records_room(w);
	struct bw_list_opts lo = {};
	char err[BW_ERRLEN];
	struct bw_plan plan;
	struct bw_list l;

	a->mem = NULL;
	bw_list_init(&l);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_finish(&l);
	if (!bw_plan_filter(&l, &o, &plan)) {
		a->nblocks = plan.nblocks + extra;
		a->mem = calloc(a->nblocks, BW_BLOCK_BYTES);
		if (a->mem)
			bw_fill_filter(a->mem, &plan, &l);
	}
	bw_list_free(&l);
	return a->mem && !bw_records_write(a->mem, a->nblocks, w);
}

static struct bw_prefix prefix(const char *fmt, unsigned x, unsigned y)
{
	char s[64], err[BW_ERRLEN];
	struct bw_prefix p;

	memset(&p, 0, sizeof(p));
	snprintf(s, sizeof(s), fmt, x, y);
	bw_parse_prefix(s, &p, err, sizeof(err));
	return p;
}

/* ---- a set as sorted lines, to compare two ------------------------------ */

struct dump {
	char **v;
	size_t n, cap;
};

static int line(struct dump *d, const char *s)
{
	char **v;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		v = realloc(d->v, d->cap * sizeof(*v));
		if (!v)
			return -1;
		d->v = v;
	}
	d->v[d->n] = strdup(s);
	return d->v[d->n++] ? 0 : -1;
}

static int dump_prefix(void *ctx, const struct bw_prefix *p, __u32 refs,
		       __u64 expires)
{
	char s[128], t[64];

	bw_prefix_str(p, t, sizeof(t));
	snprintf(s, sizeof(s), "%s refs %u ends %llu", t, refs,
		 (unsigned long long)expires);
	return line(ctx, s);
}

static int dump_name(void *ctx, const char *name, size_t len, bool subtree,
		     __u32 refs, __u64 expires)
{
	char s[400];

	snprintf(s, sizeof(s), "%s%.*s refs %u ends %llu", subtree ? "*." : "",
		 (int)len, name, refs, (unsigned long long)expires);
	return line(ctx, s);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the two sets hold the same entries, each as often, same end. */
static bool same_sets(const struct bw_live *x, const struct bw_live *y)
{
	struct dump d[2] = {};
	const struct bw_live *s[2] = { x, y };
	bool same;
	size_t i, j;

	for (i = 0; i < 2; i++) {
		bw_live_each(s[i], dump_prefix, &d[i]);
		bw_live_each_name(s[i], dump_name, &d[i]);
		qsort(d[i].v, d[i].n, sizeof(*d[i].v), cmp_line);
	}
	same = d[0].n == d[1].n;
	for (i = 0; same && i < d[0].n; i++)
		same = !strcmp(d[0].v[i], d[1].v[i]);
	if (!same)
		for (i = 0; i < 2; i++)
			for (j = 0; j < d[i].n; j++)
				fprintf(stderr, "    set %zu: %s\n", i,
					d[i].v[j]);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < d[i].n; j++)
			free(d[i].v[j]);
		free(d[i].v);
	}
	return same;
}

/* Whether a full sync of a's records gives the set that set is. */
static bool as_full_sync(const struct area *a, const struct bw_live *set)
{
	struct bw_adopted fresh;
	struct bw_live full;
	__u64 next;
	bool same;

	bw_adopted_init(&fresh);
	bw_live_init(&full);
	same = !bw_adopted_sync(&fresh, &full, a->mem, a->nblocks, NULL, false,
				NOW, &next) &&
	       same_sets(set, &full);
	bw_live_free(&full);
	bw_adopted_free(&fresh);
	return same;
}

/* ---- 100,000 held: the watch's own changes visit what they change ------- */

#define HELD 100000

BW_TEST(test_adopted_own_changes_linear)
{
	struct bw_entries in, one, out;
	struct bw_adopted ad;
	struct bw_records w;
	struct area a = {};
	struct bw_prefix p;
	struct bw_live set;
	__u64 v0, next, room, left, left2;
	bool *found = NULL;
	size_t i;
	long k;

	bw_records_init(&w);
	bw_entries_init(&in);
	bw_entries_init(&one);
	bw_entries_init(&out);
	bw_adopted_init(&ad);
	bw_live_init(&set);
	for (i = 0; i < HELD; i++) {
		p = prefix("2001:db8:%x:%x::/64", (unsigned)(i >> 16),
			   (unsigned)(i & 0xffff));
		bw_entries_push(&in, bw_key_prefix(&p), 0);
		if (i < 5000)
			bw_entries_push(&out, bw_key_prefix(&p), 0);
	}
	if (!ASSERT_OK(bw_records_add_all(&w, &in), "the records") ||
	    !ASSERT_TRUE(area_make(&a, &w), "the area"))
		goto out;
	v0 = bw_records_visits;
	ASSERT_OK(bw_adopted_sync(&ad, &set, a.mem, a.nblocks, NULL, false, NOW,
				  &next),
		  "a full sync");
	ASSERT_EQ(bw_live_count(&set), HELD, "every add adopted");
	ASSERT_GE(bw_records_visits - v0, HELD, "a full sync visits them all");
	ASSERT_TRUE(bw_adopted_indexed(&ad), "and indexes them");

	/* One add among 100,000: a visit or two, not 100,000. */
	p = prefix("192.0.%u.%u", 2, 1);
	bw_entries_push(&one, bw_key_prefix(&p), NOW + 100);
	v0 = bw_records_visits;
	ASSERT_OK(bw_adopted_append(&ad, a.mem, a.nblocks, &one, NULL),
		  "append");
	ASSERT_TRUE(bw_adopted_indexed(&ad), "the index follows");
	ASSERT_OK(bw_adopted_apply(&ad, &set, NULL, &one, NOW), "apply");
	ASSERT_LE(bw_records_visits - v0, 2, "one add: O(1) entries visited");
	ASSERT_TRUE(bw_live_has(&set, &p, NULL), "adopted");

	/* A thousand single adds (fail2ban's bans): O(1) each. */
	v0 = bw_records_visits;
	for (i = 0; i < 1000; i++) {
		bw_entries_free(&one);
		p = prefix("198.51.%u.%u", (unsigned)(i >> 8),
			   (unsigned)(i & 255));
		bw_entries_push(&one, bw_key_prefix(&p), 0);
		if (bw_adopted_append(&ad, a.mem, a.nblocks, &one, NULL) ||
		    bw_adopted_apply(&ad, &set, NULL, &one, NOW))
			break;
	}
	ASSERT_EQ(i, 1000, "each added through the index");
	ASSERT_LE(bw_records_visits - v0, 2 * 1000, "1,000 adds: O(1) each");
	ASSERT_EQ(bw_live_count(&set), HELD + 1001, "all adopted");
	v0 = bw_records_visits;
	ASSERT_OK(bw_records_log_room(a.mem, a.nblocks, &room, &left),
		  "the log's room by a walk");
	ASSERT_GE(bw_records_visits - v0, 1001, "walks its 1,001 heads");
	v0 = bw_records_visits;
	ASSERT_OK(bw_adopted_log_room(&ad, a.mem, a.nblocks, &room, &left2),
		  "by the index");
	ASSERT_EQ(bw_records_visits - v0, 0, "walks none");
	ASSERT_EQ(left2, left, "the same room left");

	/* A remove of 5,000 of them: O(5,000). */
	found = calloc(out.n, sizeof(*found));
	if (!ASSERT_TRUE(found != NULL, "memory"))
		goto out;
	v0 = bw_records_visits;
	k = bw_adopted_mark(&ad, a.mem, a.nblocks, &out, found);
	ASSERT_EQ(k, 5000, "5,000 marked");
	ASSERT_TRUE(found[0] && found[4999], "each found");
	ASSERT_OK(bw_adopted_apply(&ad, &set, NULL, &out, NOW), "apply");
	ASSERT_LE(bw_records_visits - v0, 2 * 5000, "O(5,000) visited");
	ASSERT_EQ(bw_records_marks(a.mem, a.nblocks), 5000, "counted");
	ASSERT_EQ(bw_live_count(&set), HELD + 1001 - 5000, "taken out");
	ASSERT_FALSE(bw_adopted_moved(&ad, a.mem, a.nblocks),
		     "its own changes: nothing moved");
	ASSERT_TRUE(as_full_sync(&a, &set), "what a full read gives");

	/* Another writer's mark: seen, and a full sync follows. */
	p = prefix("2001:db8:%x:%x::/64", 1, 7);
	ASSERT_EQ(bw_records_mark_gone(a.mem, a.nblocks, bw_key_prefix(&p)), 1,
		  "another command's remove");
	ASSERT_TRUE(bw_adopted_moved(&ad, a.mem, a.nblocks), "seen");
	bw_entries_free(&one);
	p = prefix("203.0.%u.%u", 113, 9);
	bw_entries_push(&one, bw_key_prefix(&p), 0);
	ASSERT_OK(bw_adopted_append(&ad, a.mem, a.nblocks, &one, NULL),
		  "an append all the same");
	ASSERT_FALSE(bw_adopted_indexed(&ad), "not through a stale index");
	ASSERT_EQ(bw_adopted_apply(&ad, &set, NULL, &one, NOW), -ESTALE,
		  "no apply without it");
	ASSERT_OK(bw_adopted_sync(&ad, &set, a.mem, a.nblocks, NULL, false, NOW,
				  &next),
		  "the full sync");
	ASSERT_TRUE(bw_adopted_indexed(&ad), "indexed again");
	ASSERT_EQ(bw_live_count(&set), HELD + 1001 - 5000, "one out, one in");
	ASSERT_TRUE(as_full_sync(&a, &set), "as a full read");
out:
	free(found);
	free(a.mem);
	bw_live_free(&set);
	bw_adopted_free(&ad);
	bw_entries_free(&in);
	bw_entries_free(&one);
	bw_entries_free(&out);
	bw_records_free(&w);
}

/* ---- any sequence: the set a full read gives ------------------------------ */

/* A small generator of its own: the same sequence on every run. */
static __u32 rnd(__u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (__u32)(*x >> 32);
}

/* Entry j of the pool: four prefixes, then names, exact and subtree. */
static struct bw_entry_key pool_key(unsigned j, struct bw_prefix *p)
{
	static const char *const names[] = { "a.test", "b.test", "c.test" };

	if (j < 4) {
		*p = prefix("10.9.%u.%u", 0, j + 1);
		return bw_key_prefix(p);
	}
	j -= 4;
	return bw_key_name(names[j / 2], 6, j % 2 ? BW_DOM_SUBTREE : 0);
}

#define POOL 10

/*
 * Adds (with no end, an end, one past, a new end), removes, both forms
 * of a name under --subdomains and not: after each, the set kept through
 * the index is the one a full read of the records gives.
 */
static void matches_sync(bool subdomains)
{
	static const __u64 ends[] = { 0, NOW - 5, NOW + 10, NOW + 20 };
	struct bw_entries s, start;
	struct bw_adopted ad;
	struct bw_records w;
	struct area a = {};
	struct bw_prefix p;
	struct bw_live set;
	bool found[3], ok = true;
	__u64 x = 0x9e3779b97f4a7c15ULL, next;
	unsigned step, i, n;

	bw_records_init(&w);
	bw_entries_init(&start);
	bw_adopted_init(&ad);
	bw_live_init(&set);
	w.have_dns = true;
	w.dns.opts = subdomains ? BW_REC_DNS_SUBDOMAINS : 0;
	/* The records as built: half the pool, some with an end. */
	for (i = 0; i < POOL; i += 2)
		bw_entries_push(&start, pool_key(i, &p), ends[i % 4]);
	if (!ASSERT_OK(bw_records_add_all(&w, &start), "the records") ||
	    !ASSERT_TRUE(area_make(&a, &w), "the area") ||
	    !ASSERT_OK(bw_adopted_sync(&ad, &set, a.mem, a.nblocks, NULL, false,
				       NOW, &next),
		       "a full sync"))
		goto out;
	for (step = 0; ok && step < 300; step++) {
		bw_entries_init(&s);
		n = 1 + rnd(&x) % 3;
		for (i = 0; i < n; i++)
			bw_entries_push(&s, pool_key(rnd(&x) % POOL, &p),
					ends[rnd(&x) % 4]);
		if (rnd(&x) % 3)
			ok = !bw_adopted_append(&ad, a.mem, a.nblocks, &s,
						NULL);
		else
			ok = bw_adopted_mark(&ad, a.mem, a.nblocks, &s,
					     found) >= 0;
		ok = ok && bw_adopted_indexed(&ad) &&
		     !bw_adopted_apply(&ad, &set, NULL, &s, NOW) &&
		     as_full_sync(&a, &set);
		bw_entries_free(&s);
	}
	ASSERT_EQ(step, 300, "every step as a full read gives");
	ASSERT_TRUE(ok, "the last one too");
out:
	free(a.mem);
	bw_live_free(&set);
	bw_adopted_free(&ad);
	bw_entries_free(&start);
	bw_records_free(&w);
}

BW_TEST(test_adopted_apply_matches_sync)
{
	matches_sync(false);
	matches_sync(true);
}
