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

#include <stddef.h>
#include <linux/types.h>

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
 * The add log's room in mem's area (a filter of nblocks that passed
 * bw_filter_check) and how much of it is left, in bytes: 0, or -EINVAL
 * when the area is malformed or there is none.
 */
int bw_records_log_room(const void *mem, __u32 nblocks, __u64 *room,
			__u64 *left);

#endif /* __BW_RECORDS_LOG_H */
