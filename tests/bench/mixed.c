// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The real mixed list (FireHOL level 4: bare addresses and CIDRs) for the
 * LPM trie and bloomwall. Listed sources are random addresses inside random
 * entries of the list; unlisted ones are random addresses that no entry
 * covers (checked against the merged ranges of the list).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_extra.h"
#include "bench_set.h"
#include "lists/list.h"
#include "lists/list_load.h"

struct range {
	__u32 lo, hi;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static __u32 host_mask(__u32 plen)
{
	return plen >= 32 ? 0 : 0xffffffffU >> plen;
}

/* Sorted, merged address ranges of the list; returns their number. */
static size_t make_ranges(const __u64 *keys, size_t n, struct range *r)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		r[i].lo = bw_v4key_addr(keys[i]) &
			  ~host_mask(bw_v4key_plen(keys[i]));
		r[i].hi = r[i].lo | host_mask(bw_v4key_plen(keys[i]));
	}
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 0; i < n; i++) {
		if (m && (__u64)r[m - 1].hi + 1 >= r[i].lo) {
			if (r[i].hi > r[m - 1].hi)
				r[m - 1].hi = r[i].hi;
			continue;
		}
		r[m++] = r[i];
	}
	return m;
}

static bool covered(const struct range *r, size_t n, __u32 a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && a <= r[lo - 1].hi;
}

/* xorshift64*, fixed seed: the same sources on every run. */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void make_sources(struct bench_set *s, const __u64 *keys, size_t n)
{
	struct range *r = bench_alloc(n * sizeof(*r));
	__u64 st = BENCH_SEED, k;
	size_t m = make_ranges(keys, n, r);
	__u32 i, j = 0, a;

	s->nl = s->nu = BENCH_SRCS_MAX;
	s->listed = bench_alloc(s->nl * sizeof(__u32));
	s->unlisted = bench_alloc(s->nu * sizeof(__u32));
	for (i = 0; i < s->nl; i++) {
		k = keys[rnd(&st) % n];
		a = bw_v4key_addr(k) & ~host_mask(bw_v4key_plen(k));
		s->listed[i] =
			a | ((__u32)rnd(&st) & host_mask(bw_v4key_plen(k)));
	}
	for (i = 0; i < s->nu; j++) {
		a = bench_perm(j);
		if (!covered(r, m, a))
			s->unlisted[i++] = a;
	}
	free(r);
}

int mixed_set(const struct bench_cfg *cfg, struct bench_set *s,
	      const char *path)
{
	struct bw_list_opts lo = {};
	struct bw_list l;
	int err;

	bw_list_init(&l);
	err = bw_list_load(&l, path, &lo);
	if (err || !l.n4) {
		fprintf(stderr,
			"bench: %s: cannot read the mixed list, its rows are missing\n",
			path);
		bw_list_free(&l);
		return 0;
	}
	snprintf(s->label, sizeof(s->label), "%s (%zu entries, mixed)",
		 strrchr(path, '/') ? strrchr(path, '/') + 1 : path, l.n4);
	s->n = l.n4;
	make_sources(s, l.v4, l.n4);
	err = run_set(cfg, s, l.v4, l.n4, true);
	bw_list_free(&l);
	return err;
}
