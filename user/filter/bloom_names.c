// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The name part of a filter (format 3, BW_F_DNS): the DNS block and the
 * two name regions (exact names, subtrees) after the address regions,
 * sized, filled and tested in plain memory as the address regions are
 * (bloom.h). The keys are include/bw_hash.h's bw_name_*, computed by
 * names.c the way the data path computes them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/bloom_size.h"
#include "lists/names.h"

static const char *const action_names[BW_DNS_ACTIONS] = {
	[BW_DNS_NULL] = "null",
	[BW_DNS_NXDOMAIN] = "nxdomain",
	[BW_DNS_REFUSED] = "refused",
	[BW_DNS_DROP] = "drop",
};

const char *bw_dns_action_name(unsigned int action)
{
	return action < BW_DNS_ACTIONS ? action_names[action] : "unknown";
}

int bw_dns_action_parse(const char *s)
{
	int a;

	for (a = 0; a < BW_DNS_ACTIONS; a++)
		if (!strcmp(s, action_names[a]))
			return a;
	return -EINVAL;
}

double bw_dns_fpr(const struct bw_dns_hdr *dns)
{
	double fpr;

	memcpy(&fpr, &dns->fpr_bits, sizeof(fpr));
	return fpr > 0.0 && fpr < 0.5 ? fpr : BW_DEFAULT_FPR;
}

__u64 bw_name_entry_key(const char *name, size_t len, bool subtree, __u32 seed)
{
	__u64 keys[BW_NAME_LABELS_MAX];
	int n = bw_name_hashes(name, len, seed, keys, BW_NAME_LABELS_MAX);

	/* A checked name always hashes: n > 0. */
	if (n <= 0)
		return 0;
	return subtree ? keys[n - 1] : bw_name_key_exact(keys[n - 1]);
}

static int entry_region(const struct bw_domain *d)
{
	return d->flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE : BW_NAME_EXACT;
}

/*
 * Hashes of the block entries of region n (allow entries are no keys),
 * then stand-ins for its room up to size.
 */
static __u64 *region_hashes(const struct bw_list *l, int n, __u32 seed,
			    __u64 count, __u64 size)
{
	__u64 *h = malloc((size ?: 1) * sizeof(*h)), k = 0;
	const struct bw_domain *d;
	size_t i;

	if (!h)
		return NULL;
	for (i = 0; i < l->ndom && k < count; i++) {
		d = &l->dom[i];
		if ((d->flags & BW_DOM_ALLOW) || entry_region(d) != n)
			continue;
		h[k++] = bw_name_entry_key(bw_domain_name(l, d), d->len,
					   n == BW_NAME_SUBTREE, seed);
	}
	for (; k < size; k++)
		h[k] = bw_mix64(k ^ (__u64)seed << 32 ^ (__u64)n << 62);
	return h;
}

/*
 * Region n's rate per key. A query's rate is about the exact region's
 * plus the subtree region's times the labels it tests there; with
 * p_e + L p_s held to the target, the least total size puts p_e in
 * proportion to the exact entries and L p_s to the subtree entries.
 */
static double name_share(double fpr, const __u64 *count, __u64 total, int n)
{
	double share = fpr * (double)count[n] / (double)total;

	return n == BW_NAME_SUBTREE ? share / BW_NAME_FPR_LABELS : share;
}

int bw_plan_names(const struct bw_list *l, const struct bw_build_opts *o,
		  struct bw_plan *plan)
{
	struct bw_dns_hdr *dns = &plan->dns;
	__u64 count[BW_NAME_REGIONS] = { 0 }, size[BW_NAME_REGIONS], total, *h;
	__u32 next = plan->nblocks, nblocks;
	size_t i;
	int n, err;

	memset(dns, 0, sizeof(*dns));
	for (i = 0; i < l->ndom; i++)
		if (!(l->dom[i].flags & BW_DOM_ALLOW))
			count[entry_region(&l->dom[i])]++;
	for (n = 0; n < BW_NAME_REGIONS; n++)
		size[n] = count[n] + o->name_room[n];
	total = size[BW_NAME_EXACT] + size[BW_NAME_SUBTREE];
	if (!total)
		return 0;
	dns->magic = BW_DNS_MAGIC;
	dns->action = o->dns_action;
	dns->flags = o->dns_flags;
	dns->ttl = o->dns_ttl;
	memcpy(&dns->fpr_bits, &o->fpr, sizeof(dns->fpr_bits));
	next++; /* the DNS block itself */
	for (n = 0; n < BW_NAME_REGIONS; n++) {
		dns->probes[n] = BW_ROUND_PROBES;
		nblocks = 0;
		if (size[n]) {
			h = region_hashes(l, n, o->seed, count[n], size[n]);
			if (!h)
				return -ENOMEM;
			err = bw_size_fit(h, size[n],
					  name_share(o->fpr, size, total, n),
					  &nblocks, &dns->probes[n]);
			free(h);
			if (err)
				return err;
		}
		next += nblocks;
		if (next > BW_MAX_BLOCKS)
			return -E2BIG;
		dns->region_end[n] = next;
		dns->region_entries[n] = (__u32)count[n];
	}
	plan->hdr.flags |= BW_F_DNS;
	plan->nblocks = next;
	return 0;
}

