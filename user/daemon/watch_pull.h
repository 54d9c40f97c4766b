/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's pull source (watch --url, pull.h) as the watch runs it: the
 * start, one pull when it is due or on SIGHUP (the download swapped in by
 * the watch's own rebuild, through load's path), and what the watch
 * publishes of it (its state file's "pull" section).
 */
#ifndef __BW_WATCH_PULL_H
#define __BW_WATCH_PULL_H

#include <stdbool.h>
#include <linux/types.h>

#include "daemon/pull.h"
#include "daemon/watch_apply.h"

/* What the pull needs of the watch. */
struct bw_watch_pull_ops {
	/* Swaps the image at path in (trigger for its log line): 0, -errno;
	 * -BW_WATCH_ESTOPPED when SIGTERM came. */
	int (*swap)(void *ctx, const char *path, const char *trigger);
	__u64 (*generation)(void *ctx); /* what runs; 0: nothing */
	/* Writes the watch's state file, the pull's section in it. */
	void (*publish)(void *ctx);
	void *ctx;
};

/*
 * Sets up the pull of c->pull (said: the URLs, the interval, the state
 * directory), then, when nothing runs and a last good image is kept,
 * swaps that in first; schedules the first pull. 0 or -errno.
 */
int bw_watch_pull_start(struct bw_pull *p, const struct bw_watch_cfg *c,
			const struct bw_watch_pull_ops *ops);

/*
 * One pull now (force: unconditional, as for SIGHUP), its download
 * swapped in through ops, its end counted and published. False when
 * SIGTERM or SIGINT came meanwhile.
 */
bool bw_watch_pull_run(struct bw_pull *p, const struct bw_watch_cfg *c,
		       struct bw_watch_signals *sig, bool force,
		       const struct bw_watch_pull_ops *ops);

#endif /* __BW_WATCH_PULL_H */
