/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Writing a filter's records area (records_write.c).
 */
#ifndef __BW_RECORDS_WRITE_H
#define __BW_RECORDS_WRITE_H

#include <linux/types.h>

#include "filter/records.h"

/* Blocks r's area takes; 0 when r holds nothing (no area at all). */
__u32 bw_records_blocks(const struct bw_records *r);

/*
 * Writes r's area after the last region of mem (nblocks), zeroing every
 * block after the regions first. -E2BIG when it does not fit.
 */
int bw_records_write(void *mem, __u32 nblocks, const struct bw_records *r);

#endif /* __BW_RECORDS_WRITE_H */
