// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Sizing and filling of blocked Bloom filters, and the userspace twin of the
 * data path's lookup. The bit derivation itself lives in include/bw_hash.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "bloom.h"
#include "log.h"

#define V4_HOST_LEN 32
#define V6_HOST_LEN 128

void bw_build_opts_init(struct bw_build_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fpr = BW_DEFAULT_FPR;
	o->flags = BW_F_MATCH_SRC;
	/*
	 * A fresh seed per build moves false positives around: an address that
	 * collides today is unlikely to collide after the next reload.
	 */
	if (getrandom(&o->seed, sizeof(o->seed), GRND_NONBLOCK) !=
	    sizeof(o->seed))
		o->seed = (__u32)time(NULL) ^ (__u32)getpid() * 0x9e3779b9U;
}

double bw_info_fpr(const struct bw_info *info)
{
	__u64 bits = (__u64)info->fpr_hi << 32 | info->fpr_lo;
	double fpr;

	/* A zero top word is the old parts-per-billion form (bw_layout.h). */
	if (!info->fpr_hi)
		return info->fpr_lo ? info->fpr_lo / 1e9 : BW_DEFAULT_FPR;
	memcpy(&fpr, &bits, sizeof(fpr));
	return fpr > 0.0 && fpr < 0.5 ? fpr : BW_DEFAULT_FPR;
}

void bw_info_set_fpr(struct bw_info *info, double fpr)
{
	__u64 bits;

	memcpy(&bits, &fpr, sizeof(bits));
	info->fpr_lo = (__u32)bits;
	info->fpr_hi = (__u32)(bits >> 32);
}

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
		       int family, double fpr, __u32 *next_block)
{
	int maxlen = family == BW_V4 ? V4_HOST_LEN : V6_HOST_LEN;
	__u64 count[V6_HOST_LEN + 1], total = 0;
	struct bw_hdr *hdr = &plan->hdr;
	int len, n = 0, err;
	double share;

	count_lengths(l, family, count);
	for (len = 0; len <= maxlen; len++)
		total += count[len];
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
		err = bw_size_region(count[len], share, &nblocks,
				     &hdr->probes[r]);
		if (err)
			return err;
		hdr->plen[family][n] = len;
		plan->info.region_entries[r] = count[len];
		*next_block += nblocks;
		hdr->region_end[r] = *next_block;
		n++;
	}
	hdr->nlengths[family] = n;
	for (; n < BW_MAX_LENGTHS; n++)
		hdr->region_end[family * BW_MAX_LENGTHS + n] = *next_block;
	return 0;
}

int bw_plan_filter(const struct bw_list *l, const struct bw_build_opts *o,
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
	err = plan_family(plan, l, BW_V4, o->fpr, &next);
	if (err)
		return err;
	err = plan_family(plan, l, BW_V6, o->fpr, &next);
	if (err)
		return err;
	if (next > BW_MAX_BLOCKS)
		return -E2BIG;
	plan->nblocks = next;
	plan->info.entries = l->n4 + l->n6;
	plan->info.source_entries = l->n4 + l->n6;
	bw_info_set_fpr(&plan->info, o->fpr);
	return 0;
}

static inline struct bw_block *block_at(const void *mem, __u32 idx)
{
	return (struct bw_block *)((char *)mem + (size_t)idx * BW_BLOCK_BYTES);
}

/* Region of a family's target length, or -1. */
static int region_of(const struct bw_hdr *hdr, int family, __u32 plen)
{
	int i;

	for (i = 0; i < hdr->nlengths[family] && i < BW_MAX_LENGTHS; i++)
		if (hdr->plen[family][i] == plen)
			return family * BW_MAX_LENGTHS + i;
	return -1;
}

__u64 bw_key_hash(const struct bw_hdr *hdr, const struct bw_prefix *key)
{
	if (key->family == BW_V4)
		return bw_hash_v4((__u32)key->lo, key->plen, hdr->seed);
	return bw_hash_v6(key->hi, key->lo, key->plen, hdr->seed);
}

/* Block of a key's hash inside region r. */
static struct bw_block *key_block(const void *mem, int r, __u64 hash)
{
	const struct bw_hdr *hdr = mem;
	__u32 start = bw_region_start(hdr, r);

	return block_at(
		mem, start + bw_block_index(hash, hdr->region_end[r] - start));
}

/*
 * Hashes a batch first and prefetches its blocks: a big filter is far larger
 * than the cache, and the misses then overlap instead of queueing.
 */
#define FILL_BATCH 16

static void fill_v4(void *mem, const struct bw_list *l)
{
	const struct bw_hdr *hdr = mem;
	struct bw_block *blk[FILL_BATCH];
	__u64 hash[FILL_BATCH];
	int region[FILL_BATCH], rmap[V4_HOST_LEN + 1];
	size_t i, j, n;
	__u32 len;

	for (len = 0; len <= V4_HOST_LEN; len++)
		rmap[len] = region_of(hdr, BW_V4, len);
	for (i = 0; i < l->n4; i += n) {
		n = l->n4 - i < FILL_BATCH ? l->n4 - i : FILL_BATCH;
		for (j = 0; j < n; j++) {
			__u64 key = l->v4[i + j];

			len = bw_v4key_plen(key);
			region[j] = rmap[len];
			hash[j] =
				bw_hash_v4(bw_v4key_addr(key), len, hdr->seed);
			blk[j] = key_block(mem, region[j], hash[j]);
			__builtin_prefetch(blk[j], 1);
		}
		for (j = 0; j < n; j++)
			bw_block_set(blk[j], hash[j], hdr->probes[region[j]]);
	}
}

