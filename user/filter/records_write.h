/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Writing a filter's records area (records_write.c).
 */
#ifndef __BW_RECORDS_WRITE_H
#define __BW_RECORDS_WRITE_H

#include <linux/types.h>

#include "filter/records.h"

/*
 * Blocks r's area takes, as an image holds it; 0 when r holds nothing (no
 * area at all).
 */
__u32 bw_records_blocks(const struct bw_records *r);

/*
 * The blocks a running filter's map keeps after r's area for its add log
 * (include/bw_layout.h): as many bytes again as the records, at least
 * BW_REC_LOG_ROOM.
 */
__u32 bw_records_room(const struct bw_records *r);

/*
 * The blocks a running filter's map needs for the regions of mem (a
 * filter or a plan) and r's area with the add log's room.
 */
__u32 bw_records_end(const void *mem, const struct bw_records *r);

/*
 * Writes r's area after the last region of mem (nblocks), zeroing every
 * block after the regions first (what is left is the add log's room).
 * -E2BIG when the records do not fit.
 */
int bw_records_write(void *mem, __u32 nblocks, const struct bw_records *r);

#endif /* __BW_RECORDS_WRITE_H */
