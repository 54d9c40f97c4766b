/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's live entries, owned here alone: prefixes and names kept in
 * the running filter on top of what it is built from, set and taken out
 * in place. This module holds them and what the running filter is to
 * them (live_priv.h: none, own build, taken over, staging). The protocol:
 * - changes come as calls: a decision (bw_wlive_add, _del), the socket's
 *   add and remove (live_view.h: the records changed under the lock, then
 *   applied), and bw_wlive_step once a second: ends, marks a remove made
 *   itself, another command's swap;
 * - a rebuild hands over in one path (live_stage.h): fork_begin; stage in
 *   the child (bases into a memfd, live keys set before the swap);
 *   fork_end (its filter becomes the own build, what changed written);
 * - any other filter on the hook is taken over: live keys ORed in, deletes
 *   held until a rebuild (doc/watch.md "Live entries": why both).
 */
#ifndef __BW_DAEMON_LIVE_H
#define __BW_DAEMON_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/live.h"
#include "filter/live_room.h"

/* Seconds between the rebuilds asked for while none goes through. */
#define BW_WLIVE_RETRY 10

/* Lives beside the watch; its fields are the module's (live_priv.h). */
struct bw_wlive;

/*
 * The live entries of the watch on iface (kept, not copied); host_targets:
 * a decision source feeds them, the rebuilds have /32 and /128 targets.
 * NULL: no memory.
 */
struct bw_wlive *bw_wlive_new(const char *iface, bool host_targets);
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

/*
 * Once a second (and right after a rebuild): takes out the entries whose
 * expiry came (now: Unix seconds), takes out the adds a remove marked
 * itself, and takes over a filter another command swapped in. Returns
 * what a rebuild is due for (true bases, the adds built in or out), or
 * NULL; asked again every BW_WLIVE_RETRY seconds until one goes in.
 */
const char *bw_wlive_step(struct bw_wlive *l, __u64 now);

/* Expiries only (while a rebuild runs: no filter is taken over). */
void bw_wlive_expire(struct bw_wlive *l, __u64 now);

/* Whether the watch's rebuilds leave the adds to the hook. */
bool bw_wlive_adds_live(const struct bw_wlive *l);

/*
 * Whether the filter map map_id is the watch's own last rebuild with live
 * entries: its keys beyond the lists' are those, which a rebuild sets
 * again (no rebuild for the rate then).
 */
bool bw_wlive_own_map(const struct bw_wlive *l, __u32 map_id);

/* What the next rebuild sizes for besides the lists (in the child). */
void bw_wlive_room(const struct bw_wlive *l, struct bw_live_room *r);

/*
 * Whether the live entries outgrew the running filter, or adds were
 * refused for want of a target length: a rebuild with room is due
 * (live_size.h); why says why. now: CLOCK_MONOTONIC seconds.
 */
bool bw_wlive_outgrown(struct bw_wlive *l, double now, char *why, size_t len);

/* Whether anything changed since bw_wlive_published(), which says so. */
bool bw_wlive_changed(const struct bw_wlive *l);
void bw_wlive_published(struct bw_wlive *l);

#endif /* __BW_DAEMON_LIVE_H */
