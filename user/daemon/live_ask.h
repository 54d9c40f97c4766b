/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The socket's add and remove on the watch's live entries (live.h),
 * applied in place on the running filter.
 */
#ifndef __BW_DAEMON_LIVE_ASK_H
#define __BW_DAEMON_LIVE_ASK_H

#include <stdbool.h>

#include "daemon/live.h"
#include "lists/entry.h"

/*
 * The socket's add (live_view.h): the entries of s, prefixes and names,
 * each until its expiry (Unix seconds, 0: never), by owner (NULL or "":
 * the anonymous one; filter/owners.h: an entry ends at the latest end
 * among its owners), appended to the
 * running filter's add log (filter/records_log.h), adopted and set in
 * place, under the lock, taken without waiting. had (one per entry, the
 * caller's) says which were live already. 0; -EAGAIN (the lock is held,
 * or a swap came, or a rebuild's fork runs and swapped: ask again);
 * -EXDEV (not in place: the adds are built in, verify mode, the filter
 * has no target length or name region for one, or they would take an
 * image's filter past its target rate; the CLI swaps instead); -EBUSY
 * (the log is full: the watch's next turn folds it by a rebuild, ask
 * again); -ENOSPC (in place the entries would take the filter past twice
 * its target rate, daemon/live_size.h: the watch's next turn grows it by
 * a rebuild, ask again); -E2BIG (the question is larger than the whole
 * room: not in place either); -ENOENT (no filter runs); -EINVAL.
 */
int bw_wlive_add_log(struct bw_wlive *l, const struct bw_entries *s,
		     const char *owner, bool *had);

/*
 * The socket's remove (live_view.h): the entries of s, prefixes and
 * names, marked taken out in the running filter's records (every
 * occurrence, filter/records_gone.h) and taken out of the blocks by
 * bw_wlive_sync(), under the lock, taken without waiting. found (one per
 * entry, the caller's) says which were adds. With owner (not NULL or
 * ""), that owner's claims alone: found says which it had, kept (one per
 * entry) which other owners keep added (appended until their end). Returns as bw_wlive_sync,
 * or -EAGAIN as bw_wlive_add_log.
 */
int bw_wlive_remove(struct bw_wlive *l, const struct bw_entries *s,
		    const char *owner, bool *found, bool *kept);

#endif /* __BW_DAEMON_LIVE_ASK_H */
