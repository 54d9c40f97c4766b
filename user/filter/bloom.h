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
 * The smallest --fpr: far below what a filter of BW_MAX_BLOCKS reaches for
 * a few keys, so every rate a build can meet is in range, and an image's
 * rate (untrusted) is held to the same range the option is.
 */
#define BW_MIN_FPR 1e-15

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
	/*
	 * Keys besides the list's each address region is sized for, per
	 * family by prefix length 0..width (a watch's live entries and
	 * their headroom: set at run time, not by the fill); NULL: none. A
	 * length with room and no key of the list still gets its region.
	 */
	const __u64 *room[BW_FAMILIES];
	/*
	 * Keys besides the list's each name region is sized for (live
	 * names): a region with room and no list entry still gets its
	 * blocks, and the filter its DNS block.
	 */
	__u64 name_room[BW_NAME_REGIONS];
};

struct bw_plan {
	__u32 nblocks; /* total, header and info blocks included */
	struct bw_hdr hdr;
	struct bw_info info;
	struct bw_dns_hdr dns; /* with BW_F_DNS in hdr.flags */
	/* Keys each address region was sized for: its entries and room. */
	__u64 sized[BW_REGIONS];
};

void bw_build_opts_init(struct bw_build_opts *o);

/*
 * The target false-positive rate the filter was built for, exactly as
 * given (a format 2 filter holds it in parts per billion);
 * BW_DEFAULT_FPR when the block holds no usable rate.
 */
double bw_info_fpr(const struct bw_info *info);
void bw_info_set_fpr(struct bw_info *info, double fpr);

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

/*
 * Where an entry added to a built filter in place goes: a region, and the
 * keys at its target length (the shortest that covers it).
 */
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
 * Checks a header's magic, version and address regions: in order, and
 * those in use with a prefix length of their family and 1 to
 * BW_MAX_PROBES probes, whole rounds. 0 or -EINVAL.
 */
int bw_hdr_check(const struct bw_hdr *hdr);

/*
 * bw_hdr_check() of a filter of nblocks blocks, its regions within them,
 * and the DNS block and name regions with BW_F_DNS.
 */
int bw_filter_check(const void *mem, __u32 nblocks);

/* Block idx of a filter in memory (block 0 is the header). */
static inline struct bw_block *bw_block_at(const void *mem, __u32 idx)
{
	return (struct bw_block *)((char *)mem + (size_t)idx * BW_BLOCK_BYTES);
}

/* Sets every prefix's bits (mem: the plan's header written). */
void bw_fill_prefixes(void *mem, const struct bw_list *l);

/* The DNS block of a checked filter, or NULL without BW_F_DNS. */
const struct bw_dns_hdr *bw_filter_dns(const void *mem);

#endif /* __BW_BLOOM_H */
