// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The socket's "why": the decisions covering addresses (crowdsec_why.h). */
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>

#include "base/run_ask.h"
#include "daemon/crowdsec_why.h"
#include "filter/why.h"
#include "lists/list_parse.h"

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

void bw_cs_why_answer(const struct bw_cs_set *set, const char *url,
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
