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

#include "lists/entry.h"

/*
 * The area's count of marks made in place (0 as written, or when the
 * filter has no area): what a daemon keeping the adds live compares.
 */
__u32 bw_records_marks(const void *mem, __u32 nblocks);

/*
 * Marks each entry of s that the area of mem (a filter of nblocks that
 * passed bw_filter_check, mapped writable) holds as an add, as taken out:
 * every occurrence, in the records and in the add log, in one walk of the
 * area (n log n). An exact name and the subtree of the same text are two
 * entries. found (one per entry of s, the caller's) says which were
 * marked. The entries marked (0 when none, or all were already), counted
 * in the area's marks; -EINVAL when the area is malformed (nothing
 * written), -ENOMEM.
 */
long bw_records_mark_gone_all(void *mem, __u32 nblocks,
			      const struct bw_entries *s, bool *found);

/*
 * Marks the one entry k as bw_records_mark_gone_all does: 1 if marked, 0
 * when the area holds no such add (or it is marked already), -EINVAL when
 * the area is malformed (nothing written), -ENOMEM.
 */
int bw_records_mark_gone(void *mem, __u32 nblocks, struct bw_entry_key k);

/*
 * Called for an added entry of an area not marked taken out: its key (a
 * name's text in the area) and its offset from the records' start (the
 * byte after the area's first block), the byte a mark sets.
 */
typedef void (*bw_rec_visit_fn)(void *ctx, struct bw_entry_key k, __u64 off);

/*
 * Calls fn for each added entry of mem's area (a filter of nblocks that
 * passed bw_filter_check) not marked taken out, the records' then the add
 * log's, in the order they lie; every length checked against the map. 0
 * (also with no area), or -EINVAL when the area is malformed (fn may have
 * been called for entries before).
 */
int bw_records_each_added(const void *mem, __u32 nblocks, bw_rec_visit_fn fn,
			  void *ctx);

/*
 * Marks the entry at off (from the records' start, as the walk above or
 * bw_records_log_add_at gave it) taken out if it is k and not marked yet,
 * as bw_records_mark_gone_all does, in O(1): 1 if marked, else 0 (the
 * area holds no such entry there). The marks count is the caller's to
 * raise (bw_records_marks_add), after its marks.
 */
int bw_records_mark_at(void *mem, __u32 nblocks, __u64 off,
		       struct bw_entry_key k);

/* Raises the area's count of marks by n (n entries marked). */
void bw_records_marks_add(void *mem, __u32 nblocks, __u32 n);

#endif /* __BW_RECORDS_GONE_H */
