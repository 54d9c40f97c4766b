/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The false-positive rate of a filter as it runs, by the model its build
 * sized it with (bloom_size.h's bw_model_fpr): each region's keys (the
 * filter's counts, and the keys an add would set there) against its
 * blocks and probes. Deterministic, so an add can be judged before any
 * bit is set, and with no fill noise in a small region.
 *
 * The parts an add can push past their target:
 * - an address family: a packet is tested at each target length of its
 *   family, so its rate is the sum of the family's regions' rates;
 * - the names: a query's rate is the exact region's plus
 *   BW_NAME_FPR_LABELS times the subtree region's (bloom_names.c sizes
 *   them so).
 * A build sizes every part at or under its target (a region is grown,
 * never shrunk, from the model's blocks), so a fresh filter is never past.
 *
 * No bpf(): the filter's memory, mapped or a buffer.
 */
#ifndef __BW_RATE_H
#define __BW_RATE_H

#include <linux/types.h>

#include "bloomwall.h"

enum bw_rate_part {
	BW_RATE_V4 = 0, /* = BW_V4 */
	BW_RATE_V6 = 1, /* = BW_V6 */
	BW_RATE_NAMES = 2,
	BW_RATE_PARTS = 3,
};

/* Keys more than the filter's counts say, by region (e.g. an add's). */
struct bw_rate_more {
	__u64 keys[BW_REGIONS];	      /* address keys, by address region */
	__u64 names[BW_NAME_REGIONS]; /* names, by enum bw_name_region */
};

/* part's rate by the model with m's keys more (NULL: none). */
double bw_rate_of(const void *mem, int part, const struct bw_rate_more *m);

/* part's target: the filter's rate per family, or its names' rate. */
double bw_rate_target(const void *mem, int part);

/*
 * The part that m's keys more (NULL: none) take past limit times its
 * target, the first such, with its rate and target in *rate and *target;
 * -1 when none is past.
 */
int bw_rate_past(const void *mem, const struct bw_rate_more *m, double limit,
		 double *rate, double *target);

/* What part is called in messages: "IPv4 addresses", "names". */
const char *bw_rate_part_name(int part);

#endif /* __BW_RATE_H */