/* Block of a name key inside name region n. */
static struct bw_block *
name_block(const void *mem, const struct bw_dns_hdr *dns, int n, __u64 key)
{
	__u32 start = bw_name_region_start(mem, dns, n);

	return bw_block_at(
		mem, start + bw_block_index(key, dns->region_end[n] - start));
}

static bool region_empty(const void *mem, const struct bw_dns_hdr *dns, int n)
{
	return dns->region_end[n] <= bw_name_region_start(mem, dns, n);
}

void bw_fill_names(void *mem, const struct bw_plan *plan,
		   const struct bw_list *l)
{
	const struct bw_dns_hdr *dns = &plan->dns;
	const struct bw_domain *d;
	size_t i;
	__u64 key;
	int n;

	if (!(plan->hdr.flags & BW_F_DNS))
		return;
	memcpy(bw_block_at(mem, bw_dns_block(&plan->hdr)), dns, sizeof(*dns));
	for (i = 0; i < l->ndom; i++) {
		d = &l->dom[i];
		if (d->flags & BW_DOM_ALLOW)
			continue;
		n = entry_region(d);
		key = bw_name_entry_key(bw_domain_name(l, d), d->len,
					n == BW_NAME_SUBTREE, plan->hdr.seed);
		bw_block_set(name_block(mem, dns, n, key), key, dns->probes[n]);
	}
}

static bool test_key(const void *mem, const struct bw_dns_hdr *dns, int n,
		     __u64 key)
{
	if (region_empty(mem, dns, n))
		return false;
	return bw_block_test(name_block(mem, dns, n, key), key, dns->probes[n]);
}

int bw_name_lookup(const void *mem, const char *name, size_t len,
		   struct bw_name_hit *hit)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	const struct bw_hdr *hdr = mem;
	__u64 keys[BW_NAME_LABELS_MAX];
	int n, k;

	n = bw_name_hashes(name, len, hdr->seed, keys, BW_NAME_LABELS_MAX);
	if (n <= 0)
		return -EINVAL;
	memset(hit, 0, sizeof(*hit));
	hit->nlabels = n;
	if (!dns)
		return 0;
	if (test_key(mem, dns, BW_NAME_EXACT, bw_name_key_exact(keys[n - 1]))) {
		hit->region = BW_NAME_EXACT;
		hit->labels = n;
		return 1;
	}
	for (k = n - 1; k >= 0; k--) {
		if (test_key(mem, dns, BW_NAME_SUBTREE, keys[k])) {
			hit->region = BW_NAME_SUBTREE;
			hit->labels = k + 1;
			return 1;
		}
	}
	return 0;
}

bool bw_name_has_region(const void *mem, bool subtree)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);

	return dns && !region_empty(mem, dns,
				    subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT);
}

int bw_name_insert(void *mem, const char *name, size_t len, bool subtree)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	const struct bw_hdr *hdr = mem;
	int n = subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT;
	__u64 key, bits, mask, old;
	struct bw_block *blk;
	unsigned int r, w;
	int fresh = 0;

	if (!dns || region_empty(mem, dns, n))
		return -ENOENT;
	key = bw_name_entry_key(name, len, subtree, hdr->seed);
	blk = name_block(mem, dns, n, key);
	/* Bits only go 0 -> 1: readers never see a key half-set undone. */
	for (r = 0; r * BW_ROUND_PROBES < dns->probes[n] && r < BW_MAX_ROUNDS;
	     r++) {
		bits = bw_round_bits(key, r);
		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			mask = 1ULL << bw_round_bit(bits, w);
			old = __atomic_fetch_or(&blk->w[w], mask,
						__ATOMIC_RELAXED);
			fresh |= !(old & mask);
		}
	}
	return fresh;
}

void bw_name_region_fill(const void *mem, int n, __u64 *bits_set,
			 __u64 *bits_total, double *fpr)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	__u32 start, end;

	*bits_set = *bits_total = 0;
	*fpr = 0.0;
	if (!dns || region_empty(mem, dns, n))
		return;
	start = bw_name_region_start(mem, dns, n);
	end = dns->region_end[n];
	*bits_total = (__u64)(end - start) * BW_BLOCK_BITS;
	*fpr = bw_blocks_fpr(bw_block_at(mem, start), end - start,
			     dns->probes[n], bits_set);
}
