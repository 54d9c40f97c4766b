/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The added names of a record area as records_read.c reads them: the
 * BW_REC_ADDED_NAMES entries, those marked BW_REC_NAME_GONE apart.
 */
#ifndef __BW_REC_NAMES_H
#define __BW_REC_NAMES_H

#include <stdbool.h>
#include <linux/types.h>

#include "lists/entry.h"

/* Whether p[0..len) is a name as a writer stores it: checked and folded. */
bool bw_rec_name_ok(const __u8 *p, __u8 len);

/*
 * One BW_REC_ADDED_NAMES body: its names pushed to added in order (never
 * expiring), those marked BW_REC_NAME_GONE to gone instead. 0, -EINVAL
 * (a partial entry, an unknown kind, a name not as a writer stores it),
 * -ENOMEM. Names listed twice stay: the reader drops them.
 */
int bw_rec_names_read(struct bw_entries *added, struct bw_entries *gone,
		      const __u8 *body, __u32 len);

#endif /* __BW_REC_NAMES_H */
