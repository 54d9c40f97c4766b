// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What the watch's live entries hold (live_view.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/run_ask.h"
#include "daemon/live_ask.h"
#include "daemon/live_priv.h"
#include "daemon/live_view.h"
#include "filter/owners.h"
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

/* ---- "add" ---------------------------------------------------------------- */

/* The most entries one add hands over (a question is at most 1 MiB). */
#define ADD_MAX 100000

/*
 * The request's prefixes into es, each until expires: 0, or -errno said
 * in ans.
 */
static int read_prefixes(struct json_object *arr, struct bw_entries *es,
			 __u64 expires, struct json_object *ans)
{
	size_t i, len = json_object_array_length(arr);
	char why[BW_ERRLEN];
	struct bw_prefix p;
	const char *s;

	if (!len || len > ADD_MAX) {
		bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
			    "\"prefixes\": 1 to 100000 entries");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		s = json_object_get_string(json_object_array_get_idx(arr, i));
		why[0] = '\0';
		if (!json_object_is_type(json_object_array_get_idx(arr, i),
					 json_type_string) ||
		    bw_parse_prefix(s, &p, why, sizeof(why))) {
			bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
				    "\"prefixes\": not a prefix");
			return -EINVAL;
		}
		if (bw_entries_push(es, bw_key_prefix(&p), expires)) {
			bw_ask_fail(ans, BW_ASK_NO_MEMORY,
				    "no memory for the entries");
			return -ENOMEM;
		}
	}
	return 0;
}

/* The request's names, checked and folded, into es, each until expires. */
static int read_names(struct json_object *arr, struct bw_entries *es,
		      __u64 expires, struct json_object *ans)
{
	size_t i, len = json_object_array_length(arr);
	char name[BW_NAME_MAX], why[BW_ERRLEN];
	struct json_object *e, *v, *sub;
	int n;

	if (!len || len > ADD_MAX) {
		bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
			    "\"names\": 1 to 100000 entries");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		e = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(e, "name", &v) ||
		    !json_object_is_type(v, json_type_string)) {
			bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
				    "\"names\": no \"name\"");
			return -EINVAL;
		}
		n = bw_name_check(json_object_get_string(v),
				  (size_t)json_object_get_string_len(v), name,
				  why, sizeof(why));
		if (n <= 0) {
			bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
				    "\"names\": not a name");
			return -EINVAL;
		}
		sub = NULL;
		json_object_object_get_ex(e, "subtree", &sub);
		if (bw_entries_push(es,
				    bw_key_name(name, (size_t)n,
						json_object_get_boolean(sub)
							? BW_DOM_SUBTREE
							: 0),
				    expires)) {
			bw_ask_fail(ans, BW_ASK_NO_MEMORY,
				    "no memory for the names");
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
	json_object_object_add(ans, "in_place", json_object_new_boolean(true));
	put_u64(ans, "expires", expires);
	json_object_object_add(ans, "results", list);
}

/* A request's entries: prefixes, or names. */
struct entries {
	struct bw_entries s;
	bool *flag; /* one per entry, for the answer */
};

/*
 * The request's entries read and checked, each until expires: 0, or
 * -errno said in ans.
 */
static int read_entries(struct json_object *req, __u64 expires,
			struct entries *e, struct json_object *ans)
{
	struct json_object *arr = NULL;
	bool by_name;
	int err;

	e->flag = NULL;
	bw_entries_init(&e->s);
	by_name = json_object_object_get_ex(req, "names", &arr);
	if (!by_name)
		json_object_object_get_ex(req, "prefixes", &arr);
	if (!json_object_is_type(arr, json_type_array)) {
		bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
			    "no \"prefixes\" or \"names\"");
		return -EINVAL;
	}
	err = by_name ? read_names(arr, &e->s, expires, ans)
		      : read_prefixes(arr, &e->s, expires, ans);
	e->flag = err ? NULL : calloc(e->s.n ?: 1, sizeof(*e->flag));
	if (!err && !e->flag) {
		bw_ask_fail(ans, BW_ASK_NO_MEMORY, "no memory for the entries");
		err = -ENOMEM;
	}
	return err;
}

static void free_entries(struct entries *e)
{
	free(e->flag);
	bw_entries_free(&e->s);
}

/*
 * The question's "owner" (none: the anonymous one): 0 with *owner set, or
 * -EINVAL said in ans.
 */
