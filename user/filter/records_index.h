/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An index of a running filter's record area, kept beside it by the one
 * writer that changes it most (the watch): each added entry's state as a
 * reader reads it (added until when, or taken out) and where its unmarked
 * occurrences lie. Through it that writer's own changes of R entries cost
 * O(R) whatever the area holds: an append (bw_rec_index_add) and a
 * remove's marks (bw_rec_index_mark) touch those entries alone, never a
 * walk of the area. Built from one full read; current while the area is
 * as the index left it (its count of marks, its log's end): any other
 * writer's change makes it stale (-ESTALE, nothing written), and the
 * caller builds it again from a full read. The caller holds the lock
 * every writer of a running filter takes (kernel/lock.h) across a
 * change.
 */
#ifndef __BW_RECORDS_INDEX_H
#define __BW_RECORDS_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/owners.h"
#include "filter/records.h"
#include "lists/entry.h"

/* An index key's expiry while its entry is taken out. */
#define BW_REC_INDEX_OUT ((__u64)-1)

/* An unmarked occurrence: its offset from the records' start, the next. */
struct bw_rec_occ {
	__u64 off;
	__u32 next; /* the key's older occurrence, BW_REC_OCC_NONE: none */
};

#define BW_REC_OCC_NONE ((__u32)-1)

struct bw_rec_index {
	bool valid;
	const void *mem; /* the area's filter, as it was built from */
	__u32 nblocks;
	__u32 marks;	 /* the area's count of marks as the index left it */
	__u64 end;	 /* the add log's end, from the records' start */
	bool subdomains; /* the records' BW_REC_DNS_SUBDOMAINS */
	/*
	 * Each entry the area names once (indexed); expires: its end (0:
	 * never) while added, BW_REC_INDEX_OUT while taken out.
	 */
	struct bw_entries keys;
	__u32 *first; /* per key: its newest unmarked occurrence in occ */
	size_t first_cap;
	struct bw_rec_occ *occ;
	size_t nocc, occ_cap;
	/* The owners' claims as the area holds them (filter/owners.h). */
	struct bw_owners owners;
};

void bw_rec_index_init(struct bw_rec_index *ix);
void bw_rec_index_free(struct bw_rec_index *ix);

/* Forgets the area (another map runs): stale until built again. */
void bw_rec_index_forget(struct bw_rec_index *ix);

/*
 * Builds the index of mem's area (a filter of nblocks) from r, the area
 * as read (records_read.h) after its count of marks was marks: a mark
 * made since leaves the index stale. 0, -EINVAL (no area, or a malformed
 * one), -ENOMEM; not valid on failure.
 */
int bw_rec_index_build(struct bw_rec_index *ix, const void *mem, __u32 nblocks,
		       const struct bw_records *r, __u32 marks);

/* Whether the index is of mem's area as it is now, in O(1). */
bool bw_rec_index_current(const struct bw_rec_index *ix, const void *mem,
			  __u32 nblocks);

/*
 * Appends s to the add log of mem's area (bw_records_log_add_at), with
 * own's claims of its prefixes (NULL: none, each the anonymous owner's
 * alone from then on), the index following (without memory to, it is not valid after): 0;
 * -ESTALE when the index is not current; -E2BIG, -EINVAL as
 * bw_records_log_add (nothing written on < 0).
 */
int bw_rec_index_add(struct bw_rec_index *ix, void *mem, __u32 nblocks,
		     const struct bw_entries *s, const struct bw_owners *own);

/*
 * Marks taken out every unmarked occurrence of each entry of s, as
 * bw_records_mark_gone_all does (found, the count returned; the area's
 * count of marks raised), through the index, newest occurrence first (a
 * reader goes by an entry's last one: out at the first store). -ESTALE
 * (nothing written) when the index is not current. An occurrence that is
 * not where the index has it (another writer killed between its marks
 * and their count) leaves the index not valid, for the caller to build
 * again.
 */
long bw_rec_index_mark(struct bw_rec_index *ix, void *mem, __u32 nblocks,
		       const struct bw_entries *s, bool *found);

/* k's claims as the area holds them (NULL: the anonymous owner alone). */
const struct bw_owned *bw_rec_index_owners(const struct bw_rec_index *ix,
					   struct bw_entry_key k);

/*
 * An add of the entries of s by owner (NULL or "": anonymous), as
 * the index holds them (current: the caller checked): into out each with
 * the end the owners' rules give it (filter/owners.h), into own the
 * claims to append with it (bw_rec_index_add). 0 or -ENOMEM.
 */
int bw_rec_index_plan_add(const struct bw_rec_index *ix,
			  const struct bw_entries *s, const char *owner,
			  struct bw_entries *out, struct bw_owners *own);

/*
 * A remove of owner's claims (owner not anonymous) on the entries of s
 * at now: left[i] (one per entry, the caller's) enum bw_owned_left;
 * those taken out whole into gone (to mark), those other owners keep
 * into kept, each until its new end, with own their claims left (to
 * append). 0 or -ENOMEM.
 */
int bw_rec_index_plan_remove(const struct bw_rec_index *ix,
			     const struct bw_entries *s, const char *owner,
			     __u64 now, struct bw_entries *gone,
			     struct bw_entries *kept, struct bw_owners *own,
			     __u8 *left);

/* Whether the area holds k added, and until when (0: never). */
bool bw_rec_index_held(const struct bw_rec_index *ix, struct bw_entry_key k,
		       __u64 *expires);

#endif /* __BW_RECORDS_INDEX_H */
