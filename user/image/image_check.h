/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The filter inside an image, field by field, against what 'bloomwall
 * build' writes. bw_filter_check says only that the data path can run a
 * filter without reading out of its map; an image is untrusted input (it
 * may come from a server), and a filter that is safe to run can still be
 * no filter a build made: a region the header no longer counts, a target
 * length that cannot hold the entries it claims, a DNS TTL or rate no
 * option gives, the record area cut off by a region's end. Each of those
 * would load and quietly pass listed traffic, so each is refused here,
 * naming the field and the value.
 */
#ifndef __BW_IMAGE_CHECK_H
#define __BW_IMAGE_CHECK_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Checks the nblocks blocks at mem as a filter 'build' can write: the
 * header, info block, regions, DNS block and record area (with the
 * build, DNS and sizing records that every build writes, which must agree
 * with the header). 0, or -EINVAL with why (size errlen) naming the field
 * and its value.
 */
int bw_image_check_filter(const void *mem, __u32 nblocks, char *why,
			  size_t errlen);

#endif /* __BW_IMAGE_CHECK_H */
