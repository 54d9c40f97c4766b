/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Adding an entry to a built filter in place: at the shortest target
 * length that covers it, as that length's keys.
 */
#ifndef __BW_BLOOM_ADD_H
#define __BW_BLOOM_ADD_H

#include <linux/types.h>

#include "filter/bloom.h"
#include "lists/list.h"

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

#endif /* __BW_BLOOM_ADD_H */
