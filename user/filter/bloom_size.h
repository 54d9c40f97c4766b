/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Sizing the address regions of a filter: the Poisson model of a blocked
 * Bloom filter, trial fills of small regions, and the regions' plan.
 */
#ifndef __BW_BLOOM_SIZE_H
#define __BW_BLOOM_SIZE_H

#include <linux/types.h>

#include "filter/bloom.h"
#include "lists/list.h"

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

/*
 * The most keys one region of BW_MAX_BLOCKS (the largest filter) holds at
 * fpr, by the model: what bounds any list at that rate. 0 for a bad fpr.
 */
__u64 bw_size_max_keys(double fpr);

/* Expected false-positive rate of a region of nblocks with n keys, k probes. */
double bw_model_fpr(__u64 n, __u32 nblocks, unsigned int probes);

/*
 * The address regions of a plan for a finished list: header fields, one
 * region per prefix length per family (as bw_plan_filter() says), and
 * plan->nblocks. -EINVAL for a bad o->fpr, -E2BIG, -ENOMEM.
 */
int bw_plan_prefixes(const struct bw_list *l, const struct bw_build_opts *o,
		     struct bw_plan *plan);

#endif /* __BW_BLOOM_SIZE_H */
