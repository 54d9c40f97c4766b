/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's live entries (filter/live.h), owned here alone: prefixes
 * and names kept in the running filter on top of what it is built from,
 * set and taken out in place in the running map, with no rebuild and no
 * swap. The protocol:
 * - a change comes as a call: bw_wlive_add (a decision), bw_wlive_del,
 *   bw_wlive_add_log and bw_wlive_remove (add and remove handed over on
 *   the socket: the records changed under the lock, then applied),
 *   bw_wlive_sync (the records read again), bw_wlive_step (once a
 *   second: ends, marks a remove made itself, another command's swap);
 * - the records (with their add log) hold every add; the set adopts them;
 * - a rebuild hands over through live_stage.h: fork_begin / stage (in
 *   the child: the new filter's bases into a memfd, every live key set
 *   before the swap) / fork_end (the bases taken, what changed since
 *   written in place);
 * - a filter another command swapped in is taken over: every live key
 *   set in it at once, deletes held back until a rebuild gives bases.
 *
 * Details: the adds are left out of the watch's rebuilds (reload's
 * adds_live) and set live, unless the new filter has no target length
 * for one or runs in verify mode: then they are built in (adds_in_base)
 * and each end or remove rebuilds. The entries live in the daemon's
 * memory only: a new watch adopts the adds from the records, and its
 * decision sources sync again.
 */
#ifndef __BW_DAEMON_LIVE_H
#define __BW_DAEMON_LIVE_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "daemon/live_rec.h"
#include "daemon/live_size.h"
#include "filter/records.h"
#include "filter/live.h"
#include "kernel/filter_map.h"
#include "lists/list.h"

/* Seconds between the rebuilds asked for while none goes through. */
#define BW_WLIVE_RETRY 10

/* Lives inside the watch; callers use the functions only. */
struct bw_wlive {
	struct bw_live set;
	const char *iface;
	struct bw_filter_map map; /* the running filter, mapped read-write */
	__u32 prog_id;		  /* the program it was found from; 0: none */
	__u32 own_map;		  /* the map of the watch's last own rebuild */
	bool want_rebuild;	  /* for true bases (bw_wlive_step) */
	__u64 retry_at;		  /* when to ask for it again, Unix seconds */
	bool changed;		  /* since the state was last published */
	bool staged;		  /* this fork's child was asked to stage */
	int memfd;		  /* a rebuild's bases, -1: none */
	/* The CLI's adds kept live (live_rec.h). */
	struct bw_adopted adopted;
	/*
	 * One of them has no target length to be kept live in: the watch's
	 * rebuilds build them in, and rebuild at base_expiry, the next end.
	 */
	bool adds_in_base;
	__u64 base_expiry;
	__u32 marks;	 /* the running map's records' marks, as last synced */
	__u64 looked_at; /* when an add last looked for a filter, Unix s */
	const char
		*rebuild_why; /* what the rebuild bw_wlive_step asks is for */
	__u64 adds, deletes, expired, takeovers;
	struct bw_wsize size; /* rebuilds sized for them (live_size.h) */
};

void bw_wlive_init(struct bw_wlive *l, const char *iface);
void bw_wlive_free(struct bw_wlive *l);

/*
 * Keeps p in the running filter on top of what it is built from, until
 * bw_wlive_del for it (a second add of the same prefix needs a second
 * delete); expires: Unix seconds it ends (0: never; the daemon takes it
 * out in place within a second of it). 0, or -ENOENT (the filter has no
 * target length/region for it), -E2BIG (too many keys), -ENOMEM,
 * -EINVAL (no such prefix). One refused with -ENOENT or -E2BIG is kept
 * for the next rebuild to size for (live_size.h).
 */
int bw_wlive_add(struct bw_wlive *l, const struct bw_prefix *p, __u64 expires);

/* One add of p less; the last takes it out in place. 0 or -ENOENT. */
int bw_wlive_del(struct bw_wlive *l, const struct bw_prefix *p);

/* Whether the watch's rebuilds leave the adds to the hook. */
static inline bool bw_wlive_adds_live(const struct bw_wlive *l)
{
	return l && !l->adds_in_base;
}

