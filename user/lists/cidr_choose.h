/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Step 2 of bw_cidr_prepare (cidr.h): the target lengths a family's
 * prefixes expand to, chosen by dynamic programming over their counts.
 */
#ifndef __BW_CIDR_CHOOSE_H
#define __BW_CIDR_CHOOSE_H

#include <stdint.h>
#include <linux/types.h>

/* Bits of the widest family's addresses (IPv6). */
#define BW_CIDR_MAXW 128

/* a + b, saturating. */
static inline __u64 bw_sat_add(__u64 a, __u64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* count << shift, saturating. */
static inline __u64 bw_sat_shl(__u64 count, unsigned int shift)
{
	if (!count)
		return 0;
	if (shift >= 64 || count > (UINT64_MAX >> shift))
		return UINT64_MAX;
	return count << shift;
}

/*
 * An extra target length must save more than a third of the keys and more
 * than 4096 keys (about 8 KiB of filter at 0.1 %): it costs every packet a
 * hash and a block read (about 15 ns), for ever.
 */
#define BW_CIDR_KEY_SLACK 3
#define BW_CIDR_KEY_FLOOR 4096

/*
 * Step 2 alone. count[len] is the number of prefixes of each length
 * 0..width. Picks at most max_lengths targets (1..BW_MAX_LENGTHS): the
 * fewest targets whose expanded keys are within 1/BW_CIDR_KEY_SLACK (or
 * BW_CIDR_KEY_FLOOR keys, whichever is more) of the minimum over all
 * choices (controlled prefix expansion by dynamic
 * programming), writes them longest first to plen and their
 * number to *n, the key count to *keys (saturates at UINT64_MAX). No
 * prefixes: *n = 0, *keys = 0. Returns 0 or -EINVAL.
 */
int bw_cidr_choose(const __u64 *count, unsigned int width,
		   unsigned int max_lengths, __u8 *plen, unsigned int *n,
		   __u64 *keys);

#endif /* __BW_CIDR_CHOOSE_H */
