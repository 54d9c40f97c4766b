// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The watch's CrowdSec part (watch_cs.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "daemon/crowdsec_state.h"
#include "daemon/crowdsec_why.h"
#include "daemon/watch_cs.h"
#include "ops/daemon_state.h"

void bw_watch_cs_init(struct bw_watch_cs *x, const struct bw_watch_cfg *c)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
}

int bw_watch_cs_open(struct bw_watch_cs *x, struct bw_wlive *live)
{
	const struct bw_watch_cfg *c = x->c;
	int err;

	if (!c->crowdsec)
		return 0;
	err = bw_crowdsec_open(&x->cs, c->crowdsec, c->iface, live);
	if (err) {
		printf("%s: watch stopped: the CrowdSec source could not start\n",
		       c->iface);
		return err;
	}
	printf("%s: crowdsec: bouncer of %s, every %g s\n", c->iface,
	       c->crowdsec->url,
	       c->crowdsec->update_frequency > 0 ? c->crowdsec->update_frequency
						 : BW_CS_UPDATE_FREQUENCY);
	return 0;
}

void bw_watch_cs_first(struct bw_watch_cs *x, bool (*stop)(void *ctx),
		       int wake_fd, void *ctx)
{
	if (!x->cs)
		return;
	bw_crowdsec_hold_ready(x->cs, true);
	bw_crowdsec_first_poll(x->cs, stop, wake_fd, ctx);
}

void bw_watch_cs_started(struct bw_watch_cs *x)
{
	if (x->cs)
		bw_crowdsec_hold_ready(x->cs, false);
}

int bw_watch_cs_fds(const struct bw_watch_cs *x, struct pollfd *p, double *wake)
{
	return x->cs ? bw_crowdsec_fds(x->cs, p, wake) : 0;
}

bool bw_watch_cs_step(struct bw_watch_cs *x, const struct pollfd *p, int n)
{
	return x->cs && bw_crowdsec_step(x->cs, p, n);
}

void bw_watch_cs_why(const struct bw_watch_cs *x, struct json_object *req,
		     struct json_object *ans)
{
	bw_cs_why_answer(x->cs ? bw_crowdsec_set(x->cs) : NULL,
			 x->cs ? x->c->crowdsec->url : NULL, req, ans);
}

void bw_watch_cs_rebuilt(struct bw_watch_cs *x, int err)
{
	if (x->cs && !err)
		bw_crowdsec_rebuilt(x->cs);
}

void bw_watch_cs_publish(const struct bw_watch_cs *x, struct json_object *root)
{
	if (x->cs)
		bw_crowdsec_publish(x->cs, root);
}

const struct bw_cs_metrics *bw_watch_cs_metrics(struct bw_watch_cs *x)
{
	if (!x->cs)
		return NULL;
	bw_crowdsec_metrics(x->cs, &x->m);
	return &x->m;
}

void bw_watch_cs_close(struct bw_watch_cs *x)
{
	bw_crowdsec_close(x->cs);
	x->cs = NULL;
}
