/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The name regions of a filter: their plan and fill, the data path's name
 * test in userspace, in-place inserts, and the DNS block's settings.
 */
#ifndef __BW_BLOOM_NAMES_H
#define __BW_BLOOM_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/bloom.h"
#include "lists/list.h"

/*
 * A query tests one exact key and one subtree key per label. The regions
 * are sized so that o->fpr holds per query for names of up to this many
 * labels; a deeper name of n labels meets at most n / BW_NAME_FPR_LABELS
 * times it.
 */
#define BW_NAME_FPR_LABELS 5

/*
 * The name regions of a plan for l's block entries (allow entries are no
 * keys): with none, the plan stays without BW_F_DNS. The target o->fpr per
 * query splits between the two regions in proportion to their entries
 * (the least memory for the sum), and the subtree region's share again by
 * the BW_NAME_FPR_LABELS keys a query tests in it. Called by
 * bw_plan_filter after the address regions; -E2BIG, -ENOMEM.
 */
int bw_plan_names(const struct bw_list *l, const struct bw_build_opts *o,
		  struct bw_plan *plan);

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

/* Whether the filter has a (non-empty) exact or subtree name region. */
bool bw_name_has_region(const void *mem, bool subtree);

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

#endif /* __BW_BLOOM_NAMES_H */
