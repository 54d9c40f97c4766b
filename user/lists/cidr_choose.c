// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Controlled prefix expansion: the fewest target lengths whose expanded
 * keys stay near the minimum over all choices (cidr_choose.h).
 */
#include <errno.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/cidr_choose.h"

/*
 * best[r][j]: fewest keys for lengths lens[0..j] with r + 1 targets, the
 * longest at lens[j]; from[r][j]: index of the previous target, or -1. An
 * optimal target set only uses lengths present: moving a target down to the
 * longest length it serves never costs more.
 */
struct dp {
	unsigned int lens[BW_CIDR_MAXW + 1], m;
	__u64 best[BW_MAX_LENGTHS][BW_CIDR_MAXW + 1];
	int from[BW_MAX_LENGTHS][BW_CIDR_MAXW + 1];
};

static void dp_column(struct dp *d, const __u64 *count, unsigned int j,
		      unsigned int k)
{
	unsigned int r, len = d->lens[j];
	__u64 seg = 0, c;
	int i;

	for (r = 0; r < k; r++)
		d->best[r][j] = UINT64_MAX;
	/* Lengths lens[i..j] all expand to lens[j]. */
	for (i = (int)j; i >= 0; i--) {
		seg = bw_sat_add(
			seg, bw_sat_shl(count[d->lens[i]], len - d->lens[i]));
		if (!i) {
			d->best[0][j] = seg;
			d->from[0][j] = -1;
			continue;
		}
		for (r = 1; r < k && r <= (unsigned int)i; r++) {
			c = bw_sat_add(d->best[r - 1][i - 1], seg);
			if (c < d->best[r][j]) {
				d->best[r][j] = c;
				d->from[r][j] = i - 1;
			}
		}
	}
}

int bw_cidr_choose(const __u64 *count, unsigned int width,
		   unsigned int max_lengths, __u8 *plen, unsigned int *n,
		   __u64 *keys)
{
	unsigned int j, r, k, best_r, min_r = 0;
	__u64 fewest;
	struct dp d;
	int at;

	*n = 0;
	*keys = 0;
	if (width > BW_CIDR_MAXW || !max_lengths ||
	    max_lengths > BW_MAX_LENGTHS)
		return -EINVAL;
	d.m = 0;
	for (j = 0; j <= width; j++)
		if (count[j])
			d.lens[d.m++] = j;
	if (!d.m)
		return 0;
	k = max_lengths < d.m ? max_lengths : d.m;
	for (j = 0; j < d.m; j++)
		dp_column(&d, count, j, k);
	/*
	 * The fewest targets whose keys are within 1/BW_CIDR_KEY_SLACK, or
	 * BW_CIDR_KEY_FLOOR keys, of the fewest keys: every target costs each
	 * packet a hash and a block read, which a few percent or a few KiB
	 * more filter do not (e.g. a host list with some neighbours merged
	 * into /31s stays one /32 region).
	 */
	for (r = 1; r < k; r++)
		if (d.best[r][d.m - 1] < d.best[min_r][d.m - 1])
			min_r = r;
	fewest = d.best[min_r][d.m - 1];
	fewest = bw_sat_add(fewest,
			    fewest / BW_CIDR_KEY_SLACK > BW_CIDR_KEY_FLOOR
				    ? fewest / BW_CIDR_KEY_SLACK
				    : BW_CIDR_KEY_FLOOR);
	for (best_r = 0; d.best[best_r][d.m - 1] > fewest; best_r++)
		;
	*keys = d.best[best_r][d.m - 1];
	for (at = (int)d.m - 1, r = best_r + 1; at >= 0; r--) {
		plen[(*n)++] = (__u8)d.lens[at];
		at = d.from[r - 1][at];
	}
	return 0;
}
