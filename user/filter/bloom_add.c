// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * An entry added at run time, set in a filter in memory: the target length
 * it goes to and the keys that cover it there (bloom.h). Used by `add` on a
 * copy of the running filter and by `load` on an image's filter.
 */
#include <errno.h>

#include "filter/bloom.h"
#include "filter/bloom_add.h"
#include "lists/cidr.h"

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
