/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The add log of a running filter's record area (include/bw_layout.h):
 * entries a watch adds in place, appended past the records into the
 * area's room, each record's head stored last by one 8-byte store, so
 * that a reader of the running map (records.h reads the log after the
 * records) sees an add whole or not at all, and a writer killed midway
 * leaves nothing. The caller holds the lock every writer of a running
 * filter takes (kernel/lock.h).
 */
#ifndef __BW_RECORDS_LOG_H
#define __BW_RECORDS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/owners.h"
#include "lists/entry.h"

/*
 * Appends to the add log of mem's area (a filter of nblocks that passed
 * bw_filter_check, mapped writable) the entries of s, each added until its
 * expiry (past BW_REC_EXPIRES_MAX: that): the prefixes in one record, the
 * names in a second, which a reader sees both or neither of. 0; -E2BIG
 * when the room left cannot hold them; -EINVAL when the area's first
 * block or its log is malformed, or there is none (nothing written either
 * way). The records before the log are not read: an append walks the
 * log's heads only.
 */
int bw_records_log_add(void *mem, __u32 nblocks, const struct bw_entries *s);

/*
 * As bw_records_log_add, at *end (an offset from the records' start,
 * the byte after the area's first block), where the caller last saw this
 * area's log end: no head before it is walked. -ESTALE (nothing written)
 * when the log does not end there any more (another writer appended: the
 * head there is not zero). *end then the log's new end; off (one per entry
 * of s, NULL: not wanted) gets each entry's offset from the records'
 * start: the byte a mark sets (records_gone.h). own (NULL: none): the
 * owners' claims of the prefixes of s (filter/owners.h), appended after
 * them (BW_REC_LOG_OWNERS), in the same step: a prefix without claims
 * there has the anonymous owner alone from then on.
 */
int bw_records_log_add_at(void *mem, __u32 nblocks, const struct bw_entries *s,
			  const struct bw_owners *own, __u64 *end, __u64 *off);

/*
 * Where the add log of mem's area ends, as an offset from the records'
 * start (a walk of the log's heads): -EINVAL when the area is malformed
 * or there is none.
 */
long long bw_records_log_end(const void *mem, __u32 nblocks);

/* Whether the add log of mem's area still ends at end (O(1)). */
bool bw_records_log_ends_at(const void *mem, __u32 nblocks, __u64 end);

/*
 * The add log's room in mem's area (a filter of nblocks that passed
 * bw_filter_check) and how much of it is left, in bytes: 0, or -EINVAL
 * when the area is malformed or there is none.
 */
int bw_records_log_room(const void *mem, __u32 nblocks, __u64 *room,
			__u64 *left);

/*
 * The same with the log ending at end (from the records' start), where
 * the caller last saw it end: no head is walked. -ESTALE when it does not
 * end there any more.
 */
int bw_records_log_room_at(const void *mem, __u32 nblocks, __u64 end,
			   __u64 *room, __u64 *left);

#endif /* __BW_RECORDS_LOG_H */
