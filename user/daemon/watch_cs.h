/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's CrowdSec part (watch --crowdsec URL): the decision source
 * (crowdsec.h) and its answers to query --why as the
 * watch's loop drives them. Without --crowdsec every call does nothing
 * (a why question gets an answer that lists no decision).
 */
#ifndef __BW_WATCH_CS_H
#define __BW_WATCH_CS_H

#include <poll.h>
#include <stdbool.h>
#include <json-c/json.h>

#include "daemon/crowdsec.h"
#include "daemon/live.h"
#include "daemon/watch_apply.h"
#include "out/cs_metrics.h"

struct bw_watch_cs {
	const struct bw_watch_cfg *c;
	struct bw_crowdsec *cs; /* NULL: no --crowdsec */
	struct bw_cs_metrics m;
};

/* Sets x up as empty (before anything can fail). */
void bw_watch_cs_init(struct bw_watch_cs *x, const struct bw_watch_cfg *c);

/* Starts the source when c has one: 0, or -errno (said, the watch ends). */
int bw_watch_cs_open(struct bw_watch_cs *x, struct bw_wlive *live);

/*
 * Before the watch's start: its first (full) poll is due at once, and the
 * start waits for its end (bw_watch_cs_first_done), so that the start's
 * filter is built with the decisions laid out in it and a restarted watch
 * never runs one without them (a failed poll: the start goes on, the
 * decisions come with the next). READY=1 waits for bw_watch_cs_started().
 */
void bw_watch_cs_first(struct bw_watch_cs *x);
bool bw_watch_cs_first_done(const struct bw_watch_cs *x);
void bw_watch_cs_started(struct bw_watch_cs *x);

/*
 * Its part of the loop's poll: the sockets of the poll under way into p
 * (room for BW_HTTP_MAX_FDS), their count; *wake lowered to when it
 * wants its turn without an event (CLOCK_MONOTONIC).
 */
int bw_watch_cs_fds(const struct bw_watch_cs *x, struct pollfd *p,
		    double *wake);

/*
 * Its turn in the loop, after the poll (p and n as bw_watch_cs_fds gave
 * them): the poll under way goes on, or one starts when due, and the
 * ends. True when what the source holds changed (the state is to be
 * published).
 */
bool bw_watch_cs_step(struct bw_watch_cs *x, const struct pollfd *p, int n);

/* The reply ans to the watch socket's "why" req (base/run_ask.h). */
void bw_watch_cs_why(const struct bw_watch_cs *x, struct json_object *req,
		     struct json_object *ans);

/* A rebuild ended with err (0: it went in; see bw_crowdsec_rebuilt). */
void bw_watch_cs_rebuilt(struct bw_watch_cs *x, int err);

/* Its state section and its metrics (NULL without a source). */
void bw_watch_cs_publish(const struct bw_watch_cs *x, struct json_object *root);
const struct bw_cs_metrics *bw_watch_cs_metrics(struct bw_watch_cs *x);

void bw_watch_cs_close(struct bw_watch_cs *x);

#endif /* __BW_WATCH_CS_H */
