// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What the watch's live entries hold (live_view.h). */
#include <errno.h>

#include "daemon/live_view.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/names.h"

void bw_wlive_stats(const struct bw_wlive *l, struct bw_wlive_stats *s)
{
	struct bw_live_stats ls;

	bw_live_stats(&l->set, &ls);
	s->entries = ls.entries;
	s->names = ls.names;
	s->keys = ls.keys;
	s->blocks = ls.blocks;
	s->bytes = ls.bytes;
	s->next_expiry = ls.next_expiry;
	s->unplaced = ls.unplaced;
	s->adds = l->adds;
	s->deletes = l->deletes;
	s->expired = l->expired;
	s->takeovers = l->takeovers;
	s->pending = l->set.stale;
	s->refused = l->size.refused;
	s->refused_pending = bw_wsize_pending(&l->size);
}

static void put_u64(struct json_object *o, const char *k, __u64 v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

void bw_wlive_publish(const struct bw_wlive *l, struct json_object *root)
{
	struct json_object *o = json_object_new_object();
	struct bw_wlive_stats s;

	if (!o)
		return;
	bw_wlive_stats(l, &s);
	put_u64(o, "entries", s.entries);
	put_u64(o, "names", s.names);
	put_u64(o, "keys", s.keys);
	put_u64(o, "blocks", s.blocks);
	put_u64(o, "bytes", s.bytes);
	put_u64(o, "next_expiry", s.next_expiry);
	put_u64(o, "unplaced", s.unplaced);
	put_u64(o, "adds", s.adds);
	put_u64(o, "deletes", s.deletes);
	put_u64(o, "expired", s.expired);
	put_u64(o, "takeovers", s.takeovers);
	put_u64(o, "refused", s.refused);
	put_u64(o, "refused_pending", s.refused_pending);
	json_object_object_add(o, "deletes_pending",
			       json_object_new_boolean(s.pending));
	json_object_object_add(root, "live", o);
}

/* One entry of remove's answer: its text and how it went. */
static void say_removed(struct json_object *list, const char *text,
			int in_place, bool held)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return;
	json_object_object_add(o, "entry", json_object_new_string(text));
	json_object_object_add(o, "how",
			       json_object_new_string(!in_place ? "rebuild"
						      : held	? "held"
								: "in_place"));
	json_object_array_add(list, o);
}

static void say_removed_prefix(struct json_object *list,
			       const struct bw_live *set,
			       const struct bw_prefix *p, int in_place)
{
	char text[64];

	bw_prefix_str(p, text, sizeof(text));
	say_removed(list, text, in_place, bw_live_has(set, p, NULL));
}

/* A name as remove gives it: "*.NAME" for a subtree. */
static void say_removed_name(struct json_object *list,
			     const struct bw_live *set,
			     const struct bw_list *names, size_t i,
			     int in_place)
{
	const struct bw_domain *d = &names->dom[i];
	char text[BW_NAME_MAX + 3];

	bw_domain_str(names, d, text, sizeof(text));
	say_removed(list, text, in_place,
		    bw_live_has_name(set, bw_domain_name(names, d), d->len,
				     d->flags & BW_DOM_SUBTREE, NULL));
}

void bw_wlive_sync_answer(struct bw_wlive *l, struct json_object *ans)
{
	struct json_object *list;
	struct bw_records r;
	int in_place = bw_wlive_sync(l, &r);
	size_t i;

	if (in_place < 0) {
		json_object_object_add(
			ans, "error",
			json_object_new_string(
				in_place == -ENOENT
					? "no filter runs"
					: "the running filter's records cannot be read"));
		return;
	}
	list = json_object_new_array();
	for (i = 0; list && i < r.ngone; i++)
		say_removed_prefix(list, &l->set, &r.gone[i], in_place);
	for (i = 0; list && i < r.gone_names.ndom; i++)
		say_removed_name(list, &l->set, &r.gone_names, i, in_place);
	if (list)
		json_object_object_add(ans, "removed", list);
	bw_records_free(&r);
}
