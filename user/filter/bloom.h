/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The blocked Bloom filter in plain memory: sizing (bloom_size.c: blocks and
 * probes per region from the entry count and the target false-positive
 * rate), filling, the userspace twin of the data path's lookup, in-place
 * inserts, fill estimates and the validity check. No bpf() here: the same code serves a
 * mmapped filter map and a buffer that becomes an image.
 *
 * A filter image is nblocks * BW_BLOCK_BYTES bytes laid out as
 * include/bw_layout.h says; the same bytes go into the mmapped filter map.
 */
#ifndef __BW_BLOOM_H
#define __BW_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

#define BW_DEFAULT_FPR 0.001

/*
 * --dns-ttl: the default, and the most it takes (a day). A minute: an
 * allowed or unlisted name works again in clients' caches soon (Pi-hole
 * answers blocked names with TTL 2 for that reason), while a page's
 * repeated lookups of a tracker still come from its cache.
 */
#define BW_DEFAULT_DNS_TTL 60
#define BW_MAX_DNS_TTL 86400

struct bw_build_opts {
	double fpr;  /* target false-positive rate per family, (0, 0.5) */
	__u32 seed;  /* hash seed; bw_build_opts_init() draws a random one */
	__u16 flags; /* BW_F_* */
	/* With names: the DNS block's action, flags (BW_DNS_F_*) and TTL. */
	__u8 dns_action;
	__u8 dns_flags;
	__u32 dns_ttl;
};

struct bw_plan {
	__u32 nblocks; /* total, header and info blocks included */
	struct bw_hdr hdr;
	struct bw_info info;
	struct bw_dns_hdr dns; /* with BW_F_DNS in hdr.flags */
};

void bw_build_opts_init(struct bw_build_opts *o);

/*
 * The target false-positive rate the filter was built for, exactly as
 * given (a format 2 filter from before kept it in parts per billion);
 * BW_DEFAULT_FPR when the block holds no usable rate.
 */
double bw_info_fpr(const struct bw_info *info);
void bw_info_set_fpr(struct bw_info *info, double fpr);

/*
 * Blocks and probes for one region of n keys at false-positive rate fpr,
 * from the Poisson model of a blocked Bloom filter with 512-bit blocks.
 * n == 0 gives 0 blocks. Returns 0 or -E2BIG past BW_MAX_BLOCKS.
 */
int bw_size_region(__u64 n, double fpr, __u32 *nblocks, __u8 *probes);

/*
 * bw_size_region, then for a small region (up to 65,536 keys) a trial
 * fill with these hashes, grown until its own fill meets share.
 */
int bw_size_fit(const __u64 *hash, __u64 n, double share, __u32 *nblocks,
		__u8 *probes);

/* Expected false-positive rate of a region of nblocks with n keys, k probes. */
double bw_model_fpr(__u64 n, __u32 nblocks, unsigned int probes);

/*
 * Lays out the filter for a finished list (bw_list_finish): one region per
 * prefix length per family, longest first, each sized for its share of the
 * target by the model; a small region is then filled on trial with the
 * plan's seed and grown until its own fill (bw_region_fill) meets its
 * share, so that for a given seed the plan is always the same. -E2BIG when
 * the list has more lengths than BW_MAX_LENGTHS for a family (expansion is
 * the caller's job) or the filter would be too large; -ENOMEM.
 */
int bw_plan_filter(const struct bw_list *l, const struct bw_build_opts *o,
		   struct bw_plan *plan);

/* Writes header, info and every key's bits into mem (zeroed, plan size). */
void bw_fill_filter(void *mem, const struct bw_plan *plan,
		    const struct bw_list *l);

/*
 * The data path's test, in userspace: 1 if a packet from this address would
 * hit (region index in *region if not NULL), 0 if not. p->plen is ignored:
 * the address is tested at every target length of its family.
 */
int bw_filter_lookup(const void *mem, const struct bw_prefix *addr,
		     int *region);

/*
 * Sets a key's bits with atomic OR (the data path may be reading); the key's
 * prefix length must be a target length of the filter. Returns 1 if any bit
 * was newly set, 0 if all were set already, -ENOENT if the filter has no
 * region for that family and length.
 */
int bw_filter_insert(void *mem, const struct bw_prefix *key);

