/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Reading a filter's record area (the format is in include/bw_layout.h):
 * the records, then the add log a running watch appends to, applied in
 * order. A reader never trusts the area: every length is checked against
 * the map's size before it is used, so a truncated or hostile area is
 * refused (-EINVAL) in time bounded by the map's size, never read past
 * its end.
 */
#ifndef __BW_RECORDS_READ_H
#define __BW_RECORDS_READ_H

#include <linux/types.h>

#include "filter/records.h"

/*
 * Reads the area of a filter of nblocks that passed bw_filter_check. 0 with
 * r filled (empty when the filter has no area: it ends at its last region,
 * or zero blocks follow); -EINVAL when the area is malformed, -ENOMEM; on
 * failure r is empty.
 */
int bw_records_read(const void *mem, __u32 nblocks, struct bw_records *r);

#endif /* __BW_RECORDS_READ_H */
