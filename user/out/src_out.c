// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The list sources' figures, status lines and samples (src_out.h).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/duration.h"
#include "base/json.h"
#include "base/output.h"
#include "out/prom.h"
#include "out/pull_out.h"
#include "out/src_out.h"
#include "out/status_text.h"

bool bw_src_stale(const struct bw_src_figures *s, __s64 now)
{
	return s->max_age > 0 &&
	       (!s->checked || (double)(now - s->checked) > s->max_age);
}

struct json_object *bw_src_figures_json(const struct bw_src_figures *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *r = json_object_new_object();
	__s64 now = time(NULL);
	int i;

	if (!o || !r) {
		json_object_put(o);
		json_object_put(r);
		return NULL;
	}
	json_object_object_add(o, "url", json_object_new_string(s->url));
	json_object_object_add(o, "copy", json_object_new_string(s->path));
	json_object_object_add(o, "pack", json_object_new_string(s->pack));
	json_object_object_add(o, "entries",
			       json_object_new_int64((int64_t)s->entries));
	json_object_object_add(o, "bytes",
			       json_object_new_int64((int64_t)s->bytes));
	json_object_object_add(o, "fetched", json_object_new_int64(s->fetched));
	json_object_object_add(o, "last_success",
			       json_object_new_int64(s->checked));
	json_object_object_add(
		o, "age",
		s->checked ? json_object_new_int64(now - s->checked) : NULL);
	json_object_object_add(o, "refresh",
			       json_object_new_int64((int64_t)s->refresh));
	json_object_object_add(o, "max_age",
			       json_object_new_int64((int64_t)s->max_age));
	json_object_object_add(o, "stale",
			       json_object_new_boolean(bw_src_stale(s, now)));
	json_object_object_add(o, "last_status",
			       json_object_new_int64(s->status));
	json_object_object_add(o, "last_result",
			       s->last >= 0
				       ? json_object_new_string(bw_src_why_name(
						 (enum bw_src_why)s->last))
				       : NULL);
	json_object_object_add(o, "last_reason",
			       json_object_new_string(s->reason));
	json_object_object_add(o, "consecutive_failures",
			       json_object_new_int64((int64_t)s->consecutive));
	for (i = 0; i < BW_SRC_NWHY; i++)
		json_object_object_add(
			r, bw_src_why_name((enum bw_src_why)i),
			json_object_new_int64((int64_t)s->results[i]));
	json_object_object_add(o, "results", r);
	json_object_object_add(o, "next_fetch", json_object_new_int64(s->next));
	return o;
}

/* ---- metrics --------------------------------------------------------------- */

static void labels(FILE *f, const char *iface, const char *url)
{
	fputc('{', f);
	bw_prom_label(f, "iface", iface, true);
	bw_prom_label(f, "url", url, false);
}

static void gauges(FILE *f, const char *name, const char *help,
		   const char *iface, const struct bw_src_figures *s, int n,
		   double (*get)(const struct bw_src_figures *))
{
	bw_prom_help(f, name, "gauge", help);
	for (int i = 0; i < n; i++) {
		fputs(name, f);
		labels(f, iface, s[i].url);
		fprintf(f, "} %.0f\n", get(&s[i]));
	}
}

static double g_ok(const struct bw_src_figures *s)
{
	return (double)s->checked;
}

static double g_age(const struct bw_src_figures *s)
{
	return s->checked ? (double)(time(NULL) - s->checked) : -1;
}

static double g_refresh(const struct bw_src_figures *s)
{
	return s->refresh;
}

static double g_entries(const struct bw_src_figures *s)
{
	return (double)s->entries;
}

static double g_bytes(const struct bw_src_figures *s)
{
	return (double)s->bytes;
}

static double g_status(const struct bw_src_figures *s)
{
	return (double)s->status;
}

static double g_stale(const struct bw_src_figures *s)
{
	return bw_src_stale(s, time(NULL));
}

