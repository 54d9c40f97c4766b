// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What the CrowdSec source shows of itself (crowdsec.h): the state file's
 * "crowdsec" section and the metrics' counts.
 */
#include <string.h>
#include <json-c/json.h>

#include "daemon/crowdsec_state.h"

static int count_pair(void *ctx, const struct bw_cs_held *h)
{
	bw_cs_metrics_count(ctx, h->origin, h->range ? "Range" : "Ip");
	return 0;
}

void bw_crowdsec_metrics(const struct bw_crowdsec *cs, struct bw_cs_metrics *m)
{
	int i;

	const struct bw_cs_status *st = bw_crowdsec_status(cs);
	const struct bw_cs_set *set = bw_crowdsec_set(cs);

	memset(m, 0, sizeof(*m));
	memcpy(m->requests, st->requests, sizeof(m->requests));
	for (i = 0; i < BW_CS_SKIP_KINDS; i++)
		m->skipped[i] = bw_cs_set_skipped(set, i);
	m->last_sync = st->last_ok;
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

void bw_crowdsec_publish(const struct bw_crowdsec *cs, struct json_object *root)
{
	const struct bw_cs_status *st = bw_crowdsec_status(cs);
	const struct bw_cs_set *set = bw_crowdsec_set(cs);
	struct json_object *o = json_object_new_object();
	struct bw_cs_metrics m;

	if (!o)
		return;
	bw_crowdsec_metrics(cs, &m);
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
	json_object_object_add(root, "crowdsec", o);
}
