/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An added entry or name taken out of a filter's record area in place, for
 * a remove that a running watch applies without a swap: its family byte
 * gets BW_REC_PREFIX_GONE (a name's kind byte BW_REC_NAME_GONE;
 * include/bw_layout.h) by one store, so that a reader of the running map
 * sees the entry in or out, never torn. The
 * caller holds the lock every writer of a running filter takes
 * (kernel/lock.h): a copy made under it sees all of the marks or none.
 */
#ifndef __BW_RECORDS_GONE_H
#define __BW_RECORDS_GONE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/list.h"

/*
 * The area's count of marks made in place (0 as written, or when the
 * filter has no area): what a daemon keeping the adds live compares.
 */
__u32 bw_records_marks(const void *mem, __u32 nblocks);

/*
 * Marks each of the n prefixes of p, or each name of names (checked and
 * folded, flags 0 or BW_DOM_SUBTREE), that the area of mem (a filter of
 * nblocks that passed bw_filter_check, mapped writable) holds as an add,
 * as taken out: every occurrence, in the records and in the add log, in
 * one walk of the area (n log n). found (one per entry, the caller's)
 * says which were marked. The entries marked (0 when none, or all were
 * already), counted in the area's marks; -EINVAL when the area is
 * malformed (nothing written), -ENOMEM.
 */
long bw_records_mark_gone_all(void *mem, __u32 nblocks,
			      const struct bw_prefix *p, size_t n,
			      const struct bw_list *names, bool *found);

/*
 * Marks p, an added entry of the area of mem (a filter of nblocks that
 * passed bw_filter_check, mapped writable), as taken out: 1 if marked, 0
 * when the area holds no such entry (or it is marked already), -EINVAL
 * when the area is malformed (nothing written).
 */
int bw_records_mark_gone(void *mem, __u32 nblocks, const struct bw_prefix *p);

/*
 * Marks the added name (checked and folded, as the area holds it; flags 0
 * or BW_DOM_SUBTREE: an exact name and the subtree of the same text are
 * two entries) as taken out, its kind byte getting BW_REC_NAME_GONE: 1 if
 * marked, 0 when the area holds no such name (or it is marked already),
 * -EINVAL when the area is malformed (nothing written). Counted in the
 * area's marks as bw_records_mark_gone's are.
 */
int bw_records_mark_gone_name(void *mem, __u32 nblocks, const char *name,
			      size_t len, __u8 flags);

#endif /* __BW_RECORDS_GONE_H */
