// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's CrowdSec part (watch_cs.h): the source as the loop drives
 * it, what it shows of itself (the state file's section, the metrics)
 * and its answer to the socket's "why".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/run_ask.h"
#include "daemon/watch_cs.h"
#include "net/tls_files.h"
#include "filter/why.h"
#include "lists/list_parse.h"
#include "ops/daemon_state.h"

/* ---- what the source shows of itself ---------------------------------- */

static int count_pair(void *ctx, const struct bw_cs_held *h)
{
	bw_cs_metrics_count(ctx, h->origin, h->range ? "Range" : "Ip");
	return 0;
}

/* Fills m for the metrics file (out/cs_metrics.h). */
static void metrics(const struct bw_crowdsec *cs, struct bw_cs_metrics *m)
{
	int i;

	const struct bw_cs_status *st = bw_crowdsec_status(cs);
	const struct bw_cs_set *set = bw_crowdsec_set(cs);

	memset(m, 0, sizeof(*m));
	memcpy(m->requests, st->requests, sizeof(m->requests));
	for (i = 0; i < BW_CS_SKIP_KINDS; i++)
		m->skipped[i] = bw_cs_set_skipped(set, i);
	m->last_sync = st->last_ok;
	m->drift = st->drift;
	bw_cs_set_foreach(set, count_pair, m);
}

static struct json_object *counts(const __u64 *n, const char *const *names,
				  int k)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; o && i < k; i++)
		json_object_object_add(o, names[i],
				       json_object_new_int64((int64_t)n[i]));
	return o;
}

static struct json_object *pairs(const struct bw_cs_metrics *m)
{
	struct json_object *a = json_object_new_array(), *o;

	for (int i = 0; a && i < m->npairs; i++) {
		o = json_object_new_object();
		json_object_object_add(
			o, "origin",
			json_object_new_string(m->pairs[i].origin));
		json_object_object_add(
			o, "scope", json_object_new_string(m->pairs[i].scope));
		json_object_object_add(
			o, "decisions",
			json_object_new_int64((int64_t)m->pairs[i].n));
		json_object_array_add(a, o);
	}
	return a;
}

/* The periodic resyncs: "interval" (s, 0 none), "count", "drift", "last". */
static struct json_object *resync(const struct bw_cs_status *st)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(
		o, "interval",
		json_object_new_int64((int64_t)st->resync_interval));
	json_object_object_add(o, "count",
			       json_object_new_int64((int64_t)st->resyncs));
	json_object_object_add(o, "drift",
			       json_object_new_int64((int64_t)st->drift));
	json_object_object_add(o, "last_drift",
			       json_object_new_int64((int64_t)st->last_drift));
	json_object_object_add(o, "last",
			       json_object_new_int64((int64_t)st->last_resync));
	return o;
}

/* Sets the "crowdsec" section of the state file's root. */
static void publish(const struct bw_crowdsec *cs, struct json_object *root)
{
	const struct bw_cs_status *st = bw_crowdsec_status(cs);
	const struct bw_cs_set *set = bw_crowdsec_set(cs);
	struct json_object *o = json_object_new_object();
	struct bw_cs_metrics m;

	if (!o)
		return;
	metrics(cs, &m);
	json_object_object_add(o, "url", json_object_new_string(st->url));
	json_object_object_add(o, "update_frequency",
			       json_object_new_double(st->update_frequency));
	json_object_object_add(o, "last_ok",
			       json_object_new_int64((int64_t)st->last_ok));
	json_object_object_add(o, "last_try",
			       json_object_new_int64((int64_t)st->last_try));
	json_object_object_add(
		o, "last_result",
		json_object_new_string(bw_cs_result_names[st->last_result]));
	json_object_object_add(o, "last_error",
			       json_object_new_string(st->last_error));
	json_object_object_add(
		o, "decisions",
		json_object_new_int64((int64_t)bw_cs_set_count(set)));
	json_object_object_add(
		o, "values",
		json_object_new_int64((int64_t)bw_cs_set_values(set)));
	json_object_object_add(o, "by", pairs(&m));
	json_object_object_add(o, "other", json_object_new_int64(m.other));
	json_object_object_add(
		o, "skipped",
		counts(m.skipped, bw_cs_skip_names, BW_CS_SKIP_KINDS));
	json_object_object_add(
		o, "requests",
		counts(m.requests, bw_cs_result_names, BW_CS_RESULTS));
	json_object_object_add(o, "resync", resync(st));
	json_object_object_add(root, "crowdsec", o);
}

/* ---- the socket's "why" ------------------------------------------------ */

struct asked {
	struct bw_prefix addr;
	struct json_object *list; /* its decisions */
	long long more;
};

struct answer {
	struct asked *a;
	size_t n;
};

static struct json_object *decision(const struct bw_cs_held *h)
{
	struct json_object *o = json_object_new_object();
	char v[64];

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(h->id));
	json_object_object_add(o, "origin", json_object_new_string(h->origin));
	json_object_object_add(o, "scenario",
			       json_object_new_string(h->scenario));
	json_object_object_add(
		o, "scope", json_object_new_string(h->range ? "Range" : "Ip"));
	json_object_object_add(
		o, "value",
		json_object_new_string(bw_prefix_str(&h->p, v, sizeof(v))));
	json_object_object_add(o, "type", json_object_new_string(h->type));
	json_object_object_add(o, "until",
			       json_object_new_int64(h->until_ms / 1000));
	return o;
}

