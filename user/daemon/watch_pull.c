// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's pull source as the watch runs it (watch_pull.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/output.h"
#include "daemon/pull_end.h"
#include "daemon/pull_sched.h"
#include "daemon/watch_pull.h"
#include "kernel/hook.h"

int bw_watch_pull_start(struct bw_pull *p, const struct bw_watch_cfg *c,
			const struct bw_watch_pull_ops *ops)
{
	const struct bw_pull_cfg *pc = c->pull;
	bool running;
	int err;

	err = bw_pull_init(p, c->iface, pc);
	if (err)
		return err;
	p->json = c->json;
	printf("%s: pulling from %s%s every %g s (+-%g%%), state in %s\n",
	       c->iface, pc->urls[0], pc->nurls > 1 ? " (and mirrors)" : "",
	       p->interval, 100 * BW_PULL_JITTER, p->dir);
	running = bw_hook_prog_id((int)if_nametoindex(c->iface));
	if (!running && bw_pull_have_last(p)) {
		err = ops->swap(ops->ctx, p->cur,
				"start: the last good image pulled");
		if (err == -BW_WATCH_ESTOPPED)
			return 0;
		running = !err;
	}
	bw_pull_schedule_first(p, running);
	ops->publish(ops->ctx);
	return 0;
}

/* The http transfer's stop: SIGTERM or SIGINT (SIGHUP is kept for later). */
static bool stop_requested(void *ctx)
{
	struct bw_watch_signals *sig = ctx;

	bw_watch_signals_read(sig);
	return sig->stop != 0;
}

bool bw_watch_pull_run(struct bw_pull *p, const struct bw_watch_cfg *c,
		       struct bw_watch_signals *sig, bool force,
		       const struct bw_watch_pull_ops *ops)
{
	char trigger[400];
	bool running = bw_hook_prog_id((int)if_nametoindex(c->iface));
	int rc, err = 0;

	/* Nothing runs: nothing a conditional request could keep. */
	rc = bw_pull_fetch(p, force || !running, stop_requested, sig->fd, sig);
	if (rc == -EINTR || sig->stop)
		return false;
	if (rc == 0) {
		snprintf(trigger, sizeof(trigger), "pull of %s%s%s%s",
			 p->url[p->fetched].url,
			 p->fetched_etag[0] ? ", ETag " : "", p->fetched_etag,
			 force ? ", SIGHUP" : "");
		err = ops->swap(ops->ctx, p->tmp, trigger);
		if (err == -BW_WATCH_ESTOPPED)
			return false;
	}
	bw_pull_finish(p, rc, err, ops->generation(ops->ctx));
	ops->publish(ops->ctx);
	return true;
}
