// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The CrowdSec decision source (crowdsec.h): the key, one poll of the
 * stream through net/http.h into net/cs_stream.h and the set, results and
 * backoff, the ends each second, what it publishes.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/file.h"
#include "base/log.h"
#include "daemon/crowdsec.h"
#include "daemon/crowdsec_key.h"
#include "daemon/crowdsec_say.h"
#include "lists/list_parse.h"
#include "net/cs_stream.h"
#include "net/dl_libs.h"
#include "net/http.h"
#include "net/url.h"

struct bw_crowdsec {
	struct bw_cs_cfg c;
	const char *iface;
	struct bw_wlive *live;
	struct bw_cs_set *set;
	char stream_url[1024], startup_url[1024];
	char key_header[BW_CS_KEY_MAX + 16];
	double due;		/* CLOCK_MONOTONIC */
	double last_full;	/* of the last whole full answer, or 0 */
	double next_second;	/* the next ends check */
	bool startup;		/* the next poll is a full one */
	bool ready;		/* READY=1 sent */
	bool hold;		/* not yet (bw_crowdsec_hold_ready) */
	int fails;		/* in a row */
	struct bw_cs_status st; /* what status and the metrics show */
	__u64 changes;		/* value transitions, for publish */
	/* The poll under way: its transfer, when it began, whether full. */
	struct bw_http_xfer *xfer;
	double t0;
	bool full;
	/* The next full poll, and the one under way, is a periodic resync. */
	bool resync, resyncing;
	__u64 new_since_full;	  /* new decisions the updates brought since */
	struct bw_cs_drift drift; /* what the last resync changed */
	/* A rebuild came while it ran: a full answer once it ends. */
	bool again;
	struct bw_cs_stream *stream;
	__s64 now_ms;
	__u64 got_new, got_deleted, said;
	int cover_err;
	/* A decision the running filter could not take: a rebuild may give
	 * it the target length, then a full answer brings it in. */
	bool filter_refused;
};

static __s64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__s64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double freq(const struct bw_crowdsec *cs)
{
	return cs->c.update_frequency > 0 ? cs->c.update_frequency
					  : BW_CS_UPDATE_FREQUENCY;
}

/* ---- the live entries ---------------------------------------------------- */

static int on_cover(void *ctx, const struct bw_prefix *p, __s64 until_ms)
{
	struct bw_crowdsec *cs = ctx;
	int err;

	(void)until_ms; /* ends are the set's: a value may be extended */
	err = bw_wlive_add(cs->live, p, 0);
	cs->cover_err = err;
	if (!err)
		cs->changes++;
	return err;
}

static void on_uncover(void *ctx, const struct bw_prefix *p)
{
	struct bw_crowdsec *cs = ctx;

	bw_wlive_del(cs->live, p);
	cs->changes++;
}

/* ---- open and close ------------------------------------------------------ */

static int make_urls(struct bw_crowdsec *cs)
{
	size_t n = strlen(cs->c.url);
	int a, b;

	while (n && cs->c.url[n - 1] == '/')
		n--;
	a = snprintf(cs->stream_url, sizeof(cs->stream_url),
		     "%.*s/v1/decisions/stream", (int)n, cs->c.url);
	b = snprintf(cs->startup_url, sizeof(cs->startup_url),
		     "%.*s/v1/decisions/stream?startup=true", (int)n,
		     cs->c.url);
	if (a < 0 || b < 0 || (size_t)b >= sizeof(cs->startup_url)) {
		pr_warn("bloomwall watch: --crowdsec URL too long\n");
		return -EINVAL;
	}
	return 0;
}

static int check_cfg(const struct bw_cs_cfg *c)
{
	if (!bw_url_scheme(c->url)) {
		pr_warn("bloomwall watch: --crowdsec takes the local API's http:// or https:// URL, not '%s'\n",
			c->url);
		return -EINVAL;
	}
	if (!c->key_file && !c->key && !c->cert_file) {
		pr_warn("bloomwall watch: --crowdsec needs --crowdsec-key-file FILE (the key 'cscli bouncers add' printed), api_key in the config file or --crowdsec-cert FILE\n");
		return -EINVAL;
	}
	if (c->cert_file && strcmp(bw_url_scheme(c->url), "https")) {
		pr_warn("bloomwall watch: --crowdsec-cert needs an https:// URL\n");
		return -EINVAL;
	}
	return 0;
}

