/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's rebuilds (watch.h): each in a child through the operations
 * the verbs use (watch_apply.h), one at a time, its end one of the loop's
 * events; the log line, the counts and what the end means for the next,
 * the start and the pull (whose swaps are rebuilds with its image).
 */
#ifndef __BW_WATCH_REBUILD_H
#define __BW_WATCH_REBUILD_H

#include <poll.h>
#include <stdbool.h>

#include "daemon/watch_state.h"

/* Whether a rebuild runs (what asks for one meanwhile waits). */
bool bw_watch_rebuild_busy(const struct watch *w);

/*
 * A rebuild starts (trigger: for its log line; allow_shrink: this once
 * past the shrink guard): 0, or the error it could not start with (said,
 * its log line written). Its end comes to bw_watch_rebuild_ended.
 */
int bw_watch_rebuild(struct watch *w, const char *trigger, bool allow_shrink);

/* The rebuild under way ended (its pipe is readable): its result taken. */
void bw_watch_rebuild_ended(struct watch *w);

/* The pull's turn in the loop (pfd, n: its sockets as polled). */
void bw_watch_rebuild_pull(struct watch *w, bool force,
			   const struct pollfd *pfd, int n);

/* The pull at the watch's start (a last good image swapped in first). */
void bw_watch_rebuild_pull_start(struct watch *w);

#endif /* __BW_WATCH_REBUILD_H */
