// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's pull source as the watch runs it (watch_pull.h).
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "daemon/pull_end.h"
#include "daemon/pull_sched.h"
#include "daemon/watch_pull.h"
#include "kernel/hook.h"
#include "net/tls_files.h"

int bw_watch_pull_init(struct bw_pull *p, const struct bw_watch_cfg *c)
{
	const struct bw_pull_cfg *pc = c->pull;
	int err;

	err = bw_tls_files_trusted(pc->ca_file, "--ca-file", pc->cert_file,
				   "--client-cert", pc->key_file,
				   "--client-key")
		      ?: bw_pull_init(p, c->iface, pc);
	if (err)
		return err;
	p->json = c->json;
	p->need_signed = c->keys && c->keys->n > 0;
	printf("%s: pulling from %s%s every %g s (+-%g%%), state in %s\n",
	       c->iface, pc->urls[0], pc->nurls > 1 ? " (and mirrors)" : "",
	       p->interval, 100 * BW_PULL_JITTER, p->dir);
	return 0;
}

void bw_watch_pull_start(struct bw_pull *p, const struct bw_watch_cfg *c,
			 const struct bw_watch_pull_ops *ops)
{
	bool running = bw_hook_prog_id((int)if_nametoindex(c->iface));

	if (!running && bw_pull_have_last(p)) {
		p->swap = BW_PULL_SWAP_LAST;
		ops->swap(ops->ctx, p->cur,
			  "start: the last good image pulled");
		return;
	}
	bw_pull_schedule_first(p, running);
	ops->publish(ops->ctx);
}

void bw_watch_pull_swapped(struct bw_pull *p, int err, __u64 gen,
			   const struct bw_watch_pull_ops *ops)
{
	int swap = p->swap;

	p->swap = BW_PULL_SWAP_NONE;
	if (swap == BW_PULL_SWAP_LAST)
		bw_pull_schedule_first(p, !err);
	/* A refused image: the mirrors after it are asked in turn. */
	else if (swap == BW_PULL_SWAP_NEW &&
		 !(err && bw_pull_next_mirror(p, err)))
		bw_pull_finish(p, 0, err, gen);
	ops->publish(ops->ctx);
}

int bw_watch_pull_fds(const struct bw_pull *p, struct pollfd *pfd, double *wake)
{
	if (p->swap)
		return 0;
	if (p->fetch)
		return bw_pull_fds(p, pfd, wake);
	*wake = fmin(*wake, p->next);
	return 0;
}

/* A pull begins; nothing runs: nothing a conditional request could keep. */
static void begin(struct bw_pull *p, const struct bw_watch_cfg *c, bool force)
{
	bool running = bw_hook_prog_id((int)if_nametoindex(c->iface));

	bw_pull_cancel(p);
	p->hup = force;
	if (bw_pull_begin(p, force || !running))
		p->next = bw_mono() + p->interval;
}

bool bw_watch_pull_step(struct bw_pull *p, const struct bw_watch_cfg *c,
			bool force, const struct pollfd *pfd, int n,
			const struct bw_watch_pull_ops *ops)
{
	char trigger[400];
	int rc;

	if (p->swap)
		return false;
	if (force || (!p->fetch && bw_mono() >= p->next)) {
		begin(p, c, force);
		return false;
	}
	if (!p->fetch)
		return false;
	rc = bw_pull_step(p, pfd, n);
	if (rc == -EINPROGRESS)
		return false;
	if (rc == 0) {
		snprintf(trigger, sizeof(trigger), "pull of %s%s%s%s",
			 p->url[p->fetched].url,
			 p->fetched_etag[0] ? ", ETag " : "", p->fetched_etag,
			 p->hup ? ", SIGHUP" : "");
		p->swap = BW_PULL_SWAP_NEW;
		ops->swap(ops->ctx, p->tmp, trigger);
		return true;
	}
	bw_pull_finish(p, rc, 0, ops->generation(ops->ctx));
	ops->publish(ops->ctx);
	return true;
}

void bw_watch_pull_free(struct bw_pull *p)
{
	if (p)
		bw_pull_cancel(p);
	free(p);
}