int bw_crowdsec_open(struct bw_crowdsec **out, const struct bw_cs_cfg *c,
		     const char *iface, struct bw_wlive *live)
{
	struct bw_crowdsec *cs;
	struct bw_cs_sink sink = { on_cover, on_uncover, NULL };
	char key[BW_CS_KEY_MAX + 1];
	int err;

	*out = NULL;
	err = check_cfg(c);
	if (!err && c->key_file)
		err = bw_cs_key_read(c->key_file, key, sizeof(key));
	else if (!err && c->key)
		snprintf(key, sizeof(key), "%s", c->key);
	if (err)
		return err;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	cs->c = *c;
	cs->iface = iface;
	cs->live = live;
	sink.ctx = cs;
	if (c->key_file || c->key)
		snprintf(cs->key_header, sizeof(cs->key_header),
			 "X-Api-Key: %s", key);
	memset(key, 0, sizeof(key));
	err = make_urls(cs);
	cs->set = err ? NULL : bw_cs_set_new(&c->filter, &sink);
	if (!err && !cs->set)
		err = -ENOMEM;
	if (err) {
		bw_crowdsec_close(cs);
		return err;
	}
	cs->st.url = c->url;
	cs->st.update_frequency = freq(cs);
	cs->st.resync_interval =
		c->resync.given ? c->resync.secs : BW_CS_RESYNC_INTERVAL;
	cs->startup = true;
	cs->due = bw_mono();
	cs->next_second = bw_mono() + 1;
	*out = cs;
	return 0;
}

void bw_crowdsec_close(struct bw_crowdsec *cs)
{
	if (!cs)
		return;
	bw_http_free(cs->xfer);
	bw_cs_set_free(cs->set);
	bw_cs_stream_free(cs->stream);
	memset(cs->key_header, 0, sizeof(cs->key_header));
	free(cs);
}

/* ---- one poll ------------------------------------------------------------ */

static int on_decision(void *ctx, const struct bw_cs_decision *d)
{
	struct bw_crowdsec *cs = ctx;
	int skip, err;

	if (d->list == BW_CS_NEW)
		cs->got_new++;
	else
		cs->got_deleted++;
	/*
	 * A duration counts from the LAPI's answer, which came after the
	 * request went out: timed from its arrival a decision may end a
	 * little late, never early (a 1M answer takes seconds to stream).
	 */
	cs->now_ms = now_ms();
	err = bw_cs_set_apply(cs->set, d, cs->now_ms, &skip);
	if (!err && skip >= 0 && skip <= BW_CS_REFUSED_FILTER &&
	    ++cs->said <= BW_CS_SAID_MAX)
		bw_cs_say_refused(cs->iface, d, skip, cs->cover_err,
				  cs->c.filter.min_plen);
	if (skip == BW_CS_REFUSED_FILTER)
		cs->filter_refused = true;
	return err;
}

static int on_body(void *ctx, const void *buf, size_t len)
{
	struct bw_crowdsec *cs = ctx;

	return bw_cs_stream_feed(cs->stream, buf, len);
}

/* The request of the poll that begins (hdrs: room for its headers). */
static void request(struct bw_crowdsec *cs, const char *hdrs[2],
		    struct bw_http_req *rq)
{
	hdrs[0] = cs->key_header[0] ? cs->key_header : NULL;
	hdrs[1] = NULL;
	bw_http_req_init(rq, cs->startup ? cs->startup_url : cs->stream_url);
	rq->headers = hdrs[0] ? hdrs : NULL;
	rq->ca_file = cs->c.ca_file;
	rq->cert_file = cs->c.cert_file;
	rq->key_file = cs->c.cert_key_file;
	rq->timeout = cs->c.timeout;
	rq->max_bytes = BW_CS_MAX_BYTES;
	rq->body = on_body;
	rq->ctx = cs;
}

