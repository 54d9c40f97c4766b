// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Sizing of blocked Bloom filters: the Poisson model of a region's
 * false-positive rate, blocks and probes per region, the layout of a
 * filter's regions, and for small regions a trial fill that grows them
 * until they meet their share of the target.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/bloom_size.h"

#define V4_HOST_LEN 32
#define V6_HOST_LEN 128

/*
 * Chance that all k probes of a non-member hit set bits in a block of i
 * keys: each of the eight 64-bit words takes k / 8 bits of every key.
 */
static double block_fpr(double keys, unsigned int k)
{
	double per_word = (double)k / BW_ROUND_PROBES;
	double fill = 1.0 - pow(1.0 - 1.0 / 64, per_word * keys);

	return pow(fill, k);
}

double bw_model_fpr(__u64 n, __u32 nblocks, unsigned int probes)
{
	double lambda, sum = 0.0, mass = 0.0;
	unsigned int i, imax;

	if (!n)
		return 0.0;
	if (!nblocks)
		return 1.0;
	lambda = (double)n / nblocks;
	/* Far past what a block holds every bit is set: skip the long sum. */
	if (lambda > 4.0 * BW_BLOCK_BITS)
		return 1.0;
	/* Keys per block are Poisson(lambda); sum well past the bulk. */
	imax = (unsigned int)(lambda + 12.0 * sqrt(lambda) + 30.0);
	for (i = 0; i <= imax; i++) {
		double p = exp(-lambda + i * log(lambda) - lgamma(i + 1.0));

		mass += p;
		sum += p * block_fpr(i, probes);
	}
	/* The tail beyond imax is all but empty; count it as full blocks. */
	return sum + (mass < 1.0 ? 1.0 - mass : 0.0);
}