static void fill_v6(void *mem, const struct bw_list *l)
{
	const struct bw_hdr *hdr = mem;
	size_t i;

	for (i = 0; i < l->n6; i++) {
		const struct bw_v6key *k = &l->v6[i];
		int r = region_of(hdr, BW_V6, k->plen);
		__u64 hash = bw_hash_v6(k->hi, k->lo, k->plen, hdr->seed);

		bw_block_set(key_block(mem, r, hash), hash, hdr->probes[r]);
	}
}

void bw_fill_filter(void *mem, const struct bw_plan *plan,
		    const struct bw_list *l)
{
	memcpy(mem, &plan->hdr, sizeof(plan->hdr));
	memcpy(block_at(mem, 1), &plan->info, sizeof(plan->info));
	fill_v4(mem, l);
	fill_v6(mem, l);
}

int bw_filter_lookup(const void *mem, const struct bw_prefix *addr, int *region)
{
	const struct bw_hdr *hdr = mem;
	struct bw_prefix key = *addr;
	int i, r, family = addr->family;
	__u64 hash;

	for (i = 0; i < hdr->nlengths[family] && i < BW_MAX_LENGTHS; i++) {
		r = family * BW_MAX_LENGTHS + i;
		if (hdr->region_end[r] == bw_region_start(hdr, r))
			continue;
		key.plen = hdr->plen[family][i];
		hash = bw_key_hash(hdr, &key);
		if (bw_block_test(key_block(mem, r, hash), hash,
				  hdr->probes[r])) {
			if (region)
				*region = r;
			return 1;
		}
	}
	return 0;
}

int bw_filter_insert(void *mem, const struct bw_prefix *key)
{
	const struct bw_hdr *hdr = mem;
	int region = region_of(hdr, key->family, key->plen);
	struct bw_block *blk;
	__u64 hash, bits, mask, old;
	unsigned int r, w;
	int fresh = 0;

	if (region < 0 ||
	    hdr->region_end[region] == bw_region_start(hdr, region))
		return -ENOENT;
	hash = bw_key_hash(hdr, key);
	blk = key_block(mem, region, hash);
	/* Bits only go 0 -> 1, so readers never see a key half-removed. */
	for (r = 0;
	     r * BW_ROUND_PROBES < hdr->probes[region] && r < BW_MAX_ROUNDS;
	     r++) {
		bits = bw_round_bits(hash, r);
		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			mask = 1ULL << bw_round_bit(bits, w);
			old = __atomic_fetch_or(&blk->w[w], mask,
						__ATOMIC_RELAXED);
			if (!(old & mask))
				fresh = 1;
		}
	}
	return fresh;
}

void bw_region_fill(const void *mem, int region, __u64 *bits_set,
		    __u64 *bits_total, double *fpr)
{
	const struct bw_hdr *hdr = mem;
	__u32 start = bw_region_start(hdr, region);
	__u32 end = hdr->region_end[region], b;
	double per_word = (double)hdr->probes[region] / BW_ROUND_PROBES;
	double sum = 0.0;
	__u64 set = 0;
	int w;

	for (b = start; b < end; b++) {
		const struct bw_block *blk = block_at(mem, b);
		double hit = 1.0;

		/* A non-member hits each word's set bits k / 8 times. */
		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			unsigned int pop = __builtin_popcountll(blk->w[w]);

			set += pop;
			hit *= pow(pop / 64.0, per_word);
		}
		sum += hit;
	}
	*bits_set = set;
	*bits_total = (__u64)(end - start) * BW_BLOCK_BITS;
	*fpr = end > start ? sum / (end - start) : 0.0;
}

int bw_filter_check(const void *mem, __u32 nblocks)
{
	const struct bw_hdr *hdr = mem;
	__u32 prev = BW_HDR_BLOCKS;
	int f, i, r;

	if (nblocks < BW_HDR_BLOCKS || !bw_hdr_valid(hdr))
		return -EINVAL;
	for (f = 0; f < BW_FAMILIES; f++) {
		if (hdr->nlengths[f] > BW_MAX_LENGTHS)
			return -EINVAL;
		for (i = 0; i < BW_MAX_LENGTHS; i++) {
			r = f * BW_MAX_LENGTHS + i;
			if (hdr->region_end[r] < prev)
				return -EINVAL;
			prev = hdr->region_end[r];
			if (i >= hdr->nlengths[f])
				continue;
			if (hdr->plen[f][i] > (f == BW_V4 ? 32 : 128) ||
			    !hdr->probes[r] || hdr->probes[r] > BW_MAX_PROBES ||
			    hdr->probes[r] % BW_ROUND_PROBES)
				return -EINVAL;
		}
	}
	return prev <= nblocks ? 0 : -EINVAL;
}
