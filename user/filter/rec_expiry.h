/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The expiry records of an area as records_read.c reads it:
 * BW_REC_ADDED_EXPIRES (prefix, expiry) and BW_REC_ADDED_NAME_EXPIRES
 * (name, expiry) pairs, gathered into one set of entries while reading,
 * then looked up for each added entry once every record is read (the area
 * may hold them in any order, in several records).
 */
#ifndef __BW_REC_EXPIRY_H
#define __BW_REC_EXPIRY_H

#include <linux/types.h>

#include "lists/entry.h"

/*
 * One BW_REC_ADDED_EXPIRES body into e: 0, -EINVAL (a partial entry, a
 * bad prefix, an expiry of 0 or past BW_REC_EXPIRES_MAX), -ENOMEM.
 */
int bw_rec_expiries_read(struct bw_entries *e, const __u8 *body, __u32 len);

/*
 * One BW_REC_ADDED_NAME_EXPIRES body into e: 0, -EINVAL (a partial
 * entry, an unknown kind, a bad name, an expiry of 0 or past
 * BW_REC_EXPIRES_MAX), -ENOMEM.
 */
int bw_rec_name_expiries_read(struct bw_entries *e, const __u8 *body,
			      __u32 len);

#endif /* __BW_REC_EXPIRY_H */
