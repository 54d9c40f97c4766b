// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What the watch's live entries hold (live_view.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* Entry i of the taken out ones, as remove gives it ("*.NAME" a subtree). */
static void say_removed_entry(struct json_object *list,
			      const struct bw_live *set,
			      const struct bw_entries *s, size_t i,
			      int in_place)
{
	const struct bw_entry *e = &s->v[i];
	char text[BW_NAME_MAX + 3];

	bw_entries_str(s, i, text, sizeof(text));
	say_removed(
		list, text, in_place,
		bw_entry_is_name(e)
			? bw_live_has_name(set, bw_entry_name(s, e), e->d.len,
					   e->d.flags & BW_DOM_SUBTREE, NULL)
			: bw_live_has(set, &e->p, NULL));
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
	for (i = 0; list && i < r.gone.n; i++)
		say_removed_entry(list, &l->set, &r.gone, i, in_place);
	if (list)
		json_object_object_add(ans, "removed", list);
	bw_records_free(&r);
}

/* ---- "add" ---------------------------------------------------------------- */

/* The most entries one add hands over (a question is at most 1 MiB). */
#define ADD_MAX 100000

static void fail(struct json_object *ans, const char *code, const char *why)
{
	json_object_object_add(ans, "ok", json_object_new_boolean(false));
	json_object_object_add(ans, "code", json_object_new_string(code));
	json_object_object_add(ans, "error", json_object_new_string(why));
}

/* The request's prefixes into *p (n of them): 0, or -EINVAL said in ans. */
static int read_prefixes(struct json_object *arr, struct bw_prefix **p,
			 size_t *n, struct json_object *ans)
{
	size_t i, len = json_object_array_length(arr);
	char why[BW_ERRLEN];
	const char *s;

	if (!len || len > ADD_MAX) {
		fail(ans, "bad_request", "\"prefixes\": 1 to 100000 entries");
		return -EINVAL;
	}
	*p = calloc(len, sizeof(**p));
	if (!*p) {
		fail(ans, "no_memory", "no memory for the entries");
		return -ENOMEM;
	}
	for (i = 0; i < len; i++) {
		s = json_object_get_string(json_object_array_get_idx(arr, i));
		why[0] = '\0';
		if (!json_object_is_type(json_object_array_get_idx(arr, i),
					 json_type_string) ||
		    bw_parse_prefix(s, &(*p)[i], why, sizeof(why))) {
			fail(ans, "bad_request", "\"prefixes\": not a prefix");
			return -EINVAL;
		}
	}
	*n = len;
	return 0;
}

/* The request's names, checked and folded, into l. */
static int read_names(struct json_object *arr, struct bw_list *l,
		      struct json_object *ans)
{
	size_t i, len = json_object_array_length(arr);
	char name[BW_NAME_MAX], why[BW_ERRLEN];
	struct json_object *e, *v, *sub;
	int n;

	if (!len || len > ADD_MAX) {
		fail(ans, "bad_request", "\"names\": 1 to 100000 entries");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		e = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(e, "name", &v) ||
		    !json_object_is_type(v, json_type_string)) {
			fail(ans, "bad_request", "\"names\": no \"name\"");
			return -EINVAL;
		}
		n = bw_name_check(json_object_get_string(v),
				  (size_t)json_object_get_string_len(v), name,
				  why, sizeof(why));
		if (n <= 0) {
			fail(ans, "bad_request", "\"names\": not a name");
			return -EINVAL;
		}
		sub = NULL;
		json_object_object_get_ex(e, "subtree", &sub);
		if (bw_domain_push(l, name, (size_t)n,
				   json_object_get_boolean(sub) ? BW_DOM_SUBTREE
								: 0)) {
			fail(ans, "no_memory", "no memory for the names");
			return -ENOMEM;
		}
	}
	return 0;
}

/* One result a request's entry, in its order: small for a bulk add. */
static void say_added(struct json_object *ans, const bool *had, size_t count,
		      __u64 expires)
{
	struct json_object *list = json_object_new_array_ext((int)count);
	size_t i;

	for (i = 0; list && i < count; i++)
		json_object_array_add(
			list,
			json_object_new_string(had[i] ? "already" : "added"));
	json_object_object_add(ans, "ok", json_object_new_boolean(true));
	json_object_object_add(ans, "in_place", json_object_new_boolean(true));
	put_u64(ans, "expires", expires);
	json_object_object_add(ans, "results", list);
}

/* A request's entries: prefixes, or names; count of either. */
struct entries {
	struct bw_prefix *p;
	size_t n;
	struct bw_list names;
	bool by_name;
	size_t count;
	bool *flag; /* one per entry, for the answer */
};

/* The request's entries read and checked: 0, or -errno said in ans. */
static int read_entries(struct json_object *req, struct entries *e,
			struct json_object *ans)
{
	struct json_object *arr = NULL;
	int err;

