/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A whole filter from a list: its plan (address regions, then name
 * regions) and its fill.
 */
#ifndef __BW_BLOOM_PLAN_H
#define __BW_BLOOM_PLAN_H

#include "filter/bloom.h"
#include "lists/list.h"

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

#endif /* __BW_BLOOM_PLAN_H */
