/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A prefix as the record area holds it (struct bw_rec_prefix, address in
 * network byte order) and back: the added entries and their expiries.
 */
#ifndef __BW_REC_PREFIX_H
#define __BW_REC_PREFIX_H

#include <stdbool.h>

#include "bloomwall.h"
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

#endif /* __BW_REC_PREFIX_H */