/* One scan of the set for all the addresses asked. */
static int add_covering(void *ctx, const struct bw_cs_held *h)
{
	struct answer *x = ctx;
	struct asked *a;
	size_t i;

	for (i = 0; i < x->n; i++) {
		a = &x->a[i];
		if (!bw_why_covers(&h->p, &a->addr))
			continue;
		if (json_object_array_length(a->list) >= BW_ASK_DECISIONS_MAX)
			a->more++;
		else
			json_object_array_add(a->list, decision(h));
	}
	return 0;
}

/* The question's addresses into x: 0, or -1 with the error in ans. */
static int read_addresses(struct json_object *req, struct answer *x,
			  struct json_object *ans)
{
	struct json_object *arr, *e;
	char err[BW_ERRLEN];
	size_t i;

	if (!json_object_object_get_ex(req, "addresses", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    !json_object_array_length(arr) ||
	    json_object_array_length(arr) > BW_ASK_WHY_MAX) {
		bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
			    "\"addresses\": 1 to 64 addresses");
		return -1;
	}
	x->n = json_object_array_length(arr);
	x->a = calloc(x->n, sizeof(*x->a));
	if (!x->a) {
		bw_ask_fail(ans, BW_ASK_NO_MEMORY,
			    "no memory for the addresses");
		return -1;
	}
	for (i = 0; i < x->n; i++) {
		e = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(e, json_type_string) ||
		    bw_parse_prefix(json_object_get_string(e), &x->a[i].addr,
				    err, sizeof(err)) ||
		    x->a[i].addr.plen !=
			    (x->a[i].addr.family == BW_V4 ? 32 : 128)) {
			bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
				    "\"addresses\": not an address");
			return -1;
		}
		x->a[i].list = json_object_new_array();
		if (!x->a[i].list) {
			bw_ask_fail(ans, BW_ASK_NO_MEMORY,
				    "no memory for the answer");
			return -1;
		}
	}
	return 0;
}

static void say(struct json_object *ans, struct answer *x)
{
	struct json_object *results = json_object_new_array(), *o;
	char text[64];
	size_t i;

	for (i = 0; results && i < x->n; i++) {
		o = json_object_new_object();
		if (!o)
			break;
		json_object_object_add(
			o, "address",
			json_object_new_string(bw_prefix_str(
				&x->a[i].addr, text, sizeof(text))));
		json_object_object_add(o, "decisions", x->a[i].list);
		x->a[i].list = NULL;
		json_object_object_add(o, "more",
				       json_object_new_int64(x->a[i].more));
		json_object_array_add(results, o);
	}
	json_object_object_add(ans, "results", results);
}

/*
 * Fills reply ans to question req from set (url: the source's LAPI); set
 * NULL: no CrowdSec source, no decisions. One scan of the set for all the
 * addresses: some milliseconds for a million decisions.
 */
static void why_answer(const struct bw_cs_set *set, const char *url,
		       struct json_object *req, struct json_object *ans)
{
	struct answer x = { 0 };
	size_t i;

	if (!read_addresses(req, &x, ans)) {
		json_object_object_add(ans, "crowdsec",
				       json_object_new_boolean(set != NULL));
		if (set) {
			json_object_object_add(ans, "url",
					       json_object_new_string(url));
			bw_cs_set_foreach(set, add_covering, &x);
		}
		say(ans, &x);
	}
	for (i = 0; x.a && i < x.n; i++)
		json_object_put(x.a[i].list);
	free(x.a);
}

/* ---- the source in the watch's loop ------------------------------------ */

void bw_watch_cs_init(struct bw_watch_cs *x, const struct bw_watch_cfg *c)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
}

int bw_watch_cs_open(struct bw_watch_cs *x, struct bw_wlive *live)
{
	const struct bw_watch_cfg *c = x->c;
	const struct bw_cs_cfg *cc;
	int err;

	if (!c->crowdsec)
		return 0;
	cc = c->crowdsec;
	err = bw_crowdsec_open(&x->cs, cc, c->iface, live)
		      ?: bw_tls_files_trusted(cc->ca_file, "--crowdsec-ca",
					      cc->cert_file, "--crowdsec-cert",
					      cc->cert_key_file,
					      "--crowdsec-cert-key");
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

void bw_watch_cs_first(struct bw_watch_cs *x)
{
	if (x->cs)
		bw_crowdsec_hold_ready(x->cs, true);
}

bool bw_watch_cs_first_done(const struct bw_watch_cs *x)
{
	const struct bw_cs_status *st;
	__u64 polls = 0;
	int r;

	if (!x->cs)
		return true;
	st = bw_crowdsec_status(x->cs);
	for (r = 0; r < BW_CS_RESULTS; r++)
		polls += st->requests[r];
	return polls > 0;
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
	why_answer(x->cs ? bw_crowdsec_set(x->cs) : NULL,
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
		publish(x->cs, root);
}

const struct bw_cs_metrics *bw_watch_cs_metrics(struct bw_watch_cs *x)
{
	if (!x->cs)
		return NULL;
	metrics(x->cs, &x->m);
	return &x->m;
}

void bw_watch_cs_close(struct bw_watch_cs *x)
{
	bw_crowdsec_close(x->cs);
	x->cs = NULL;
}
