// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* query --why's CrowdSec answer (crowdsec_why.h). */
#include <stdio.h>
#include <json-c/json.h>

#include "daemon/crowdsec_why.h"
#include "filter/why.h"
#include "lists/list_parse.h"
#include "out/cs_why.h"

struct answer {
	struct bw_prefix addr;
	struct json_object *list;
	long long more;
};

static int add_covering(void *ctx, const struct bw_cs_held *h)
{
	struct answer *a = ctx;
	struct json_object *o;
	char v[64];

	if (!bw_why_covers(&h->p, &a->addr))
		return 0;
	if (json_object_array_length(a->list) >= BW_CS_WHY_MAX) {
		a->more++;
		return 0;
	}
	o = json_object_new_object();
	if (!o)
		return 0;
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
	json_object_array_add(a->list, o);
	return 0;
}

struct json_object *bw_cs_why_answer(const struct bw_cs_set *set,
				     const char *url, const char *q)
{
	struct answer a = { .list = json_object_new_array() };
	struct json_object *root = json_object_new_object();
	char err[BW_ERRLEN];

	if (!root || !a.list) {
		json_object_put(a.list);
		json_object_put(root);
		return NULL;
	}
	json_object_object_add(root, "url", json_object_new_string(url));
	if (!bw_parse_prefix(q, &a.addr, err, sizeof(err)))
		bw_cs_set_foreach(set, add_covering, &a);
	json_object_object_add(root, "decisions", a.list);
	a.list = NULL;
	json_object_object_add(root, "more", json_object_new_int64(a.more));
	return root;
}
