/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's live entries (filter/live.h): prefixes the daemon keeps in
 * the running filter on top of what the filter is built from, set and
 * taken out in place in the running map's mapping, with no rebuild and no
 * swap: a decision source's bans (CrowdSec), entries with an expiry.
 *
 * Kept right across filters:
 * - the watch's own rebuilds (watch_apply.c) call bw_wlive_fork_begin()
 *   before the fork; in the child, bw_wlive_stage() (the reload's
 *   before_swap_filter hook) saves the new filter's blocks that live keys
 *   land in, as built (the base), into a memfd, and sets every live key in
 *   it, before the swap; bw_wlive_fork_end() in the parent takes the new
 *   running map over: bases from the memfd, and what changed since the
 *   fork written in place (adds set, deletes recomputed).
 * - a filter another command swapped in (add, reload, load) is seen by
 *   bw_wlive_step() within a second: every live key is ORed into it at
 *   once (no false negative past that second), deletes are kept back (its
 *   blocks may hold that command's bits) and a rebuild is asked for, which
 *   gives true bases and applies them.
 * - nothing attached: entries are kept, and set in the next filter.
 *
 * The entries live in the daemon's memory only: a watch that ends takes
 * none with it (they stay set in the filter it leaves running until that
 * filter is rebuilt), a new watch starts with none.
 */
#ifndef __BW_DAEMON_LIVE_H
#define __BW_DAEMON_LIVE_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "filter/live.h"
#include "kernel/filter_map.h"
#include "lists/list.h"

/* Lives inside the watch; callers use the functions only. */
struct bw_wlive {
	struct bw_live set;
	const char *iface;
	struct bw_filter_map map; /* the running filter, mapped read-write */
	__u32 prog_id;		  /* the program it was found from; 0: none */
	bool want_rebuild;	  /* for true bases (bw_wlive_step) */
	bool changed;		  /* since the state was last published */
	bool staged;		  /* this fork's child was asked to stage */
	int memfd;		  /* a rebuild's bases, -1: none */
	__u64 adds, deletes, expired, takeovers;
};

/* What bw_wlive_stats() says (also in the state file and the metrics). */
struct bw_wlive_stats {
	size_t entries, keys, blocks;
	size_t bytes;	   /* memory held for them */
	__u64 next_expiry; /* Unix seconds; 0: none */
	__u64 adds, deletes, expired;
	__u64 takeovers; /* filters other commands swapped in, taken over */
	bool pending;	 /* deletes kept back until a rebuild */
};

void bw_wlive_init(struct bw_wlive *l, const char *iface);
void bw_wlive_free(struct bw_wlive *l);

/*
 * Keeps p in the running filter on top of what it is built from, until
 * bw_wlive_del for it (a second add of the same prefix needs a second
 * delete); expires: Unix seconds it ends (0: never; the daemon takes it
 * out in place within a second of it). 0, or -ENOENT (the filter has no
 * target length/region for it), -E2BIG (too many keys), -ENOMEM,
 * -EINVAL (no such prefix).
 */
int bw_wlive_add(struct bw_wlive *l, const struct bw_prefix *p, __u64 expires);

/* One add of p less; the last takes it out in place. 0 or -ENOENT. */
int bw_wlive_del(struct bw_wlive *l, const struct bw_prefix *p);

/* Whether p is live. */
bool bw_wlive_has(const struct bw_wlive *l, const struct bw_prefix *p);

/*
 * Once a second (and right after a rebuild): takes out the entries whose
 * expiry came (now: Unix seconds), and takes over a filter another
 * command swapped in. Returns true when a rebuild should run (for true
 * bases); the watch calls bw_wlive_rebuilt() after it.
 */
bool bw_wlive_step(struct bw_wlive *l, __u64 now);

/* Expiries only (while a rebuild runs: no filter is taken over). */
void bw_wlive_expire(struct bw_wlive *l, __u64 now);

/*
 * The rebuild's hand-over. fork_begin: in the parent before the fork (0
 * or -errno: then the rebuild must not run). stage: in the child, as the
 * reload's or attach's before_swap_filter hook, ctx the bw_wlive: m is the
 * new filter as built. fork_end: in the parent once the child ended.
 */
int bw_wlive_fork_begin(struct bw_wlive *l);
int bw_wlive_stage(void *ctx, const struct bw_filter_map *m);
void bw_wlive_fork_end(struct bw_wlive *l);

void bw_wlive_stats(const struct bw_wlive *l, struct bw_wlive_stats *s);

/* Sets the "live" section of the state file's root (daemon_state.h). */
void bw_wlive_publish(const struct bw_wlive *l, struct json_object *root);

#endif /* __BW_DAEMON_LIVE_H */