/* Fewest blocks that meet fpr with k probes, or 0 if none up to the max. */
static __u32 blocks_for(__u64 n, double fpr, unsigned int k)
{
	__u32 lo = 1, hi = BW_MAX_BLOCKS;

	if (bw_model_fpr(n, hi, k) > fpr)
		return 0;
	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (bw_model_fpr(n, mid, k) <= fpr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int bw_size_region(__u64 n, double fpr, __u32 *nblocks, __u8 *probes)
{
	__u32 best = 0, m;
	unsigned int k;

	*nblocks = 0;
	*probes = BW_ROUND_PROBES;
	if (!n)
		return 0;
	/* Fewest blocks wins; on a tie fewer probes, which cost less per hit. */
	for (k = BW_ROUND_PROBES; k <= BW_MAX_PROBES; k += BW_ROUND_PROBES) {
		m = blocks_for(n, fpr, k);
		if (m && (!best || m < best)) {
			best = m;
			*probes = k;
		}
	}
	if (!best)
		return -E2BIG;
	*nblocks = best;
	return 0;
}

__u64 bw_size_max_keys(double fpr)
{
	__u64 lo = 0, hi = (__u64)BW_MAX_BLOCKS * BW_BLOCK_BITS, mid;
	unsigned int k;
	bool fits;

	if (!(fpr > 0.0 && fpr < 0.5))
		return 0;
	/* Fewer bits a key than one is never below 0.5: hi does not fit. */
	while (lo + 1 < hi) {
		mid = lo + (hi - lo) / 2;
		fits = false;
		for (k = BW_ROUND_PROBES; k <= BW_MAX_PROBES && !fits;
		     k += BW_ROUND_PROBES)
			fits = bw_model_fpr(mid, BW_MAX_BLOCKS, k) <= fpr;
		if (fits)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Regions of up to this many keys are filled once more while planning and
 * grown until their own fill meets their share. The model gives the mean
 * over seeds; a region of a few blocks strays far from it (183 keys in 6
 * blocks measured 0.174 % for a 0.1 % target), one of 2,000 blocks by a
 * few percent, one of millions not measurably, and filling it twice would
 * cost a second pass over memory: big lists keep the model's size.
 */
#define FIT_MAX_KEYS (1U << 16)

/* Hashes of one region's keys (family, length len), for fit_region. */
static __u64 *region_hashes(const struct bw_list *l, int family, int len,
			    __u32 seed, __u64 n)
{
	__u64 *h = malloc(n * sizeof(*h)), k = 0;
	size_t i;

	if (!h)
		return NULL;
	if (family == BW_V4) {
		for (i = 0; i < l->n4 && k < n; i++)
			if ((int)bw_v4key_plen(l->v4[i]) == len)
				h[k++] = bw_hash_v4(bw_v4key_addr(l->v4[i]),
						    len, seed);
		return h;
	}
	for (i = 0; i < l->n6 && k < n; i++)
		if ((int)l->v6[i].plen == len)
			h[k++] =
				bw_hash_v6(l->v6[i].hi, l->v6[i].lo, len, seed);
	return h;
}

/*
 * Grows *nblocks until the region, filled with these hashes exactly as
 * bw_fill_filter will fill it, estimates at most share (bw_region_fill's
 * figure). Growing redraws every key's block, so the fill changes as a new
 * seed would change it; for a given seed the result is always the same.
 */
static int fit_region(const __u64 *hash, __u64 n, double share,
		      unsigned int probes, __u32 *nblocks)
{
	struct bw_block *blk;
	__u32 m = *nblocks;
	__u64 i, set;
	double fpr;

	for (;;) {
		blk = calloc(m, sizeof(*blk));
		if (!blk)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			bw_block_set(&blk[bw_block_index(hash[i], m)], hash[i],
				     probes);
		set = 0;
		fpr = bw_blocks_fpr(blk, m, probes, &set);
		free(blk);
		if (fpr <= share)
			break;
		/* Small steps: each costs a fill of at most FIT_MAX_KEYS. */
		if (m > BW_MAX_BLOCKS - 1 - m / 64)
			return -E2BIG;
		m += 1 + m / 64;
	}
	*nblocks = m;
	return 0;
}

int bw_size_fit(const __u64 *hash, __u64 n, double share, __u32 *nblocks,
		__u8 *probes)
{
	int err = bw_size_region(n, share, nblocks, probes);

	if (err || n > FIT_MAX_KEYS)
		return err;
	return fit_region(hash, n, share, *probes, nblocks);
}

/* n keys: the list's nlist of this length, then stand-ins for the room. */
static int size_and_fit(const struct bw_list *l, int family, int len,
			__u32 seed, __u64 nlist, __u64 n, double share,
			__u32 *nblocks, __u8 *probes)
{
	__u64 *hash, i, x = seed ^ ((__u64)len << 32 | (__u64)family << 40);
	int err;

	err = bw_size_region(n, share, nblocks, probes);
	if (err || n > FIT_MAX_KEYS)
		return err;
	hash = region_hashes(l, family, len, seed, n);
	if (!hash)
		return -ENOMEM;
	/* Stand-ins for the keys the region has room for. */
	for (i = nlist; i < n; i++)
		hash[i] = bw_mix64(x + i);
	err = fit_region(hash, n, share, *probes, nblocks);
	free(hash);
	return err;
}

/* Entries per prefix length of one family, from a finished list. */
static void count_lengths(const struct bw_list *l, int family, __u64 *count)
{
	size_t i;

	if (family == BW_V4) {
		memset(count, 0, (V4_HOST_LEN + 1) * sizeof(*count));
		for (i = 0; i < l->n4; i++)
			count[bw_v4key_plen(l->v4[i])]++;
		return;
	}
	memset(count, 0, (V6_HOST_LEN + 1) * sizeof(*count));
	for (i = 0; i < l->n6; i++)
		count[l->v6[i].plen]++;
}

/* One family's regions, longest length first, from *next_block on. */
static int plan_family(struct bw_plan *plan, const struct bw_list *l,
		       int family, const struct bw_build_opts *o,
		       __u32 *next_block)
{
	int maxlen = family == BW_V4 ? V4_HOST_LEN : V6_HOST_LEN;
	__u64 count[V6_HOST_LEN + 1], nlist[V6_HOST_LEN + 1], total = 0;
	const __u64 *room = o->room[family];
	struct bw_hdr *hdr = &plan->hdr;
	int len, n = 0, err;
	double share, fpr = o->fpr;

	count_lengths(l, family, nlist);
	for (len = 0; len <= maxlen; len++) {
		count[len] = nlist[len] + (room ? room[len] : 0);
		total += count[len];
	}
	for (len = maxlen; len >= 0; len--) {
		int r = family * BW_MAX_LENGTHS + n;
		__u32 nblocks;

		if (!count[len])
			continue;
		if (n == BW_MAX_LENGTHS) {
			pr_warn("%s list has more than %d prefix lengths\n",
				family == BW_V4 ? "IPv4" : "IPv6",
				BW_MAX_LENGTHS);
			return -E2BIG;
		}
		/* Minimum total size splits the target in proportion to n. */
		share = fpr * count[len] / total;
		/*
		 * A false key at a short length passes 2^-len of all addresses
		 * at once. Where one such key alone would be a sizeable part of
		 * the target, keep the chance of any false key under 0.1 %.
		 */
		if (ldexp(1.0, -len) > fpr / 16)
			share = fmin(share, 0.001 * ldexp(1.0, -len));
		err = size_and_fit(l, family, len, hdr->seed, nlist[len],
				   count[len], share, &nblocks,
				   &hdr->probes[r]);
		if (err)
			return err;
		hdr->plen[family][n] = len;
		plan->info.region_entries[r] = nlist[len];
		plan->sized[r] = count[len];
		*next_block += nblocks;
		hdr->region_end[r] = *next_block;
		n++;
	}
	hdr->nlengths[family] = n;
	for (; n < BW_MAX_LENGTHS; n++)
		hdr->region_end[family * BW_MAX_LENGTHS + n] = *next_block;
	return 0;
}

int bw_plan_prefixes(const struct bw_list *l, const struct bw_build_opts *o,
		     struct bw_plan *plan)
{
	__u32 next = BW_HDR_BLOCKS;
	int err;

	memset(plan, 0, sizeof(*plan));
	/* A subnormal rate would not read back apart from the old form. */
	if (!(isnormal(o->fpr) && o->fpr > 0.0 && o->fpr < 0.5))
		return -EINVAL;
	plan->hdr.magic = BW_MAGIC;
	plan->hdr.version = BW_VERSION;
	plan->hdr.flags = o->flags;
	plan->hdr.seed = o->seed;
	/* Each region is at most BW_MAX_BLOCKS: the sum cannot wrap. */
	err = plan_family(plan, l, BW_V4, o, &next);
	if (err)
		return err;
	err = plan_family(plan, l, BW_V6, o, &next);
	if (err)
		return err;
	if (next > BW_MAX_BLOCKS)
		return -E2BIG;
	plan->nblocks = next;
	return 0;
}
