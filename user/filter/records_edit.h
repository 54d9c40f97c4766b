/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Editing the records of a built filter: the added entries and names a
 * verb adds or removes, and the lists and allowlist files it was built
 * from.
 */
#ifndef __BW_RECORDS_EDIT_H
#define __BW_RECORDS_EDIT_H

#include <stddef.h>

#include "filter/records.h"
#include "lists/list.h"

/* Appends p to the added entries unless there: 1 if new, 0 if not, -ENOMEM. */
int bw_records_add(struct bw_records *r, const struct bw_prefix *p);

/* Takes added entry i out, keeping the order of the others. */
void bw_records_drop(struct bw_records *r, size_t i);

/* Takes added name i out, keeping the order of the others. */
void bw_records_drop_name(struct bw_records *r, size_t i);

/* Replaces the list paths with copies of lists (sources unknown); -ENOMEM. */
int bw_records_set_lists(struct bw_records *r, const char *const *lists, int n);

/* What list i was when read: written as BW_REC_SOURCE. */
void bw_records_set_source(struct bw_records *r, int i,
			   const struct bw_rec_source *s);

/*
 * Replaces the allowlist files with copies of paths, each read as src[i]
 * says (BW_REC_ALLOW_SOURCE); -ENOMEM with r unchanged.
 */
int bw_records_set_allow(struct bw_records *r, const char *const *paths,
			 const struct bw_rec_source *src, int n);

/* dst's allowlist files become src's (a rebuild that keeps the allowlist). */
int bw_records_copy_allow(struct bw_records *dst, const struct bw_records *src);

#endif /* __BW_RECORDS_EDIT_H */
