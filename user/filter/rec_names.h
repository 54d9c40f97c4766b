/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The added names of a record area as records.c reads them: the
 * BW_REC_ADDED_NAMES entries (those marked BW_REC_NAME_GONE apart) and the
 * BW_REC_ADDED_NAME_EXPIRES pairs, gathered while reading and matched up
 * once every record is read (the area may hold them in any order, in
 * several records). An area may hold many thousands of names: reading
 * sorts once, n log n, rather than looking each name up among the others.
 */
#ifndef __BW_REC_NAMES_H
#define __BW_REC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/list.h"

struct bw_rec_name_exp {
	__u64 expires; /* Unix seconds, 1 to BW_REC_EXPIRES_MAX */
	__u32 off;     /* of the name in bw_rec_name_expiries.names */
	__u8 len;
	__u8 flags; /* 0 or BW_DOM_SUBTREE */
	bool taken; /* found once: a name listed twice expires once */
};

struct bw_rec_name_expiries {
	struct bw_rec_name_exp *v;
	size_t n, cap;
	char *names; /* the arena: names back to back */
	size_t names_len, names_cap;
};

/* Whether p[0..len) is a name as a writer stores it: checked and folded. */
bool bw_rec_name_ok(const __u8 *p, __u8 len);

/*
 * One BW_REC_ADDED_NAMES body: its names pushed to names in order, those
 * marked BW_REC_NAME_GONE to gone instead. 0, -EINVAL (a partial entry,
 * an unknown kind, a name not as a writer stores it), -ENOMEM. Names
 * listed twice stay until bw_rec_names_dedup.
 */
int bw_rec_names_read(struct bw_list *names, struct bw_list *gone,
		      const __u8 *body, __u32 len);

/*
 * Drops the names of l listed before (hostile: add never writes a name
 * twice), keeping the order and the first of each: 0 or -ENOMEM.
 */
int bw_rec_names_dedup(struct bw_list *l);

/*
 * One BW_REC_ADDED_NAME_EXPIRES body into e: 0, -EINVAL (a partial
 * entry, an unknown kind, a bad name, an expiry of 0 or past
 * BW_REC_EXPIRES_MAX), -ENOMEM.
 */
int bw_rec_name_expiries_read(struct bw_rec_name_expiries *e, const __u8 *body,
			      __u32 len);

/*
 * Sorts e for lookups: 0, or -EINVAL when it names a name twice, as an
 * area naming a prefix's expiry twice is refused.
 */
int bw_rec_name_expiries_sort(struct bw_rec_name_expiries *e);

/*
 * The name's (flags 0 or BW_DOM_SUBTREE) expiry in a sorted e, 0 when e
 * does not name it (it never expires) or gave it already.
 */
__u64 bw_rec_name_expiries_take(struct bw_rec_name_expiries *e,
				const char *name, size_t len, __u8 flags);

void bw_rec_name_expiries_free(struct bw_rec_name_expiries *e);

#endif /* __BW_REC_NAMES_H */