void bw_src_metrics_write(FILE *f, const char *iface,
			  const struct bw_src_figures *s, int n)
{
	if (!n)
		return;
	gauges(f, "bloomwall_source_last_success_timestamp_seconds",
	       "When the list source last answered (a new copy or 304), Unix time; 0: never.",
	       iface, s, n, g_ok);
	gauges(f, "bloomwall_source_age_seconds",
	       "Seconds since the list source last answered; -1: never.", iface,
	       s, n, g_age);
	gauges(f, "bloomwall_source_stale",
	       "1 when the list source has not answered for longer than --max-age.",
	       iface, s, n, g_stale);
	gauges(f, "bloomwall_source_refresh_seconds",
	       "The list source's refresh interval: its own, or --refresh.",
	       iface, s, n, g_refresh);
	gauges(f, "bloomwall_source_entries",
	       "Entries of the list source's copy in use.", iface, s, n,
	       g_entries);
	gauges(f, "bloomwall_source_bytes",
	       "Bytes of the list source's copy in use, unpacked.", iface, s, n,
	       g_bytes);
	gauges(f, "bloomwall_source_last_http_status",
	       "The HTTP status of the list source's last answer; 0: none.",
	       iface, s, n, g_status);
	bw_prom_help(
		f, "bloomwall_source_fetches_total", "counter",
		"Fetches of a list source by result: new, unchanged, or the reason it failed.");
	for (int i = 0; i < n; i++)
		for (int r = 0; r < BW_SRC_NWHY; r++) {
			fputs("bloomwall_source_fetches_total", f);
			labels(f, iface, s[i].url);
			fprintf(f, ",result=\"%s\"} %llu\n",
				bw_src_why_name((enum bw_src_why)r),
				(unsigned long long)s[i].results[r]);
		}
}

/* ---- status ---------------------------------------------------------------- */

static long long int_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return json_object_get_int64(v);
}

static void out_failures(struct json_object *s)
{
	struct json_object *r;
	char buf[256] = "";
	size_t used = 0;

	bw_out_open_object("results");
	if (!json_object_object_get_ex(s, "results", &r))
		r = NULL;
	if (r && json_object_is_type(r, json_type_object)) {
		json_object_object_foreach(r, k, v)
		{
			long long n = json_object_get_int64(v);

			bw_out_int(k, NULL, n);
			if (!n || !strcmp(k, "new") ||
			    !strcmp(k, "unchanged") || used >= sizeof(buf))
				continue;
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s%s %lld", used ? ", " : "",
						 k, n);
		}
	}
	bw_out_close_object();
	bw_out_kv("failures", "%s", used ? buf : "none");
}

static void out_one(struct json_object *s, bool running)
{
	const char *res = bw_json_str(s, "last_result");
	const char *why = bw_json_str(s, "last_reason");
	const char *url = bw_json_str(s, "url") ?: "?";
	long long status = int_of(s, "last_status");
	bool stale =
		json_object_get_boolean(json_object_object_get(s, "stale"));
	char age[32], every[32];

	bw_out_open_object(NULL);
	bw_out_kv("source", "%s", url);
	bw_out_string("url", NULL, url);
	bw_out_string("copy", NULL, bw_json_str(s, "copy") ?: "");
	bw_out_int("entries", NULL, int_of(s, "entries"));
	bw_out_int("bytes", NULL, int_of(s, "bytes"));
	if (int_of(s, "fetched"))
		bw_out_kv("copy", "%s (%lld entries, %lld bytes, came %s)",
			  bw_json_str(s, "copy") ?: "?", int_of(s, "entries"),
			  int_of(s, "bytes"), bw_json_str(s, "pack") ?: "");
	else
		bw_out_kv("copy", "none yet");
	bw_pull_kv_time("copy fetched", "fetched", int_of(s, "fetched"));
	bw_pull_kv_time("last success", "last_success",
			int_of(s, "last_success"));
	bw_out_kv(
		"refresh", "every %s, stale after %s",
		bw_duration_str((__u64)int_of(s, "refresh"), every,
				sizeof(every)),
		bw_duration_str((__u64)int_of(s, "max_age"), age, sizeof(age)));
	bw_out_int("refresh", NULL, int_of(s, "refresh"));
	bw_out_bool("stale", NULL, stale);
	bw_out_int("max_age", NULL, int_of(s, "max_age"));
	if (stale)
		bw_out_kv(
			"STALE",
			"no answer for longer than --max-age %s: its entries are as they were",
			bw_duration_str((__u64)int_of(s, "max_age"), age,
					sizeof(age)));
	if (!res)
		bw_out_kv("last fetch", "none yet");
	else if (why && *why)
		bw_out_kv("last fetch", "FAILED: %s (HTTP %lld); the copy kept",
			  why, status);
	else
		bw_out_kv("last fetch", "%s (HTTP %lld)", res, status);
	bw_out_string("last_result", NULL, res ?: "");
	bw_out_string("last_reason", NULL, why ?: "");
	bw_out_int("last_status", NULL, status);
	out_failures(s);
	if (running)
		bw_pull_kv_time("next fetch", "next_fetch",
				int_of(s, "next_fetch"));
	bw_out_close_object();
}

void bw_src_status_out(struct json_object *state, int err)
{
	struct json_object *a;
	size_t i, n;

	if ((err && err != -ESRCH) ||
	    !json_object_object_get_ex(state, "sources", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	n = json_object_array_length(a);
	bw_out_text("  List sources (%zu)\n", n);
	bw_out_open_array("sources");
	for (i = 0; i < n; i++)
		out_one(json_object_array_get_idx(a, i), !err);
	bw_out_close_array();
}
