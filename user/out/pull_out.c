// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pull's samples and status section (pull_out.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/output.h"
#include "out/prom.h"
#include "out/pull_out.h"
#include "out/status_text.h"

static const char *const result_names[BW_PULL_NRESULTS] = {
	[BW_PULL_OK] = "ok",
	[BW_PULL_UNCHANGED] = "unchanged",
	[BW_PULL_FAILED] = "failed",
};

static const char *const reason_names[BW_PULL_NREASONS] = {
	[BW_PULL_R_TIMEOUT] = "timeout",
	[BW_PULL_R_CONNECT] = "connect",
	[BW_PULL_R_RESOLVE] = "resolve",
	[BW_PULL_R_PROTOCOL] = "protocol",
	[BW_PULL_R_STATUS] = "http_status",
	[BW_PULL_R_TOO_LARGE] = "too_large",
	[BW_PULL_R_CUT] = "cut",
	[BW_PULL_R_NOT_IMAGE] = "not_image",
	[BW_PULL_R_REFUSED] = "refused",
	[BW_PULL_R_SIGNATURE] = "signature",
	[BW_PULL_R_ROLLBACK] = "rollback",
	[BW_PULL_R_LOCAL] = "local",
};

const char *bw_pull_result_name(enum bw_pull_result r)
{
	return r < BW_PULL_NRESULTS ? result_names[r] : "?";
}

const char *bw_pull_reason_name(enum bw_pull_reason r)
{
	return r < BW_PULL_NREASONS ? reason_names[r] : "?";
}

/* ---- metrics --------------------------------------------------------------- */

static void put_iface(FILE *f, const char *iface)
{
	fputc('{', f);
	bw_prom_label(f, "iface", iface, true);
}

static void gauge(FILE *f, const char *name, const char *help,
		  const char *iface, double v)
{
	bw_prom_help(f, name, "gauge", help);
	fputs(name, f);
	put_iface(f, iface);
	fprintf(f, "} %.0f\n", v);
}

void bw_pull_metrics_write(FILE *f, const char *iface,
			   const struct bw_pull_figures *p)
{
	int i;

	bw_prom_help(f, "bloomwall_pull_total", "counter",
		     "Pulls of the image (watch --url), by result.");
	for (i = 0; i < BW_PULL_NRESULTS; i++) {
		fputs("bloomwall_pull_total", f);
		put_iface(f, iface);
		fprintf(f, ",result=\"%s\"} %llu\n", result_names[i],
			(unsigned long long)p->results[i]);
	}
	bw_prom_help(
		f, "bloomwall_pull_failures_total", "counter",
		"Failed downloads of the image, one for each URL that failed, by reason.");
	for (i = 0; i < BW_PULL_NREASONS; i++) {
		fputs("bloomwall_pull_failures_total", f);
		put_iface(f, iface);
		fprintf(f, ",reason=\"%s\"} %llu\n", reason_names[i],
			(unsigned long long)p->failures[i]);
	}
	gauge(f, "bloomwall_pull_consecutive_failures",
	      "Failed pulls in a row (0 after one that worked).", iface,
	      (double)p->consecutive);
	if (!p->last_time)
		return;
	gauge(f, "bloomwall_pull_last_timestamp_seconds",
	      "When the last pull ended, Unix time.", iface, p->last_time);
	gauge(f, "bloomwall_pull_last_success",
	      "1 if the last pull swapped an image in or found it unchanged.",
	      iface, p->last != BW_PULL_FAILED);
	if (p->last_ok)
		gauge(f, "bloomwall_pull_last_success_timestamp_seconds",
		      "When the last pull that did not fail ended, Unix time.",
		      iface, p->last_ok);
}

