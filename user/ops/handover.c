// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* add and remove handed to a running watch (handover.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "base/run_ask.h"
#include "kernel/lock.h"
#include "lists/list_parse.h"
#include "ops/handover.h"

/* A rebuild of a big filter holds the watch's loop for seconds. */
#define ASK_MS 30000
/* How long a busy lock is asked again, and how often. */
#define BUSY_TRIES 100
#define BUSY_NS 50000000L

/*
 * Entries a question carries: well within the socket's 1 MiB question
 * (an IPv6 prefix or a name and its quotes, some 60 to 300 bytes) and
 * the answer's bound.
 */
#define CHUNK 2000

/*
 * Where the question from entry from ends: at most CHUNK entries, all of
 * one kind (a question has "prefixes" or "names") and, for an add, of
 * one expiry (a question has one "expires").
 */
static size_t question_end(const struct bw_handover_req *rq, size_t from)
{
	const struct bw_entries *s = rq->entries;
	const struct bw_entry *first = &s->v[from];
	size_t to;

	for (to = from + 1; to < s->n && to - from < CHUNK; to++)
		if (s->v[to].kind != first->kind ||
		    (rq->op == BW_HANDOVER_ADD &&
		     s->v[to].expires != first->expires))
			break;
	return to;
}

/* The question for entries [from, to) of rq, of one kind. */
static struct json_object *request(const struct bw_handover_req *rq,
				   size_t from, size_t to)
{
	const struct bw_entries *s = rq->entries;
	bool names = bw_entry_is_name(&s->v[from]);
	struct json_object *q = json_object_new_object(), *arr, *o;
	const struct bw_entry *e;
	char text[64];
	size_t i;

	arr = json_object_new_array();
	if (!q || !arr) {
		json_object_put(q);
		json_object_put(arr);
		return NULL;
	}
	for (i = from; i < to; i++) {
		e = &s->v[i];
		if (!names) {
			json_object_array_add(
				arr, json_object_new_string(bw_prefix_str(
					     &e->p, text, sizeof(text))));
			continue;
		}
		o = json_object_new_object();
		json_object_object_add(o, "name",
				       json_object_new_string_len(
					       bw_entry_name(s, e), e->d.len));
		json_object_object_add(
			o, "subtree",
			json_object_new_boolean(e->d.flags & BW_DOM_SUBTREE));
		json_object_array_add(arr, o);
	}
	json_object_object_add(q, names ? "names" : "prefixes", arr);
	if (rq->owner)
		json_object_object_add(q, "owner",
				       json_object_new_string(rq->owner));
	if (rq->op == BW_HANDOVER_ADD)
		json_object_object_add(
			q, "expires",
			json_object_new_int64((int64_t)s->v[from].expires));
	return q;
}

/* The reply's results for entries [from, from + count) into res. */
static int results(struct json_object *ans, size_t from, size_t count,
		   struct bw_handover_result *res)
{
	static const char *const words[] = {
		[BW_HOW_ADDED] = "added",
		[BW_HOW_ALREADY] = "already",
		[BW_HOW_IN_PLACE] = "in_place",
		[BW_HOW_HELD] = "held",
		[BW_HOW_REBUILD] = "rebuild",
		[BW_HOW_NOT_ADDED] = "not_added",
		[BW_HOW_KEPT] = "kept",
	};
	struct json_object *list;
	const char *e;
	size_t i, h;

	if (!json_object_object_get_ex(ans, "results", &list) ||
	    !json_object_is_type(list, json_type_array) ||
	    json_object_array_length(list) != count)
		return -EBADMSG;
	for (i = 0; i < count; i++) {
		e = json_object_get_string(json_object_array_get_idx(list, i));
		for (h = 0; e && h < sizeof(words) / sizeof(words[0]); h++)
			if (words[h] && !strcmp(e, words[h]))
				break;
		if (!e || h == sizeof(words) / sizeof(words[0]))
			return -EBADMSG;
		res->how[from + i] = (enum bw_handover_how)h;
	}
	return 0;
}

int bw_watch_ask(const char *iface, enum bw_ask_op op, struct json_object *req,
		 int timeout_ms, struct bw_watch_reply *r)
{
	const struct timespec pause = { .tv_nsec = BUSY_NS };
	struct json_object *q = req ?: json_object_new_object();
	const char *text;
	int err, tries;

	memset(r, 0, sizeof(*r));
	if (!q)
		return -ENOMEM;
	json_object_object_add(q, "v", json_object_new_int(BW_ASK_VERSION));
	json_object_object_add(q, "op", json_object_new_string(bw_ask_ops[op]));
	text = json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN);
	for (tries = 0;; tries++) {
		err = bw_run_ask(iface, text, timeout_ms, &r->o);
		if (err == -ECONNREFUSED)
			err = -ENOENT;
		if (!err)
			err = bw_ask_check(r->o, &r->code, r->why,
					   sizeof(r->why));
		if (err != -EREMOTEIO || r->code != BW_ASK_BUSY ||
		    tries == BUSY_TRIES)
			break;
		json_object_put(r->o);
		r->o = NULL;
		nanosleep(&pause, NULL);
	}
	json_object_put(q);
	if (err) {
		json_object_put(r->o);
		r->o = NULL;
	}
	return err;
}

/* Entries [from, to) asked: 0, -ENOENT, -EXDEV (res->why), -errno. */
static int ask(const struct bw_handover_req *rq, size_t from, size_t to,
	       struct bw_handover_result *res)
{
	struct json_object *q = request(rq, from, to);
	struct bw_watch_reply r;
	int err;

	if (!q)
		return -ENOMEM;
	err = bw_watch_ask(rq->iface,
			   rq->op == BW_HANDOVER_ADD ? BW_ASK_ADD
						     : BW_ASK_REMOVE,
			   q, ASK_MS, &r);
	if (!err)
		err = results(r.o, from, to - from, res);
	json_object_put(r.o);
	if (err != -EREMOTEIO)
		return err;
	snprintf(res->why, sizeof(res->why), "%s", r.why);
	/* A watch that knows no such question: the caller's own way. */
	return r.code == BW_ASK_UNKNOWN_OP ? -ENOENT : -EXDEV;
}

int bw_handover(const struct bw_handover_req *rq,
		struct bw_handover_result *res)
{
	size_t count = rq->entries->n, from, to;
	int err = 0;

	memset(res, 0, sizeof(*res));
	/* The copy-and-swap way, as a watch too old for "add" gets it. */
	if (rq->op == BW_HANDOVER_ADD && getenv("BLOOMWALL_ADD_SWAP"))
		return -ENOENT;
	res->how = calloc(count ?: 1, sizeof(*res->how));
	if (!res->how)
		return -ENOMEM;
	/*
	 * A question at a time: each is done whole or not at all. One refused
	 * after others went through leaves those done; the caller then does
	 * them all itself (an add or a remove done twice is done once).
	 */
	for (from = 0; !err && from < count; from = to) {
		to = question_end(rq, from);
		err = ask(rq, from, to, res);
	}
	if (err)
		bw_handover_free(res);
	return err;
}

void bw_handover_free(struct bw_handover_result *res)
{
	free(res->how);
	res->how = NULL;
}

int bw_handover_watch(const char *iface)
{
	return bw_lock_watch_holder(iface);
}
