/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's pull source (watch --url, pull.h) as the watch runs it: the
 * start, one pull when it is due or on SIGHUP, a transfer among the
 * loop's events (the download swapped in by the watch's own rebuild,
 * through load's path, once it came), and what the watch publishes of it
 * (its state file's "pull" section).
 */
#ifndef __BW_WATCH_PULL_H
#define __BW_WATCH_PULL_H

#include <poll.h>
#include <stdbool.h>
#include <linux/types.h>

#include "daemon/pull.h"
#include "daemon/watch_apply.h"

/* What the pull needs of the watch. */
struct bw_watch_pull_ops {
	/* Starts the swap of the image at path (trigger for its log line);
	 * its end, or its failure to start, comes to bw_watch_pull_swapped. */
	void (*swap)(void *ctx, const char *path, const char *trigger);
	__u64 (*generation)(void *ctx); /* what runs; 0: nothing */
	/* Writes the watch's state file, the pull's section in it. */
	void (*publish)(void *ctx);
	void *ctx;
};

/*
 * Sets up the pull of c->pull (said: the URLs, the interval, the state
 * directory). 0 or -errno (said).
 */
int bw_watch_pull_init(struct bw_pull *p, const struct bw_watch_cfg *c);

/*
 * The watch's start: when nothing runs and a last good image is kept,
 * its swap starts first; the first pull is scheduled (once that swap
 * ended).
 */
void bw_watch_pull_start(struct bw_pull *p, const struct bw_watch_cfg *c,
			 const struct bw_watch_pull_ops *ops);

/*
 * The swap ops->swap started ended with err (0: it went in), gen running
 * now: the pull's end counted (or the first pull scheduled), published.
 */
void bw_watch_pull_swapped(struct bw_pull *p, int err, __u64 gen,
			   const struct bw_watch_pull_ops *ops);

/*
 * Its part of the loop's poll: the sockets of the pull under way into
 * pfd (room for BW_HTTP_MAX_FDS), their count; *wake lowered to when it
 * wants its turn without an event (the next pull's time).
 */
int bw_watch_pull_fds(const struct bw_pull *p, struct pollfd *pfd,
		      double *wake);

/*
 * Its turn in the loop, after the poll (pfd and n as bw_watch_pull_fds
 * gave them): a pull begins when due, or now when force (SIGHUP: the one
 * under way dropped, this one unconditional); the one under way goes on
 * as far as it can without waiting, and once it ended its download's
 * swap starts through ops. Nothing while a swap runs. True when a pull
 * ended.
 */
bool bw_watch_pull_step(struct bw_pull *p, const struct bw_watch_cfg *c,
			bool force, const struct pollfd *pfd, int n,
			const struct bw_watch_pull_ops *ops);

/* Frees p (NULL: nothing), the pull under way dropped. */
void bw_watch_pull_free(struct bw_pull *p);

#endif /* __BW_WATCH_PULL_H */