void bw_pull_figures_json(struct json_object *o,
			  const struct bw_pull_figures *p)
{
	struct json_object *r = json_object_new_object();
	struct json_object *fl = json_object_new_object();
	int i;

	for (i = 0; i < BW_PULL_NRESULTS; i++)
		json_object_object_add(
			r, result_names[i],
			json_object_new_int64((int64_t)p->results[i]));
	for (i = 0; i < BW_PULL_NREASONS; i++)
		json_object_object_add(
			fl, reason_names[i],
			json_object_new_int64((int64_t)p->failures[i]));
	json_object_object_add(o, "results", r);
	json_object_object_add(o, "failures", fl);
	json_object_object_add(o, "consecutive_failures",
			       json_object_new_int64((int64_t)p->consecutive));
	json_object_object_add(
		o, "last_result",
		p->last_time ? json_object_new_string(result_names[p->last])
			     : NULL);
	json_object_object_add(o, "last_time",
			       json_object_new_int64((int64_t)p->last_time));
	json_object_object_add(o, "last_success",
			       json_object_new_int64((int64_t)p->last_ok));
}

/* ---- status ---------------------------------------------------------------- */

static long long int_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return json_object_get_int64(v);
}

void bw_pull_kv_time(const char *label, const char *key, long long t)
{
	char buf[64];
	time_t tt = (time_t)t;
	struct tm tm;
	long long ago = (long long)time(NULL) - t;

	if (t <= 0) {
		bw_out_kv(label, "never");
		bw_out_null(key, NULL);
		return;
	}
	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (ago >= 0)
		bw_out_kv(label, "%s (%lld s ago)", buf, ago);
	else
		bw_out_kv(label, "%s (in %lld s)", buf, -ago);
	bw_out_int(key, NULL, t);
}

static void out_urls(struct json_object *p)
{
	struct json_object *urls;
	const char *answered = bw_json_str(p, "answered");
	size_t i, n;

	bw_out_open_array("urls");
	if (!json_object_object_get_ex(p, "urls", &urls) ||
	    !json_object_is_type(urls, json_type_array)) {
		bw_out_close_array();
		return;
	}
	n = json_object_array_length(urls);
	for (i = 0; i < n; i++) {
		const char *u = json_object_get_string(
			json_object_array_get_idx(urls, i));

		bw_out_kv(i ? "mirror" : "source", "%s%s", u ?: "?",
			  answered && u && !strcmp(u, answered)
				  ? " (answered last)"
				  : "");
		bw_out_string(NULL, NULL, u ?: "");
	}
	bw_out_close_array();
	bw_out_string("answered", NULL, answered ?: "");
}

static void out_last(struct json_object *p)
{
	const char *res = bw_json_str(p, "last_result");
	const char *why = bw_json_str(p, "last_reason");

	if (!res)
		bw_out_kv("last pull", "none yet");
	else if (!strcmp(res, "failed"))
		bw_out_kv("last pull", "FAILED: %s", why ?: "?");
	else if (why && *why) /* "swapped in from URL", "unchanged from URL" */
		bw_out_kv("last pull", "%s", why);
	else
		bw_out_kv("last pull", "%s", res);
	bw_out_string("last_result", NULL, res ?: "");
	bw_out_string("last_reason", NULL, why ?: "");
	bw_pull_kv_time("last pull at", "last_time", int_of(p, "last_time"));
	bw_pull_kv_time("last success", "last_success",
			int_of(p, "last_success"));
	bw_status_kv_u64("consecutive failures", "consecutive_failures",
			 int_of(p, "consecutive_failures"));
}

void bw_pull_status_out(struct json_object *state, int err)
{
	struct json_object *p;
	const char *s;

	if ((err && err != -ESRCH) ||
	    !json_object_object_get_ex(state, "pull", &p))
		return;
	bw_out_text("  Pull\n");
	bw_out_open_object("pull");
	if (err == -ESRCH)
		bw_out_kv("state",
			  "its watch is gone (pid %lld): as it last was",
			  int_of(state, "pid"));
	bw_out_bool("running", NULL, !err);
	out_urls(p);
	out_last(p);
	s = bw_json_str(p, "etag");
	bw_out_kv("etag", "%s", s && *s ? s : "none");
	bw_out_string("etag", NULL, s ?: "");
	s = bw_json_str(p, "image_sha256");
	bw_out_kv("image sha256", "%s", s && *s ? s : "none");
	bw_out_string("image_sha256", NULL, s ?: "");
	if (!err)
		bw_pull_kv_time("next pull", "next_pull",
				int_of(p, "next_pull"));
	bw_out_close_object();
}
