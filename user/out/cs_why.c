// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* query --why, the CrowdSec decisions (cs_why.h): the socket's client. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "base/json.h"
#include "base/log.h"
#include "base/output.h"
#include "base/run_ask.h"
#include "out/cs_why.h"

#define TIMEOUT_MS 3000

static int ask(const char *iface, const char *addr, struct json_object **ans)
{
	char q[128];
	int n;

	n = snprintf(q, sizeof(q), "why %s", addr);
	if (n < 0 || (size_t)n >= sizeof(q))
		return -EINVAL;
	return bw_run_ask(iface, q, TIMEOUT_MS, ans);
}

/* o's string member key, "" when it has none. */
static const char *str(struct json_object *o, const char *key)
{
	return bw_json_str(o, key) ?: "";
}

static long long num(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v)
						     : 0;
}

/* "2026-12-02 07:40:00 UTC (in 3h59m)" */
static void until_text(long long until, char *buf, size_t cap)
{
	time_t t = (time_t)until;
	long long left = until - (long long)time(NULL);
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (left < 0)
		left = 0;
	if (left >= 3600)
		snprintf(buf, cap, "%s (in %lldh%02lldm)", when, left / 3600,
			 left / 60 % 60);
	else
		snprintf(buf, cap, "%s (in %lldm%02llds)", when, left / 60,
			 left % 60);
}

static void out_decision(struct json_object *d)
{
	char until[80];

	until_text(num(d, "until"), until, sizeof(until));
	bw_out_open_object(NULL);
	bw_out_int("id", "  why: CrowdSec decision %lld", num(d, "id"));
	bw_out_string("origin", " (origin %s", str(d, "origin"));
	bw_out_string("scenario", ", scenario '%s'", str(d, "scenario"));
	bw_out_string("scope", "): %s", str(d, "scope"));
	bw_out_string("value", " %s", str(d, "value"));
	bw_out_string("type", ", %s", str(d, "type"));
	bw_out_int("until", NULL, num(d, "until"));
	bw_out_text(" until %s\n", until);
	bw_out_close_object();
}

int bw_cs_why_out(const char *iface, const char *addr)
{
	struct json_object *ans = NULL, *ds = NULL;
	size_t i, n;
	int err;

	err = ask(iface, addr, &ans);
	/* No watch, or one without a CrowdSec source: nothing to say. */
	if (err == -ENOENT || err == -ECONNREFUSED)
		return 0;
	if (err) {
		pr_warn("%s: the watch's CrowdSec source did not answer for %s: %s\n",
			iface, addr, strerror(-err));
		return err;
	}
	json_object_object_get_ex(ans, "decisions", &ds);
	n = json_object_is_type(ds, json_type_array)
		    ? json_object_array_length(ds)
		    : 0;
	if (!n) {
		json_object_put(ans);
		return 0;
	}
	bw_out_open_object("crowdsec");
	bw_out_string("url", NULL, str(ans, "url"));
	bw_out_open_array("decisions");
	for (i = 0; i < n; i++)
		out_decision(json_object_array_get_idx(ds, i));
	bw_out_close_array();
	bw_out_int("more",
		   num(ans, "more")
			   ? "  why: and %lld more CrowdSec decisions\n"
			   : NULL,
		   num(ans, "more"));
	bw_out_close_object();
	err = (int)(n + (size_t)num(ans, "more"));
	json_object_put(ans);
	return err;
}