	memset(e, 0, sizeof(*e));
	bw_list_init(&e->names);
	e->by_name = json_object_object_get_ex(req, "names", &arr);
	if (!e->by_name)
		json_object_object_get_ex(req, "prefixes", &arr);
	if (!json_object_is_type(arr, json_type_array)) {
		fail(ans, "bad_request", "no \"prefixes\" or \"names\"");
		return -EINVAL;
	}
	err = e->by_name ? read_names(arr, &e->names, ans)
			 : read_prefixes(arr, &e->p, &e->n, ans);
	e->count = e->by_name ? e->names.ndom : e->n;
	e->flag = err ? NULL : calloc(e->count ?: 1, sizeof(*e->flag));
	if (!err && !e->flag) {
		fail(ans, "no_memory", "no memory for the entries");
		err = -ENOMEM;
	}
	return err;
}

static void free_entries(struct entries *e)
{
	free(e->flag);
	free(e->p);
	bw_list_free(&e->names);
}

/* The errors add and remove share, said in ans. */
static void say_error(struct json_object *ans, int err)
{
	if (err == -EAGAIN)
		fail(ans, "busy", "another command holds the lock: ask again");
	else if (err == -EXDEV || err == -E2BIG)
		fail(ans, "not_in_place",
		     err == -E2BIG
			     ? "the running filter's add log is full"
			     : "the running filter cannot keep these entries live");
	else if (err == -ENOENT)
		fail(ans, "no_filter", "no filter runs");
	else if (err == -EINVAL)
		fail(ans, "bad_records",
		     "the running filter's records cannot be read");
	else
		fail(ans, "failed", strerror(-err));
}

void bw_wlive_add_answer(struct bw_wlive *l, struct json_object *req,
			 struct json_object *ans)
{
	struct json_object *v = NULL;
	struct entries e;
	__u64 expires = 0;
	int err;

	if (json_object_object_get_ex(req, "expires", &v))
		expires = (__u64)json_object_get_int64(v);
	if ((v && !json_object_is_type(v, json_type_int)) ||
	    json_object_get_int64(v) < 0 || expires > BW_REC_EXPIRES_MAX) {
		fail(ans, "bad_request",
		     "\"expires\": Unix seconds, 0 or none: never");
		return;
	}
	err = read_entries(req, &e, ans);
	if (!err)
		err = bw_wlive_add_log(l, e.p, e.n, e.by_name ? &e.names : NULL,
				       expires, e.flag);
	if (!err)
		say_added(ans, e.flag, e.count, expires);
	else if (e.flag)
		say_error(ans, err);
	free_entries(&e);
}

/* Whether entry i of e is still live (a decision holds it). */
static bool still_live(const struct bw_wlive *l, const struct entries *e,
		       size_t i)
{
	const struct bw_domain *d;

	if (!e->by_name)
		return bw_live_has(&l->set, &e->p[i], NULL);
	d = &e->names.dom[i];
	return bw_live_has_name(&l->set, bw_domain_name(&e->names, d), d->len,
				d->flags & BW_DOM_SUBTREE, NULL);
}

void bw_wlive_remove_answer(struct bw_wlive *l, struct json_object *req,
			    struct json_object *ans)
{
	struct json_object *list;
	struct entries e;
	const char *how;
	size_t i;
	int err;

	err = read_entries(req, &e, ans);
	if (!err)
		err = bw_wlive_remove(l, e.p, e.n, e.by_name ? &e.names : NULL,
				      e.flag);
	if (err < 0) {
		if (e.flag)
			say_error(ans, err);
		free_entries(&e);
		return;
	}
	list = json_object_new_array_ext((int)e.count);
	for (i = 0; list && i < e.count; i++) {
		how = !e.flag[i]	     ? "not_added"
		      : !err		     ? "rebuild"
		      : still_live(l, &e, i) ? "held"
					     : "in_place";
		json_object_array_add(list, json_object_new_string(how));
	}
	json_object_object_add(ans, "ok", json_object_new_boolean(true));
	json_object_object_add(ans, "results", list);
	free_entries(&e);
}

struct json_object *bw_wlive_answer(struct bw_wlive *l, const char *q)
{
	struct json_object *req = json_tokener_parse(q), *ans, *v, *op;
	const char *err = NULL;

	ans = json_object_new_object();
	if (!ans) {
		json_object_put(req);
		return NULL;
	}
	json_object_object_add(ans, "v", json_object_new_int(1));
	if (!json_object_is_type(req, json_type_object))
		err = "not a JSON object";
	else if (!json_object_object_get_ex(req, "v", &v) ||
		 json_object_get_int(v) != 1)
		err = "unknown version: this watch speaks \"v\": 1";
	else if (!json_object_object_get_ex(req, "op", &op))
		err = "no \"op\"";
	else if (!strcmp(json_object_get_string(op), "add"))
		bw_wlive_add_answer(l, req, ans);
	else if (!strcmp(json_object_get_string(op), "remove"))
		bw_wlive_remove_answer(l, req, ans);
	else
		err = "unknown \"op\": this watch knows \"add\" and \"remove\"";
	if (err) {
		json_object_object_add(ans, "ok",
				       json_object_new_boolean(false));
		json_object_object_add(ans, "code",
				       json_object_new_string("bad_request"));
		json_object_object_add(ans, "error",
				       json_object_new_string(err));
	}
	json_object_put(req);
	return ans;
}
