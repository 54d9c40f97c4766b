/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The record area of an image's filter held to what a build writes: its
 * place (right after the regions, ending the filter), and its build, DNS
 * and sizing records against the header, info and DNS block. With it,
 * what every check of an image's filter (image_check.c too) shares: the
 * refusal that names the field and its value, and the rules for a rate.
 */
#ifndef __BW_IMAGE_CHECK_REC_H
#define __BW_IMAGE_CHECK_REC_H

#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"

extern const char *const bw_check_fam_names[BW_FAMILIES];

/* Writes the refusal into why (errlen bytes): -EINVAL. */
int bw_check_fail(char *why, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The double whose bits a filter keeps. */
double bw_check_fpr_of(__u64 bits);

/* 0 for a rate a build takes, else the refusal naming what. */
int bw_check_rate(const char *what, __u64 bits, char *why, size_t errlen);

/* The info block of the filter in mem. */
const struct bw_info *bw_check_info_of(const void *mem);

/* 0, or -EINVAL with the field and its value named in why. */
int bw_image_check_records(const void *mem, __u32 nblocks, char *why,
			   size_t errlen);

#endif /* __BW_IMAGE_CHECK_REC_H */
