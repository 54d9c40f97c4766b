// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What the watch's live entries hold (live_view.h). */
#include "daemon/live_view.h"

void bw_wlive_stats(const struct bw_wlive *l, struct bw_wlive_stats *s)
{
	struct bw_live_stats ls;

	bw_live_stats(&l->set, &ls);
	s->entries = ls.entries;
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
