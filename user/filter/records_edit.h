/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Editing the records of a built filter: the added entries and names a
 * verb adds or removes, and the lists and allowlist files it was built
 * from.
 */
#ifndef __BW_RECORDS_EDIT_H
#define __BW_RECORDS_EDIT_H

#include <stddef.h>
#include <linux/types.h>

#include "filter/records.h"
#include "lists/list.h"

/*
 * Appends k to the added entries unless there: 1 if new (it never
 * expires), 0 if not (its expiry stays), -ENOMEM.
 */
int bw_records_add(struct bw_records *r, struct bw_entry_key k);

/*
 * As bw_records_add, and k's expiry becomes expires (Unix seconds, 0:
 * never) whether it was there or not: a new timeout replaces the old one,
 * an add without one makes the entry permanent (ipset's semantics).
 */
int bw_records_add_until(struct bw_records *r, struct bw_entry_key k,
			 __u64 expires);

/*
 * An add of k by owner (NULL or "": the anonymous owner, filter/owners.h)
 * until expires (0: never): its claim set, and k added until the
 * latest end among its owners (an add without owner of an entry no owner
 * claims: as bw_records_add_until). A name has no owners (owner must be
 * NULL). 1 if new, 0 if not, -ENOMEM.
 */
int bw_records_add_owned(struct bw_records *r, struct bw_entry_key k,
			 const char *owner, __u64 expires);

/*
 * owner's claim on k taken out at now (owner not anonymous): enum
 * bw_owned_left; GONE: k taken out (no other owner wants it); KEPT: k
 * kept until *end, the latest end among the owners left; or -ENOMEM.
 */
int bw_records_remove_owned(struct bw_records *r, struct bw_entry_key k,
			    const char *owner, __u64 now, __u64 *end);

/* Each entry of in added by owner (bw_records_add_owned): 0, -ENOMEM. */
int bw_records_add_by(struct bw_records *r, const struct bw_entries *in,
		      const char *owner);

/*
 * owner's claims on the entries of out taken out (bw_records_remove_owned):
 * how many went whole, or -ENOMEM.
 */
long bw_records_remove_by(struct bw_records *r, const struct bw_entries *out,
			  const char *owner, __u64 now);

/* Takes added entry i out, keeping the order of the others. */
void bw_records_drop(struct bw_records *r, size_t i);

/*
 * Takes each entry of out that the added entries hold out (the first
 * occurrence, as bw_records_find finds it), keeping the order of the
 * others, in O(N + n): how many went, or -ENOMEM (nothing taken out).
 */
long bw_records_drop_all(struct bw_records *r, const struct bw_entries *out);

/*
 * Each entry of in added until its expiry (bw_records_add_until), in
 * O(N + n): 0 or -ENOMEM.
 */
int bw_records_add_all(struct bw_records *r, const struct bw_entries *in);

/* Added entries of the kinds (enum bw_entry_kind, a mask) that expire. */
size_t bw_records_expiring(const struct bw_records *r, int kinds);

/*
 * Added entries of the kinds whose expiry is at or before now (Unix
 * seconds): past it.
 */
size_t bw_records_expired(const struct bw_records *r, int kinds, __u64 now);

/*
 * Takes the added entries past their expiry at now out (a rebuild never
 * builds one in again): how many.
 */
size_t bw_records_drop_expired(struct bw_records *r, __u64 now);

/* The earliest expiry among the added entries, 0 when none expires. */
__u64 bw_records_next_expiry(const struct bw_records *r);

/* Now as expiries count it: CLOCK_REALTIME's seconds. */
__u64 bw_expiry_now(void);

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
