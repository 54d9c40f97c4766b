/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The CLI's adds ('bloomwall add', with or without --timeout), prefixes
 * and names, a watch keeps as live entries (live.h): read from a filter's records, set in a
 * live set, taken out of it when the records no longer hold them (a
 * remove, marked in place or through a swap; a new timeout) or when they
 * end.
 */
#ifndef __BW_DAEMON_LIVE_REC_H
#define __BW_DAEMON_LIVE_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/live.h"
#include "filter/records_index.h"
#include "lists/entry.h"
#include "lists/list.h"

/*
 * The prefix adds taken into a set, each with the expiry it was taken
 * with. The set's names are all adopted ones (no other source adds
 * names): they are synced against the records directly. The index of the
 * records they were synced with lets the watch's own changes be taken in
 * alone (bw_adopted_append, _mark, _apply): O(R) for R entries, whatever
 * the records hold.
 */
struct bw_adopted {
	struct bw_entries e; /* prefixes, indexed */
	size_t dropped;	     /* of e, taken out in place */
	struct bw_rec_index ix;
};

/* An adopted entry's expiry once taken out (compacted away in time). */
#define BW_ADOPTED_DROPPED ((__u64)-1)

void bw_adopted_init(struct bw_adopted *a);
void bw_adopted_free(struct bw_adopted *a);

/*
 * Makes the adds a set holds from mem's records (a filter of nblocks)
 * those of its records that do not end by now: each new one added to set
 * (its keys set in target, NULL: none), each gone one deleted (from
 * target). strict: an add the set's layout cannot hold fails it (-ENOENT,
 * -E2BIG: said, naming it), else it is passed over. The records' next
 * expiry in *next (0: none). The index is built anew from the records
 * read. 0 or -errno.
 */
int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next);

/*
 * Under the caller's lock (kernel/lock.h), the entries of s appended to
 * the add log of mem's area (a filter of nblocks), with own's claims
 * of its prefixes (filter/owners.h; NULL: none), through the index
 * when it is current (with claims: -ESTALE when it is not); when not, the whole log is walked and the index is
 * forgotten. 0, or as bw_records_log_add. bw_adopted_indexed() then says
 * whether bw_adopted_apply() takes them in, or a full sync must.
 */
int bw_adopted_append(struct bw_adopted *a, void *mem, __u32 nblocks,
		      const struct bw_entries *s, const struct bw_owners *own);

/*
 * The same for a remove: the entries of s marked taken out, as
 * bw_records_mark_gone_all says (found, the count or -errno).
 */
long bw_adopted_mark(struct bw_adopted *a, void *mem, __u32 nblocks,
		     const struct bw_entries *s, bool *found);

/* Whether the index follows the records (built and kept since). */
static inline bool bw_adopted_indexed(const struct bw_adopted *a)
{
	return a->ix.valid;
}

/*
 * After bw_adopted_append or _mark kept the index: the set (its keys in
 * target, NULL: none) brought in line with the records for the entries
 * of s alone, as bw_adopted_sync would bring it, not strict; under
 * --subdomains an exact name and the subtree of one text are one entry
 * (live while either is, until the later end). 0, -ESTALE (no index: a
 * full sync instead), -ENOMEM.
 */
int bw_adopted_apply(struct bw_adopted *a, struct bw_live *set, void *target,
		     const struct bw_entries *s, __u64 now);

/*
 * Whether another writer changed mem's records since the index was made
 * or kept (a mark, an append): a full sync is due. O(1).
 */
bool bw_adopted_moved(const struct bw_adopted *a, const void *mem,
		      __u32 nblocks);

/*
 * Whether mem's records build names as subtrees (--subdomains): from the
 * index when it is of mem, else read. 0 or -EINVAL (unreadable).
 */
int bw_adopted_subdomains(const struct bw_adopted *a, const void *mem,
			  __u32 nblocks, bool *subdomains);

/*
 * The add log's room in mem's area and what is left of it, as
 * bw_records_log_room says: O(1) by the index when it is current, else
 * by a walk of the log's heads.
 */
int bw_adopted_log_room(const struct bw_adopted *a, const void *mem,
			__u32 nblocks, __u64 *room, __u64 *left);

/* Drops those the set no longer holds (ended there). */
void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set);

#endif /* __BW_DAEMON_LIVE_REC_H */
