// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filling of blocked Bloom filters, the userspace twin of the data path's
 * lookup, in-place inserts and fill estimates; sizing is in bloom_size.c.
 * The bit derivation itself lives in include/bw_hash.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "filter/bloom.h"
#include "lists/cidr.h"

#define V4_HOST_LEN 32

void bw_build_opts_init(struct bw_build_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fpr = BW_DEFAULT_FPR;
	o->flags = BW_F_MATCH_SRC;
	o->dns_action = BW_DNS_NULL;
	o->dns_ttl = BW_DEFAULT_DNS_TTL;
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

double bw_blocks_fpr(const struct bw_block *blk, __u32 n, unsigned int probes,
		     __u64 *set)
{
	double per_word = (double)probes / BW_ROUND_PROBES;
	double sum = 0.0;
	__u32 b;
	int w;

	for (b = 0; b < n; b++) {
		double hit = 1.0;

		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			unsigned int pop = __builtin_popcountll(blk[b].w[w]);

			*set += pop;
			hit *= pow(pop / 64.0, per_word);
		}
		sum += hit;
	}
	return n ? sum / n : 0.0;
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

	return bw_block_at(
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

void bw_fill_prefixes(void *mem, const struct bw_list *l)
{
	fill_v4(mem, l);
	fill_v6(mem, l);
}

const struct bw_dns_hdr *bw_filter_dns(const void *mem)
{
	const struct bw_hdr *hdr = mem;

	if (!(hdr->flags & BW_F_DNS))
		return NULL;
	return (const struct bw_dns_hdr *)bw_block_at(mem, bw_dns_block(hdr));
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

/*
 * An entry added at run time (`add` on a copy of the running filter, `load`
 * on an image's filter): the target length it goes to and its keys there.
 */
int bw_add_plan(const struct bw_hdr *hdr, const struct bw_prefix *p,
		struct bw_add_plan *ap)
{
	unsigned int i, len, best = 256;
	int r;

	ap->region = -1;
	for (i = 0; i < hdr->nlengths[p->family] && i < BW_MAX_LENGTHS; i++) {
		r = p->family * BW_MAX_LENGTHS + i;
		len = hdr->plen[p->family][i];
		if (len < p->plen || len >= best ||
		    hdr->region_end[r] <= bw_region_start(hdr, r))
			continue;
		best = len;
		ap->region = r;
	}
	if (ap->region < 0)
		return -ENOENT;
	ap->tlen = best;
	/* A shift of 64 or more is undefined (it wrapped: a /48 to /128 let
	 * 2^16 of its 2^80 keys in). */
	if (best - p->plen >= 32 ||
	    (1ULL << (best - p->plen)) > BW_ADD_MAX_KEYS)
		return -E2BIG;
	ap->nkeys = 1U << (best - p->plen);
	return 0;
}

__u32 bw_add_insert(void *mem, const struct bw_prefix *p,
		    const struct bw_add_plan *ap)
{
	struct bw_prefix k;
	__u32 j, fresh = 0;

	for (j = 0; j < ap->nkeys; j++) {
		k = bw_cidr_key(p, ap->tlen, j);
		fresh += bw_filter_insert(mem, &k) > 0;
	}
	return fresh;
}

void bw_region_fill(const void *mem, int region, __u64 *bits_set,
		    __u64 *bits_total, double *fpr)
{
	const struct bw_hdr *hdr = mem;
	__u32 start = bw_region_start(hdr, region);
	__u32 end = hdr->region_end[region];

	*bits_set = 0;
	*bits_total = (__u64)(end > start ? end - start : 0) * BW_BLOCK_BITS;
	*fpr = end > start ? bw_blocks_fpr(bw_block_at(mem, start), end - start,
					   hdr->probes[region], bits_set)
			   : 0.0;
}

/* The DNS block and name regions, after the address regions' check. */
static int check_dns(const void *mem, __u32 nblocks)
{
	const struct bw_hdr *hdr = mem;
	const struct bw_dns_hdr *dns;
	__u32 prev;
	int n;

	/* Format 2 knew no names: its flag bit was never set. */
	if (hdr->version < 3 || bw_dns_block(hdr) >= nblocks)
		return -EINVAL;
	dns = bw_filter_dns(mem);
	if (dns->magic != BW_DNS_MAGIC || dns->action >= BW_DNS_ACTIONS)
		return -EINVAL;
	prev = bw_dns_block(hdr) + 1;
	for (n = 0; n < BW_NAME_REGIONS; n++) {
		if (dns->region_end[n] < prev || dns->region_end[n] > nblocks)
			return -EINVAL;
		if (dns->region_end[n] > prev &&
		    (!dns->probes[n] || dns->probes[n] > BW_MAX_PROBES ||
		     dns->probes[n] % BW_ROUND_PROBES))
			return -EINVAL;
		prev = dns->region_end[n];
	}
	return 0;
}

int bw_hdr_check(const struct bw_hdr *hdr)
{
	__u32 prev = BW_HDR_BLOCKS;
	int f, i, r;

	if (!bw_hdr_valid(hdr))
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
	return 0;
}

int bw_filter_check(const void *mem, __u32 nblocks)
{
	const struct bw_hdr *hdr = mem;

	if (nblocks < BW_HDR_BLOCKS || bw_hdr_check(hdr) ||
	    hdr->region_end[BW_REGIONS - 1] > nblocks)
		return -EINVAL;
	return hdr->flags & BW_F_DNS ? check_dns(mem, nblocks) : 0;
}
