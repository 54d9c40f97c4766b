// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* status's CrowdSec section (cs_status.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "out/cs_status.h"

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static long long num(struct json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static const char *str(struct json_object *o, const char *key)
{
	const char *s = json_object_get_string(get(o, key));

	return s ? s : "";
}

/* "ok, 3 s ago" / "never; last try 2 s ago: forbidden: HTTP 403" */
static void out_sync(struct json_object *cs)
{
	long long now = (long long)time(NULL), ok = num(cs, "last_ok");
	long long try = num(cs, "last_try");
	const char *res = str(cs, "last_result");
	char last[400] = "";

	bw_out_int("last_ok", NULL, ok);
	bw_out_int("last_try", NULL, try);
	bw_out_string("last_result", NULL, res);
	bw_out_string("last_error", NULL, str(cs, "last_error"));
	if (strcmp(res, "ok") && try)
		snprintf(last, sizeof(last), "; last try %lld s ago: %s: %s",
			 now - try, res, str(cs, "last_error"));
	if (ok)
		bw_out_kv("last sync", "ok, %lld s ago%s", now - ok, last);
	else
		bw_out_kv("last sync", "never%s", last[0] ? last : "");
}

/* "every 10m, 3 so far, last 2 m ago: drift 1; 4 in all" / "off" */
static void out_resync(struct json_object *cs)
{
	struct json_object *r = get(cs, "resync");
	long long every = num(r, "interval"), last = num(r, "last");
	char when[32], tail[160] = "";

	if (!r)
		return;
	bw_out_open_object("resync");
	bw_out_int("interval", NULL, every);
	bw_out_int("count", NULL, num(r, "count"));
	bw_out_int("drift", NULL, num(r, "drift"));
	bw_out_int("last_drift", NULL, num(r, "last_drift"));
	bw_out_int("last", NULL, last);
	bw_out_close_object();
	if (!every) {
		bw_out_kv("resync", "off (--resync-interval 0)");
		return;
	}
	if (last)
		snprintf(tail, sizeof(tail),
			 ", last %lld s ago: drift %lld; %lld in all",
			 (long long)time(NULL) - last, num(r, "last_drift"),
			 num(r, "drift"));
	bw_out_kv(
		"resync", "every %s, %lld so far%s",
		bw_duration_str((unsigned long long)every, when, sizeof(when)),
		num(r, "count"), tail);
}

static void out_by(struct json_object *cs)
{
	struct json_object *by = get(cs, "by"), *p;
	char key[96];
	size_t i, n = json_object_is_type(by, json_type_array)
			      ? json_object_array_length(by)
			      : 0;

	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(by, i);
		snprintf(key, sizeof(key), "%s %s", str(p, "origin"),
			 str(p, "scope"));
		bw_out_kv(key, "%lld", num(p, "decisions"));
	}
	if (num(cs, "other"))
		bw_out_kv("other origins", "%lld", num(cs, "other"));
}

/* "2 too_wide, 1 bad_value" of the non-zero counts in o (keys from..to). */
static void out_counts(const char *label, struct json_object *o,
		       const char *const *keys, int nkeys)
{
	char line[512] = "";
	size_t len = 0;
	long long v;

	for (int i = 0; i < nkeys; i++) {
		v = num(o, keys[i]);
		if (v && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"%s%lld %s", len ? ", " : "", v,
						keys[i]);
	}
	bw_out_kv(label, "%s", len ? line : "none");
}

void bw_cs_status_out(struct json_object *state, int err)
{
	static const char *const refused[] = { "bad_field", "bad_value",
					       "too_wide", "filter_refused" };
	static const char *const ignored[] = { "other_scope", "other_type",
					       "filtered_out", "simulated",
					       "expired" };
	static const char *const results[] = {
		"ok",	     "forbidden", "server_error", "bad_status",
		"down",	     "timeout",	  "cut",	  "malformed",
		"too_large", "tls",	  "error"
	};
	struct json_object *cs = err ? NULL : get(state, "crowdsec");

	if (!cs)
		return;
	bw_out_text("  CrowdSec\n");
	bw_out_open_object("crowdsec");
	bw_out_string("url", NULL, str(cs, "url"));
	bw_out_kv("url", "%s (every %g s)", str(cs, "url"),
		  json_object_get_double(get(cs, "update_frequency")));
	out_sync(cs);
	out_resync(cs);
	bw_out_int("decisions", NULL, num(cs, "decisions"));
	bw_out_int("values", NULL, num(cs, "values"));
	bw_out_kv("decisions", "%lld (%lld %s)", num(cs, "decisions"),
		  num(cs, "values"),
		  bw_plural((unsigned long long)num(cs, "values"), "value",
			    "values"));
	out_by(cs);
	out_counts("refused", get(cs, "skipped"), refused, 4);
	out_counts("ignored", get(cs, "skipped"), ignored, 5);
	out_counts("requests", get(cs, "requests"), results, 11);
	bw_out_close_object();
}
