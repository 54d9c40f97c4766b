// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The CrowdSec source's metrics (cs_metrics.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "out/cs_metrics.h"
#include "out/prom.h"

const char *const bw_cs_result_names[BW_CS_RESULTS] = {
	[BW_CS_OK] = "ok",
	[BW_CS_FORBIDDEN] = "forbidden",
	[BW_CS_SERVER_ERROR] = "server_error",
	[BW_CS_BAD_STATUS] = "bad_status",
	[BW_CS_DOWN] = "down",
	[BW_CS_TIMEOUT] = "timeout",
	[BW_CS_CUT] = "cut",
	[BW_CS_MALFORMED] = "malformed",
	[BW_CS_TOO_LARGE] = "too_large",
	[BW_CS_TLS] = "tls",
	[BW_CS_ERROR] = "error",
};

static enum bw_cs_result result_of(int err, long status)
{
	if (!err && status == 200)
		return BW_CS_OK;
	/* An error page's body is no stream: the status says what went on. */
	if ((!err || err == -EBADMSG) && status && status != 200) {
		if (status == 401 || status == 403)
			return BW_CS_FORBIDDEN;
		return status >= 500 ? BW_CS_SERVER_ERROR : BW_CS_BAD_STATUS;
	}
	switch (err) {
	case 0:
		return BW_CS_BAD_STATUS;
	case -ECONNREFUSED:
	case -EHOSTUNREACH:
		return BW_CS_DOWN;
	case -ETIMEDOUT:
		return BW_CS_TIMEOUT;
	case -EPIPE:
		return BW_CS_CUT;
	case -EBADMSG:
		return BW_CS_MALFORMED;
	case -EFBIG:
		return BW_CS_TOO_LARGE;
	case -EPROTO:
		return BW_CS_TLS;
	default:
		return BW_CS_ERROR;
	}
}

enum bw_cs_result bw_cs_result_of(int err, const struct bw_http_res *res,
				  const char *stream_err, char *why, size_t cap)
{
	enum bw_cs_result r = result_of(err, res->status);
	const char *hint = "";

	if (r == BW_CS_FORBIDDEN)
		hint = " (a wrong or revoked API key: 'cscli bouncers list')";
	if (r == BW_CS_FORBIDDEN || r == BW_CS_SERVER_ERROR ||
	    r == BW_CS_BAD_STATUS)
		snprintf(why, cap, "HTTP %ld%s", res->status, hint);
	else if (r == BW_CS_MALFORMED)
		snprintf(why, cap, "the answer is not a decision stream: %s",
			 stream_err);
	else
		snprintf(why, cap, "%s", res->reason);
	return r;
}

void bw_cs_metrics_count(struct bw_cs_metrics *m, const char *origin,
			 const char *scope)
{
	struct bw_cs_pair *p;
	int i;

	for (i = 0; i < m->npairs; i++) {
		p = &m->pairs[i];
		if (!strcmp(p->origin, origin) && !strcmp(p->scope, scope)) {
			p->n++;
			return;
		}
	}
	if (m->npairs == BW_CS_METRIC_PAIRS) {
		m->other++;
		return;
	}
	p = &m->pairs[m->npairs++];
	snprintf(p->origin, sizeof(p->origin), "%s", origin);
	snprintf(p->scope, sizeof(p->scope), "%s", scope);
	p->n = 1;
}

/* name{iface="...",key="val"} n */
static void sample2(FILE *f, const char *name, const char *iface,
		    const char *key, const char *val, unsigned long long n)
{
	fprintf(f, "%s{", name);
	bw_prom_label(f, "iface", iface, true);
	if (key)
		bw_prom_label(f, key, val, false);
	fprintf(f, "} %llu\n", n);
}

static void write_decisions(FILE *f, const char *iface,
			    const struct bw_cs_metrics *m)
{
	int i;

	bw_prom_help(
		f, "bloomwall_decisions", "gauge",
		"CrowdSec decisions the watch enforces, by origin and scope.");
	for (i = 0; i < m->npairs; i++) {
		fputs("bloomwall_decisions{", f);
		bw_prom_label(f, "iface", iface, true);
		bw_prom_label(f, "origin", m->pairs[i].origin, false);
		bw_prom_label(f, "scope", m->pairs[i].scope, false);
		fprintf(f, "} %llu\n", (unsigned long long)m->pairs[i].n);
	}
	if (m->other) {
		fputs("bloomwall_decisions{", f);
		bw_prom_label(f, "iface", iface, true);
		fprintf(f, ",origin=\"other\",scope=\"other\"} %llu\n",
			(unsigned long long)m->other);
	}
}

void bw_cs_metrics_write(FILE *f, const char *iface,
			 const struct bw_cs_metrics *m)
{
	int i;

	write_decisions(f, iface, m);
	bw_prom_help(
		f, "bloomwall_decisions_refused_total", "counter",
		"CrowdSec decisions not enforced, by reason (refused or filtered out).");
	for (i = 0; i < BW_CS_SKIP_KINDS; i++)
		sample2(f, "bloomwall_decisions_refused_total", iface, "reason",
			bw_cs_skip_names[i], m->skipped[i]);
	bw_prom_help(f, "bloomwall_lapi_requests_total", "counter",
		     "Requests to the CrowdSec local API, by result.");
	for (i = 0; i < BW_CS_RESULTS; i++)
		sample2(f, "bloomwall_lapi_requests_total", iface, "result",
			bw_cs_result_names[i], m->requests[i]);
	bw_prom_help(
		f, "bloomwall_lapi_last_sync_timestamp_seconds", "gauge",
		"When the last whole answer of the local API came (Unix time; 0: none yet).");
	fputs("bloomwall_lapi_last_sync_timestamp_seconds{", f);
	bw_prom_label(f, "iface", iface, true);
	fprintf(f, "} %.3f\n", m->last_sync);
	bw_prom_help(
		f, "bloomwall_decisions_resync_drift_total", "counter",
		"CrowdSec decisions the periodic full resync put in or took out: what the LAPI's updates had missed.");
	sample2(f, "bloomwall_decisions_resync_drift_total", iface, NULL, NULL,
		m->drift);
}