/* Most keys one added entry may expand to in place; more is for reload. */
#define BW_ADD_MAX_KEYS (1U << 16)

/* Where an added entry goes: a region, and the keys at its target length. */
struct bw_add_plan {
	int region;
	__u8 tlen;
	__u32 nkeys;
};

/*
 * The filter's shortest target length at or below the entry's prefix (the
 * fewest keys that cover exactly the entry): 0, -ENOENT if every target
 * length is shorter (covering the entry there would block more than it
 * says), -E2BIG past BW_ADD_MAX_KEYS keys.
 */
int bw_add_plan(const struct bw_hdr *hdr, const struct bw_prefix *p,
		struct bw_add_plan *ap);

/* Sets an entry's keys as planned; the number that set a new bit. */
__u32 bw_add_insert(void *mem, const struct bw_prefix *p,
		    const struct bw_add_plan *ap);

/* Hash of a key as the data path computes it (plen = the target length). */
__u64 bw_key_hash(const struct bw_hdr *hdr, const struct bw_prefix *key);

/*
 * Fill of a region (share of its bits set) and its false-positive rate
 * from the fill of each block (bw_blocks_fpr).
 */
void bw_region_fill(const void *mem, int region, __u64 *bits_set,
		    __u64 *bits_total, double *fpr);

/*
 * The false-positive rate of n filled blocks with probes bits per key,
 * exactly: a non-member's hash picks a block and, in each word, probes / 8
 * bits, all uniformly, so it hits a block with probability the product over
 * its words of (bits set / 64)^(probes / 8). Adds the bits set to *set.
 */
double bw_blocks_fpr(const struct bw_block *blk, __u32 n, unsigned int probes,
		     __u64 *set);

/*
 * Checks magic, version and region bounds against the map's size, and the
 * DNS block and name regions with BW_F_DNS.
 */
int bw_filter_check(const void *mem, __u32 nblocks);

/* ---- names (bloom_names.c) ---- */

/*
 * The name regions of a plan for l's block entries (allow entries are no
 * keys): with none, the plan stays without BW_F_DNS. Sized as address
 * regions are, for the target o->fpr per key tested, split between the two
 * in proportion to their entries. Called by bw_plan_filter after the
 * address regions; -E2BIG, -ENOMEM.
 */
int bw_plan_names(const struct bw_list *l, const struct bw_build_opts *o,
		  struct bw_plan *plan);

/* The DNS block of a checked filter, or NULL without BW_F_DNS. */
const struct bw_dns_hdr *bw_filter_dns(const void *mem);

/* The name key of a list entry with seed: its exact or subtree key. */
__u64 bw_name_entry_key(const char *name, size_t len, bool subtree, __u32 seed);

/* Sets every block entry's bits (mem: the plan's header written). */
void bw_fill_names(void *mem, const struct bw_plan *plan,
		   const struct bw_list *l);

/* What matched a name: the region and the suffix (its labels, from the TLD). */
struct bw_name_hit {
	int region;  /* BW_NAME_EXACT or BW_NAME_SUBTREE */
	int labels;  /* the suffix that matched: this many labels of the name */
	int nlabels; /* labels of the name */
};

/*
 * The data path's name test, in userspace: the name's exact key, then the
 * subtree key of the name and every parent suffix (longest first). 1 on a
 * hit (hit filled), 0 if not, -EINVAL for a name that is no checked name.
 */
int bw_name_lookup(const void *mem, const char *name, size_t len,
		   struct bw_name_hit *hit);

/*
 * Sets a name's key (exact or subtree) with atomic OR, as
 * bw_filter_insert: 1 if any bit was new, 0 if not, -ENOENT if the filter
 * has no such name region.
 */
int bw_name_insert(void *mem, const char *name, size_t len, bool subtree);

/* bw_region_fill for name region n. */
void bw_name_region_fill(const void *mem, int n, __u64 *bits_set,
			 __u64 *bits_total, double *fpr);

/* The names' target rate as built (the DNS block's), or BW_DEFAULT_FPR. */
double bw_dns_fpr(const struct bw_dns_hdr *dns);

/* Text names of enum bw_dns_action, and back: -EINVAL for none. */
const char *bw_dns_action_name(unsigned int action);
int bw_dns_action_parse(const char *s);

#endif /* __BW_BLOOM_H */
