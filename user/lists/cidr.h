/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Prefixes between parsing and planning: merging and controlled prefix
 * expansion (Srinivasan and Varghese, 1999; as used for Bloom-filter LPM by
 * Dharmapurikar et al., SIGCOMM 2003).
 *
 * The data path tests one Bloom region per target prefix length, at most
 * BW_MAX_LENGTHS per family. bw_cidr_prepare() turns any list into one that
 * bw_plan_filter() accepts:
 *
 *  1. merge, per family: duplicates and prefixes covered by a shorter one go,
 *     sibling pairs (10.0.0.0/25 + 10.0.0.128/25) become their parent, again
 *     and again. The set of covered addresses never changes; the result is
 *     the unique minimal prefix set of that address set.
 *  2. choose at most max_lengths target lengths per family that minimise the
 *     number of expanded keys (exact dynamic programming over the lengths
 *     present). The longest length present is always a target; every prefix
 *     goes to the nearest target at or above its length, so a /L prefix with
 *     target T becomes 2^(T-L) keys.
 *  3. expand. Merged prefixes are disjoint, so the keys are distinct and come
 *     out in address order: the list is finished (as bw_list_finish leaves
 *     it) and covers exactly the addresses of the input.
 *
 * Short prefixes do not blow up: the DP may give them a short target of
 * their own (224.0.0.0/3 -> 32 keys of /8 when 8 is a target). What the DP
 * cannot avoid is bounded by a cap on the keys (default BW_CIDR_MAX_KEYS):
 * past it, -E2BIG with a message naming the lengths and prefixes that cost
 * the most and what to do about them. Listed neighbours that merged (two
 * listed /32s into a /31) and expand back are counted there as what they
 * are, the lists' own entries, not as short prefixes.
 *
 * A /0 is accepted: it covers everything, so after merging it is the only
 * prefix of its family (the caller should warn: it drops every packet).
 */
#ifndef __BW_CIDR_H
#define __BW_CIDR_H

#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

/*
 * Default cap on expanded keys, both families together: 2^31, about what
 * the largest filter (BW_MAX_BLOCKS blocks of 512 bits, 4 GiB) holds at 16
 * bits a key, and 16 GiB of IPv4 keys while building. The builder lowers it
 * to what that filter holds at the build's --fpr.
 */
#define BW_CIDR_MAX_KEYS (1ULL << 31)

/* Longest prefix length of a family: 32 or 128. */
#define BW_CIDR_WIDTH(family) ((family) == BW_V4 ? 32U : 128U)

struct bw_cidr_opts {
	/* Targets per family, 1..BW_MAX_LENGTHS; 0 means BW_MAX_LENGTHS. */
	unsigned int max_lengths[BW_FAMILIES];
	/* Cap on expanded keys, both families; 0 means BW_CIDR_MAX_KEYS. */
	__u64 max_keys;
	/* What the cap is, for the message past it; NULL: not said. */
	const char *cap_why;
	/*
	 * Prefixes to choose target lengths for as if they were entries, but
	 * not expanded into out (a watch's live entries: set at run time),
	 * per family by length 0..width; NULL: none. They are not merged, not
	 * counted in expanded nor against the cap.
	 */
	const __u64 *extra[BW_FAMILIES];
};

struct bw_cidr_family_stats {
	__u64 source;	       /* prefixes in the input, duplicates included */
	__u64 merged;	       /* after merging */
	__u64 expanded;	       /* keys after expansion (the filter's entries) */
	unsigned int nlengths; /* target lengths chosen */
	/* Target lengths, longest first (the order of bw_hdr.plen). */
	__u8 plen[BW_MAX_LENGTHS];
	__u64 keys[BW_MAX_LENGTHS]; /* keys per target length */
	/* The extra prefixes' keys per target length (bw_cidr_opts.extra). */
	__u64 extra_keys[BW_MAX_LENGTHS];
	unsigned int shortest; /* shortest merged prefix length (if merged) */
};

struct bw_cidr_stats {
	struct bw_cidr_family_stats fam[BW_FAMILIES];
};

/* Sets defaults: BW_MAX_LENGTHS per family, BW_CIDR_MAX_KEYS. */
void bw_cidr_opts_init(struct bw_cidr_opts *o);

/*
 * Merges in (any order; host bits below the length are ignored), chooses the
 * targets, expands into out. out needs no initialisation: on success it owns
 * the keys (bw_list_free), on failure it is empty. o and st may be NULL.
 * Returns 0, -EINVAL (bad options or prefix length), -ENOMEM, or -E2BIG
 * (over the key cap; the reason and the remedy are printed with pr_warn).
 */
int bw_cidr_prepare(const struct bw_list *in, const struct bw_cidr_opts *o,
		    struct bw_list *out, struct bw_cidr_stats *st);

/*
 * Step 1 alone, in place: sorts l and merges each family as above. The
 * prefixes must be as the parser makes them (lengths in range, host bits
 * clear). l is finished afterwards. Counts in st->fam[f].source/merged if st.
 */
void bw_cidr_merge(struct bw_list *l, struct bw_cidr_stats *st);

/*
 * Key j of prefix p expanded to the longer length tlen (1 <= tlen <= the
 * family's width, j < 2^(tlen - p->plen)): the j-th /tlen inside p, as
 * bw_cidr_prepare expands prefixes for a filter.
 */
struct bw_prefix bw_cidr_key(const struct bw_prefix *p, unsigned int tlen,
			     __u64 j);

/*
 * Expansion factor of a family: keys per source prefix, as `status` shows it
 * from bw_info (entries / source_entries). Below 1 when merging removed more
 * than expansion added.
 */
static inline double bw_cidr_factor(const struct bw_cidr_family_stats *fs)
{
	return fs->source ? (double)fs->expanded / fs->source : 1.0;
}

#endif /* __BW_CIDR_H */
