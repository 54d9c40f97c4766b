// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* query --why, the CrowdSec decisions (cs_why.h). */
#include <stdio.h>
#include <time.h>

#include "base/output.h"
#include "out/cs_why.h"

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

static void out_decision(const struct bw_cs_why_dec *d)
{
	char until[80];

	until_text(d->until, until, sizeof(until));
	bw_out_open_object(NULL);
	bw_out_int("id", "  why: CrowdSec decision %lld", d->id);
	bw_out_string("origin", " (origin %s", d->origin);
	bw_out_string("scenario", ", scenario '%s'", d->scenario);
	bw_out_string("scope", "): %s", d->scope);
	bw_out_string("value", " %s", d->value);
	bw_out_string("type", ", %s", d->type);
	bw_out_int("until", NULL, d->until);
	bw_out_text(" until %s\n", until);
	bw_out_close_object();
}

int bw_cs_why_out(const struct bw_cs_why *w, size_t i)
{
	const struct bw_cs_why_addr *a;
	size_t k;

	if (!w->source || i >= w->n || !w->addr[i].n)
		return 0;
	a = &w->addr[i];
	bw_out_open_object("crowdsec");
	bw_out_string("url", NULL, w->url);
	bw_out_open_array("decisions");
	for (k = 0; k < a->n; k++)
		out_decision(&a->d[k]);
	bw_out_close_array();
	bw_out_int("more",
		   a->more ? "  why: and %lld more CrowdSec decisions\n" : NULL,
		   a->more);
	bw_out_close_object();
	return (int)(a->n + (size_t)a->more);
}
