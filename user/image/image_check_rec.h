/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The record area of an image's filter held to what a build writes: its
 * place (right after the regions, ending the filter), and its build, DNS
 * and sizing records against the header, info and DNS block.
 */
#ifndef __BW_IMAGE_CHECK_REC_H
#define __BW_IMAGE_CHECK_REC_H

#include <stddef.h>
#include <linux/types.h>

/* 0, or -EINVAL with the field and its value named in why. */
int bw_image_check_records(const void *mem, __u32 nblocks, char *why,
			   size_t errlen);

#endif /* __BW_IMAGE_CHECK_REC_H */