/*
 * A message to systemd (sd_notify), under a unit that takes them: only
 * then is libsystemd opened. Without it, said once; the unit's start then
 * times out as it would without the message.
 */
static void __attribute__((format(printf, 2, 3)))
tell_systemd(const char *iface, const char *fmt, ...)
{
	static bool said;
	char msg[512], why[320];
	va_list ap;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (bw_systemd_load(why, sizeof(why))) {
		if (!said)
			pr_warn("%s: cannot tell systemd: %s\n", iface, why);
		said = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bw_systemd.notifyf(0, "%s", msg);
}

static void notify(struct bw_crowdsec *cs)
{
	if (cs->ready || cs->hold)
		return;
	tell_systemd(cs->iface,
		     "READY=1\nSTATUS=%zu CrowdSec decisions from %s",
		     bw_cs_set_count(cs->set), cs->c.url);
	cs->ready = true;
}

void bw_crowdsec_hold_ready(struct bw_crowdsec *cs, bool hold)
{
	cs->hold = hold;
	if (!hold && cs->last_full)
		notify(cs);
}

/* A full answer went whole: what it changed, counted when a resync. */
static void synced(struct bw_crowdsec *cs)
{
	struct bw_cs_drift d = bw_cs_set_sync_end(cs->set);

	cs->last_full = bw_mono();
	cs->new_since_full = 0;
	if (!cs->resyncing)
		return;
	cs->st.resyncs++;
	cs->st.last_drift = d.added + d.removed;
	cs->st.drift += cs->st.last_drift;
	cs->st.last_resync = (double)time(NULL);
	cs->drift = d;
}

/*
 * Whether a resync is due after a delta poll: every --resync-interval,
 * and once a burst (BW_CS_BULK new decisions or more since the last full
 * answer, in one update or several: an import, a blocklist of the
 * central API) has settled (an update with none), as the stream misses
 * rows committed while it answers. Right
 * after an update, so that what the full answer changes is what the
 * updates missed, not what came since.
 */
static bool resync_due(struct bw_crowdsec *cs)
{
	bool settled;

	cs->new_since_full += cs->got_new;
	settled = cs->new_since_full >= BW_CS_BULK && !cs->got_new;
	return cs->st.resync_interval &&
	       (settled ||
		bw_mono() - cs->last_full >= (double)cs->st.resync_interval);
}

static void succeeded(struct bw_crowdsec *cs, bool full, double t0)
{
	if (full)
		synced(cs);
	cs->st.last_ok = (double)time(NULL);
	cs->fails = 0;
	cs->startup = bw_cs_set_want_resync(cs->set);
	if (!cs->startup && !full && resync_due(cs))
		cs->startup = cs->resync = true;
	cs->due = cs->startup ? bw_mono() : t0 + freq(cs);
	bw_cs_say_answer(cs->iface, cs->set,
			 &(struct bw_cs_answer){ .full = full,
						 .resync = cs->resyncing,
						 .got_new = cs->got_new,
						 .got_deleted = cs->got_deleted,
						 .refused = cs->said,
						 .drift = cs->drift,
						 .secs = bw_mono() - t0 });
	notify(cs);
}

static void failed(struct bw_crowdsec *cs, bool full)
{
	double wait;

	cs->startup = true;
	cs->fails++;
	wait = fmin(freq(cs) * pow(2, fmin(cs->fails - 1, 16)),
		    BW_CS_BACKOFF_MAX);
	cs->due = bw_mono() + wait;
	printf("%s: crowdsec: %s of %s failed: %s; the filter keeps what it holds (%zu decisions), next try in %.3g s (full)\n",
	       cs->iface, full ? "full poll" : "poll", cs->c.url,
	       cs->st.last_error, bw_cs_set_count(cs->set), wait);
	if (!cs->ready)
		tell_systemd(cs->iface,
			     "STATUS=waiting for the CrowdSec LAPI: %s",
			     cs->st.last_error);
}

/* A poll begins: false when it cannot (no memory; tried again later). */
static bool poll_begin(struct bw_crowdsec *cs)
{
	cs->full = cs->startup;
	cs->resyncing = cs->full && cs->resync;
	cs->t0 = bw_mono();
	cs->stream = bw_cs_stream_new(on_decision, cs);
	if (!cs->stream) {
		cs->due = bw_mono() + freq(cs);
		return false;
	}
	cs->now_ms = now_ms();
	cs->got_new = cs->got_deleted = cs->said = 0;
	cs->startup = cs->full;
	cs->resync = false;
	cs->again = false;
	if (cs->full) {
		bw_cs_set_sync_begin(cs->set);
		cs->filter_refused = false;
	}
	cs->st.last_try = (double)time(NULL);
	return true;
}

/* The poll's transfer ended with err and res: its result. */
static void poll_end(struct bw_crowdsec *cs, int err,
		     const struct bw_http_res *res)
{
	enum bw_cs_result r;

	/* A stream that did not end whole is malformed, or cut. */
	if (!err && res->status == 200)
		err = bw_cs_stream_end(cs->stream);
	if (err == -EBADMSG && bw_cs_stream_count(cs->stream) == 0 &&
	    res->bytes == 0)
		err = -EPIPE;
	r = bw_cs_result_of(err, res, bw_cs_stream_error(cs->stream),
			    cs->st.last_error, sizeof(cs->st.last_error));
	cs->st.requests[r]++;
	cs->st.last_result = r;
	bw_cs_stream_free(cs->stream);
	cs->stream = NULL;
	if (r != BW_CS_OK) {
		failed(cs, cs->full);
		return;
	}
	succeeded(cs, cs->full, cs->t0);
	if (cs->again) {
		cs->startup = true;
		cs->due = bw_mono();
	}
}

/* ---- the loop's calls ---------------------------------------------------- */

int bw_crowdsec_fds(const struct bw_crowdsec *cs, struct pollfd *p,
		    double *wake)
{
	*wake = fmin(*wake, cs->next_second);
	if (cs->xfer)
		return bw_http_fds(cs->xfer, p, wake);
	*wake = fmin(*wake, cs->due);
	return 0;
}

/* The poll under way goes on; true when it ended. */
static bool poll_step(struct bw_crowdsec *cs, const struct pollfd *p, int n)
{
	struct bw_http_res res;
	int err = bw_http_step(cs->xfer, p, n, &res);

	if (err == -EINPROGRESS)
		return false;
	bw_http_free(cs->xfer);
	cs->xfer = NULL;
	poll_end(cs, err, &res);
	return true;
}

/* A poll begins: its transfer starts (it is stepped from the next turn). */
static void poll_start(struct bw_crowdsec *cs)
{
	const char *hdrs[2];
	struct bw_http_req rq;
	struct bw_http_res res = { .reason = "out of memory" };

	if (!poll_begin(cs))
		return;
	request(cs, hdrs, &rq);
	cs->xfer = bw_http_start(&rq);
	if (!cs->xfer)
		poll_end(cs, -ENOMEM, &res);
}

bool bw_crowdsec_step(struct bw_crowdsec *cs, const struct pollfd *p, int n)
{
	__u64 before = cs->changes;
	bool ended = false;

	if (cs->xfer)
		ended = poll_step(cs, p, n);
	else if (bw_mono() >= cs->due)
		poll_start(cs);
	if (bw_mono() >= cs->next_second) {
		bw_cs_set_expire(cs->set, now_ms(), NULL);
		cs->next_second = bw_mono() + 1;
	}
	return ended || cs->changes != before;
}

const struct bw_cs_set *bw_crowdsec_set(const struct bw_crowdsec *cs)
{
	return cs->set;
}

const struct bw_cs_status *bw_crowdsec_status(const struct bw_crowdsec *cs)
{
	return &cs->st;
}

void bw_crowdsec_rebuilt(struct bw_crowdsec *cs)
{
	if (!cs->filter_refused)
		return;
	/* The poll under way may have had refusals before the rebuild. */
	if (cs->xfer) {
		cs->again = true;
		return;
	}
	cs->startup = true;
	cs->due = bw_mono();
}
