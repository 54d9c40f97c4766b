/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's CrowdSec decision source (watch --crowdsec URL): a bouncer
 * of the local API. GET URL/v1/decisions/stream?startup=true at start
 * (every decision), then the deltas every --update-frequency, header
 * X-Api-Key from a file (0600, owned by root) or TLS client certificates;
 * the decisions go into the set (net/cs_decisions.h), whose value
 * transitions set and take out live entries in the running filter in
 * place (daemon/live.h). Ends are enforced by the set's own clock each
 * second. A poll is a transfer the watch's loop drives among its other
 * events (net/http.h): a LAPI that answers slowly holds nothing else.
 *
 * A poll that fails (LAPI down, 403, 5xx, timeout, an answer cut or not
 * JSON, past the size bound) changes nothing the filter holds: one log
 * line, counted by result, the next try after a backoff (the update
 * frequency doubled each failure, up to 5 minutes), and that next try is
 * a full one (startup=true) diffed against what is held. Every
 * --resync-interval, and once a burst of updates settled, right after a
 * delta poll, a full one too: the delta stream can miss rows (crowdsec
 * #2014), what it changes is the drift, logged and counted. The state
 * file's
 * "crowdsec" section (ops/daemon_state.h) and the metrics say how it goes;
 * query --why asks the daemon over a unix socket (watch_cs.h). After
 * the first whole sync the daemon tells systemd READY=1 (sd_notify;
 * nothing without NOTIFY_SOCKET).
 */
#ifndef __BW_CROWDSEC_H
#define __BW_CROWDSEC_H

#include <poll.h>
#include <stdbool.h>
#include <json-c/json.h>

#include "daemon/live.h"
#include "net/cs_decisions.h"
#include "out/cs_metrics.h"

#define BW_CS_UPDATE_FREQUENCY 10.0
/* The longest wait between tries after failures, seconds. */
#define BW_CS_BACKOFF_MAX 300.0
/*
 * The default --resync-interval, seconds: a full answer diffed against
 * what is held at least this often, the bound on how long a decision the
 * delta stream lost stays lost (doc/crowdsec.md "Resync" argues the default).
 */
#define BW_CS_RESYNC_INTERVAL 600
/* This many new decisions since the last full answer are a burst: a
 * resync follows once the updates settled. */
#define BW_CS_BULK 1000
/* The largest answer read (a million decisions is about 250 MB). */
#define BW_CS_MAX_BYTES (2ULL << 30)

/* watch's --crowdsec options. */
struct bw_cs_cfg {
	const char *url;      /* the LAPI's base URL */
	const char *key_file; /* the bouncer's API key, or NULL with a cert */
	/* Or the key itself, from a config file checked as a secret one. */
	const char *key;
	const char *cert_file, *cert_key_file, *ca_file; /* TLS, or NULL */
	double update_frequency; /* seconds; 0: BW_CS_UPDATE_FREQUENCY */
	double timeout;		 /* of one request; 0: http.h's default */
	/* --resync-interval: seconds, 0 never; not given: the default. */
	struct bw_cs_resync {
		__u64 secs;
		bool given;
	} resync;
	struct bw_cs_filter filter;
};

struct bw_crowdsec;

/* How the source goes (watch_cs.c publishes it). */
struct bw_cs_status {
	const char *url;
	double update_frequency;
	__u64 requests[BW_CS_RESULTS]; /* polls by result */
	enum bw_cs_result last_result;
	char last_error[320];	  /* of the last poll, "" when it went well */
	double last_ok, last_try; /* Unix seconds; 0: never */
	/* The periodic resyncs: how many went, and what they changed. */
	__u64 resync_interval; /* seconds; 0: none */
	__u64 resyncs, drift;  /* drift: decisions put in or taken out */
	__u64 last_drift;      /* of the last resync */
	double last_resync;    /* Unix seconds; 0: none yet */
};

/*
 * Checks c and reads the key file (said when refused: not a regular file,
 * readable by others, not root's, empty or not one line of printable
 * text). The source is then *out; its first poll is due at once. 0 or
 * -errno.
 */
int bw_crowdsec_open(struct bw_crowdsec **out, const struct bw_cs_cfg *c,
		     const char *iface, struct bw_wlive *live);
void bw_crowdsec_close(struct bw_crowdsec *cs);

/*
 * In the watch's loop, the poll under way is one of its events: the
 * sockets to poll into p (room for BW_HTTP_MAX_FDS), their count, and
 * *wake lowered to when the source wants bw_crowdsec_step without one
 * (CLOCK_MONOTONIC seconds).
 */
int bw_crowdsec_fds(const struct bw_crowdsec *cs, struct pollfd *p,
		    double *wake);

/*
 * After the poll (p and n as bw_crowdsec_fds gave them): the poll under
 * way goes on as far as it can without waiting, or one starts when due;
 * then the ends by the set's clock. True when a poll ended or what is
 * held changed (the state is to be published).
 */
bool bw_crowdsec_step(struct bw_crowdsec *cs, const struct pollfd *p, int n);

/*
 * The watch rebuilt the filter: decisions it refused for want of a target
 * length are asked for again (a full answer, at once).
 */
void bw_crowdsec_rebuilt(struct bw_crowdsec *cs);

/*
 * READY=1 held back (hold) until the watch's start put the decisions in
 * a filter; released, it goes once a full sync went well.
 */
void bw_crowdsec_hold_ready(struct bw_crowdsec *cs, bool hold);

/* Its status, and its decision set. */
const struct bw_cs_status *bw_crowdsec_status(const struct bw_crowdsec *cs);
const struct bw_cs_set *bw_crowdsec_set(const struct bw_crowdsec *cs);

#endif /* __BW_CROWDSEC_H */
