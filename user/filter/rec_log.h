/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The add log of a record area (include/bw_layout.h), read: its entries
 * in order, for records_read.c to apply after the records. The log lies in
 * the area's room past records_len and ends at the first zero head; each
 * head is read by one 8-byte load, so a record a watch is appending is
 * seen whole or not at all.
 */
#ifndef __BW_REC_LOG_H
#define __BW_REC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/entry.h"

/* A claim of the log: after seq of its entries. */
struct bw_rec_log_claim {
	struct bw_prefix p;
	__u64 expires;
	size_t seq;
	char name[BW_REC_OWNER_MAX + 1];
};

/*
 * The log's entries in order, prefixes and names, each with the expiry
 * it was added until; gone[i]: entry i is marked taken out.
 */
struct bw_rec_log {
	struct bw_entries e;
	bool *gone;
	size_t gone_cap;
	/* The owners' claims (BW_REC_LOG_OWNERS), in order. */
	struct bw_rec_log_claim *claims;
	size_t nclaims, claims_cap;
};

void bw_rec_log_init(struct bw_rec_log *l);

/*
 * Where the log of records (the bytes after the area's first block, len
 * of them records_len, room bytes in all) ends, as an offset from
 * records: at least len; -EINVAL when a head past len is no log
 * record's or its body does not fit in room.
 */
long long bw_rec_log_end(const __u8 *records, __u64 len, __u64 room);

/*
 * The log's entries into l, in order: 0, -EINVAL (a malformed entry or
 * record), -ENOMEM.
 */
int bw_rec_log_read(struct bw_rec_log *l, const __u8 *records, __u64 len,
		    __u64 room);

void bw_rec_log_free(struct bw_rec_log *l);

#endif /* __BW_REC_LOG_H */
