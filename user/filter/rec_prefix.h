/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A prefix as the record area holds it (struct bw_rec_prefix, address in
 * network byte order) and back: the added entries and their expiries.
 */
#ifndef __BW_REC_PREFIX_H
#define __BW_REC_PREFIX_H

#include "bloomwall.h"
#include "lists/list.h"

/* The record as a prefix: 0, or -EINVAL (bad family or length, host bits). */
int bw_rec_prefix_read(const struct bw_rec_prefix *o, struct bw_prefix *p);

void bw_rec_prefix_write(const struct bw_prefix *p, struct bw_rec_prefix *o);

#endif /* __BW_REC_PREFIX_H */
