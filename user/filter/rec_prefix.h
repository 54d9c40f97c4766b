/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A prefix as the record area holds it (struct bw_rec_prefix, address in
 * network byte order) and back: the added entries and their expiries.
 */
#ifndef __BW_REC_PREFIX_H
#define __BW_REC_PREFIX_H

#include <stdbool.h>

#include "bloomwall.h"
#include "filter/owners.h"
#include "lists/list.h"

/* The record as a prefix: 0, or -EINVAL (bad family or length, host bits). */
int bw_rec_prefix_read(const struct bw_rec_prefix *o, struct bw_prefix *p);

/*
 * An added entry's record: *gone whether a remove marked it taken out in
 * place (BW_REC_PREFIX_GONE), p its prefix without the mark; as above.
 */
int bw_rec_added_read(const struct bw_rec_prefix *o, struct bw_prefix *p,
		      bool *gone);

void bw_rec_prefix_write(const struct bw_prefix *p, struct bw_rec_prefix *o);

/*
 * An owner's claim (BW_REC_OWNERS): its prefix, and its name ("" the
 * anonymous owner); 0, or -EINVAL (a bad prefix, end or name).
 */
int bw_rec_owner_read(const struct bw_rec_owner *o, struct bw_prefix *p,
		      char name[BW_REC_OWNER_MAX + 1]);

/* c's claim on p as the records hold it. */
void bw_rec_owner_write(const struct bw_prefix *p, const struct bw_claim *c,
			struct bw_rec_owner *o);

#endif /* __BW_REC_PREFIX_H */