/*
 * Whether the filter map map_id is the watch's own last rebuild: its keys
 * beyond the lists' are live entries, which a rebuild sets again (no
 * rebuild for the rate then).
 */
static inline bool bw_wlive_own_map(const struct bw_wlive *l, __u32 map_id)
{
	return map_id && l->own_map == map_id && l->set.nkeys;
}

/* What the next rebuild sizes for besides the lists (in the child). */
void bw_wlive_room(const struct bw_wlive *l, struct bw_live_room *r);

/*
 * Whether the live entries outgrew the running filter, or adds were
 * refused for want of a target length: a rebuild with room is due
 * (live_size.h); why says why. now: CLOCK_MONOTONIC seconds.
 */
bool bw_wlive_outgrown(struct bw_wlive *l, double now, char *why, size_t len);

/*
 * Once a second (and right after a rebuild): takes out the entries whose
 * expiry came (now: Unix seconds), and takes over a filter another
 * command swapped in. Returns true when a rebuild should run (for true
 * bases); the watch calls bw_wlive_rebuilt() after it.
 */
bool bw_wlive_step(struct bw_wlive *l, __u64 now);

/*
 * The running filter's records read again (a remove marked adds taken
 * out): the adds kept live that they no longer hold go out in place;
 * where the adds are built in, a rebuild is asked for. 1 (in place), 0
 * (a rebuild takes them out), -ENOENT (no filter runs), -EINVAL (its
 * records cannot be read). r (NULL: not wanted) gets the records read,
 * the marked entries in r->gone (bw_records_free() it whatever the
 * return).
 */
int bw_wlive_sync(struct bw_wlive *l, struct bw_records *r);

/*
 * An add handed over by 'bloomwall add' (the socket's "add"): the n
 * prefixes of p, or the names of names, each until expires (Unix
 * seconds, 0: never), appended to the running filter's add log
 * (filter/records_log.h) under the lock, taken without waiting, then
 * adopted and set in place: no rebuild, no swap. had (one per entry,
 * the caller's) says which were live already. 0; -EAGAIN (the lock is
 * held: ask again); -EXDEV (not in place: the adds are built in, verify
 * mode, or the filter has no target length or name region for one; the
 * CLI swaps instead); -E2BIG (the log's room is full: likewise);
 * -ENOENT (no filter runs); -EINVAL.
 */
int bw_wlive_add_log(struct bw_wlive *l, const struct bw_prefix *p, size_t n,
		     const struct bw_list *names, __u64 expires, bool *had);

/*
 * A remove handed over by 'bloomwall remove' (the socket's "remove"): the
 * n prefixes of p, or the names of names, marked taken out in the running
 * filter's records (every occurrence, filter/records_gone.h) under the
 * lock, taken without waiting, then taken out of the blocks in place by
 * bw_wlive_sync(). found (one per entry, the caller's) says which were
 * adds. 1 (in place), 0 (the adds are built in: a rebuild is asked for),
 * -EAGAIN (the lock is held: ask again), -ENOENT (no filter runs),
 * -EINVAL (the records cannot be read).
 */
int bw_wlive_remove(struct bw_wlive *l, const struct bw_prefix *p, size_t n,
		    const struct bw_list *names, bool *found);

/* Expiries only (while a rebuild runs: no filter is taken over). */
void bw_wlive_expire(struct bw_wlive *l, __u64 now);

/* A verify-mode filter: its adds are built in (builder.c's adds_live). */
static inline bool bw_wlive_verify(const void *mem)
{
	return ((const struct bw_hdr *)mem)->flags & BW_F_VERIFY;
}

/*
 * For the rebuild's hand-over (live_stage.h). adopt: the adds of m's
 * records as live entries (their keys set in target, NULL: none), strict
 * as bw_adopted_sync; 0 or -errno. take_over: a filter not of this
 * watch's making now runs (m, its program prog): every live key set in
 * it, deletes kept back until a rebuild gives true bases.
 */
int bw_wlive_adopt(struct bw_wlive *l, const struct bw_filter_map *m,
		   void *target, bool strict);
void bw_wlive_take_over(struct bw_wlive *l, struct bw_filter_map *m,
			__u32 prog);

#endif /* __BW_DAEMON_LIVE_H */