static int read_owner(struct json_object *req, const char **owner,
		      struct json_object *ans)
{
	struct json_object *v = NULL;

	*owner = NULL;
	if (!json_object_object_get_ex(req, "owner", &v))
		return 0;
	*owner = json_object_is_type(v, json_type_string)
			 ? json_object_get_string(v)
			 : NULL;
	if (*owner && !bw_owner_check(*owner))
		return 0;
	bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
		    "\"owner\": 1 to 32 of A-Z a-z 0-9 . _ -");
	return -EINVAL;
}

/* The errors add and remove share, said in ans. */
static void say_error(struct json_object *ans, int err)
{
	if (err == -EAGAIN)
		bw_ask_fail(ans, BW_ASK_BUSY,
			    "another command holds the lock: ask again");
	else if (err == -EBUSY)
		bw_ask_fail(
			ans, BW_ASK_BUSY,
			"the add log is full: the watch folds it, ask again");
	else if (err == -ENOSPC)
		bw_ask_fail(
			ans, BW_ASK_BUSY,
			"the filter is full at its target rate: the watch grows it, ask again");
	else if (err == -EXDEV || err == -E2BIG)
		bw_ask_fail(
			ans, BW_ASK_NOT_IN_PLACE,
			err == -E2BIG
				? "the question is larger than the running filter's add log"
				: "the running filter cannot keep these entries live");
	else if (err == -ENOENT)
		bw_ask_fail(ans, BW_ASK_NO_FILTER, "no filter runs");
	else if (err == -EINVAL)
		bw_ask_fail(ans, BW_ASK_BAD_RECORDS,
			    "the running filter's records cannot be read");
	else
		bw_ask_fail(ans, BW_ASK_FAILED, strerror(-err));
}

void bw_wlive_add_answer(struct bw_wlive *l, struct json_object *req,
			 struct json_object *ans)
{
	struct json_object *v = NULL;
	const char *owner;
	struct entries e;
	__u64 expires = 0;
	int err;

	if (read_owner(req, &owner, ans))
		return;
	if (json_object_object_get_ex(req, "expires", &v))
		expires = (__u64)json_object_get_int64(v);
	if ((v && !json_object_is_type(v, json_type_int)) ||
	    json_object_get_int64(v) < 0 || expires > BW_REC_EXPIRES_MAX) {
		bw_ask_fail(ans, BW_ASK_BAD_REQUEST,
			    "\"expires\": Unix seconds, 0 or none: never");
		return;
	}
	err = read_entries(req, expires, &e, ans);
	if (!err)
		err = bw_wlive_add_log(l, &e.s, owner, e.flag);
	if (!err)
		say_added(ans, e.flag, e.s.n, expires);
	else if (e.flag)
		say_error(ans, err);
	free_entries(&e);
}

/* Whether entry i of s is still live (a decision holds it). */
static bool still_live(const struct bw_wlive *l, const struct bw_entries *s,
		       size_t i)
{
	const struct bw_entry *e = &s->v[i];

	if (!bw_entry_is_name(e))
		return bw_live_has(&l->set, &e->p, NULL);
	return bw_live_has_name(&l->set, bw_entry_name(s, e), e->d.len,
				e->d.flags & BW_DOM_SUBTREE, NULL);
}

void bw_wlive_remove_answer(struct bw_wlive *l, struct json_object *req,
			    struct json_object *ans)
{
	struct json_object *list;
	const char *how, *owner;
	bool *kept = NULL;
	struct entries e;
	size_t i;
	int err;

	if (read_owner(req, &owner, ans))
		return;
	err = read_entries(req, 0, &e, ans);
	if (!err) {
		kept = calloc(e.s.n ?: 1, sizeof(*kept));
		err = kept ? bw_wlive_remove(l, &e.s, owner, e.flag, kept)
			   : -ENOMEM;
	}
	if (err < 0) {
		free(kept);
		if (e.flag)
			say_error(ans, err);
		free_entries(&e);
		return;
	}
	list = json_object_new_array_ext((int)e.s.n);
	for (i = 0; list && i < e.s.n; i++) {
		how = !e.flag[i]	       ? "not_added"
		      : kept[i]		       ? "kept"
		      : !err		       ? "rebuild"
		      : still_live(l, &e.s, i) ? "held"
					       : "in_place";
		json_object_array_add(list, json_object_new_string(how));
	}
	json_object_object_add(ans, "results", list);
	free(kept);
	free_entries(&e);
}
