/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A prefix as the record area holds it (struct bw_rec_prefix, address in
 * network byte order) and back: the added entries and their expiries.
 *
 * The BW_REC_ADDED_EXPIRES records of an area as records.c reads it: the
 * (prefix, expiry) pairs gathered while reading, then looked up for each
 * added entry once every record is read (the area may hold them in any
 * order). Bounded by the area: sorting and lookups are n log n.
 */
#ifndef __BW_REC_PREFIX_H
#define __BW_REC_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

/* The record as a prefix: 0, or -EINVAL (bad family or length, host bits). */
int bw_rec_prefix_read(const struct bw_rec_prefix *o, struct bw_prefix *p);

void bw_rec_prefix_write(const struct bw_prefix *p, struct bw_rec_prefix *o);

struct bw_rec_exp {
	struct bw_prefix p;
	__u64 expires; /* Unix seconds, 1 to BW_REC_EXPIRES_MAX */
	bool taken;    /* found once: an entry listed twice expires once */
};

struct bw_rec_expiries {
	struct bw_rec_exp *v;
	size_t n, cap;
};

/*
 * One BW_REC_ADDED_EXPIRES body into e: 0, -EINVAL (a partial entry, a
 * bad prefix, an expiry of 0 or past BW_REC_EXPIRES_MAX), -ENOMEM.
 */
int bw_rec_expiries_read(struct bw_rec_expiries *e, const __u8 *body,
			 __u32 len);

/* Sorts e for lookups: 0, or -EINVAL when it names a prefix twice. */
int bw_rec_expiries_sort(struct bw_rec_expiries *e);

/*
 * p's expiry in a sorted e, 0 when e does not name it (never expires) or
 * gave it already: of an entry an area lists twice (hostile, the writer
 * never does), the first holds the expiry, as bw_records_find finds it.
 */
__u64 bw_rec_expiries_take(struct bw_rec_expiries *e,
			   const struct bw_prefix *p);

void bw_rec_expiries_free(struct bw_rec_expiries *e);

#endif /* __BW_REC_PREFIX_H */
