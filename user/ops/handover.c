// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* add and remove handed to a running watch (handover.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "base/json.h"
#include "base/run_ask.h"
#include "kernel/lock.h"
#include "lists/list_domain.h"
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

/* The question for entries [from, to) of rq. */
static struct json_object *request(const struct bw_handover_req *rq,
				   size_t from, size_t to)
{
	struct json_object *q = json_object_new_object(), *arr, *o;
	char text[64];
	size_t i;

	arr = json_object_new_array();
	if (!q || !arr) {
		json_object_put(q);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(q, "v", json_object_new_int(1));
	json_object_object_add(q, "op",
			       json_object_new_string(rq->op == BW_HANDOVER_ADD
							      ? "add"
							      : "remove"));
	for (i = from; !rq->names && i < to; i++)
		json_object_array_add(arr,
				      json_object_new_string(bw_prefix_str(
					      &rq->p[i], text, sizeof(text))));
	for (i = from; rq->names && i < to; i++) {
		o = json_object_new_object();
		json_object_object_add(
			o, "name",
			json_object_new_string_len(
				bw_domain_name(rq->names, &rq->names->dom[i]),
				rq->names->dom[i].len));
		json_object_object_add(
			o, "subtree",
			json_object_new_boolean(rq->names->dom[i].flags &
						BW_DOM_SUBTREE));
		json_object_array_add(arr, o);
	}
	json_object_object_add(q, rq->names ? "names" : "prefixes", arr);
	if (rq->op == BW_HANDOVER_ADD)
		json_object_object_add(
			q, "expires",
			json_object_new_int64((int64_t)rq->expires));
	return q;
}

/*
 * The watch's answer to entries [from, from + count) read into res: 0,
 * -EAGAIN (busy), -EXDEV (not in place), -ENOENT (a watch that knows no
 * "add"), -EBADMSG.
 */
static int answer(struct json_object *ans, size_t from, size_t count,
		  struct bw_handover_result *res)
{
	static const char *const words[] = {
		[BW_HOW_ADDED] = "added",
		[BW_HOW_ALREADY] = "already",
		[BW_HOW_IN_PLACE] = "in_place",
		[BW_HOW_HELD] = "held",
		[BW_HOW_REBUILD] = "rebuild",
		[BW_HOW_NOT_ADDED] = "not_added",
	};
	struct json_object *ok, *list;
	const char *code = bw_json_str(ans, "code"),
		   *why = bw_json_str(ans, "error"), *e;
	size_t i, h;

	if (!json_object_object_get_ex(ans, "ok", &ok))
		return -ENOENT;
	if (!json_object_get_boolean(ok)) {
		snprintf(res->why, sizeof(res->why), "%s",
			 why ? why : "no reason given");
		if (code && !strcmp(code, "busy"))
			return -EAGAIN;
		return -EXDEV;
	}
	if (!json_object_object_get_ex(ans, "results", &list) ||
	    !json_object_is_type(list, json_type_array) ||
	    json_object_array_length(list) != count)
		return -EBADMSG;
	for (i = 0; i < count; i++) {
		e = json_object_get_string(json_object_array_get_idx(list, i));
		for (h = 0; e && h < sizeof(words) / sizeof(words[0]); h++)
			if (!strcmp(e, words[h]))
				break;
		if (!e || h == sizeof(words) / sizeof(words[0]))
			return -EBADMSG;
		res->how[from + i] = (enum bw_handover_how)h;
	}
	return 0;
}

/* Entries [from, to) asked, a busy lock asked again for a while. */
static int ask(const struct bw_handover_req *rq, size_t from, size_t to,
	       struct bw_handover_result *res)
{
	const struct timespec pause = { .tv_nsec = BUSY_NS };
	struct json_object *q = request(rq, from, to), *ans;
	const char *text;
	int err, tries;

	if (!q)
		return -ENOMEM;
	text = json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN);
	for (tries = 0;; tries++) {
		err = bw_run_ask(rq->iface, text, ASK_MS, &ans);
		if (err == -ECONNREFUSED)
			err = -ENOENT;
		if (err)
			break;
		err = answer(ans, from, to - from, res);
		json_object_put(ans);
		if (err != -EAGAIN || tries == BUSY_TRIES)
			break;
		nanosleep(&pause, NULL);
	}
	json_object_put(q);
	return err == -EAGAIN ? -EXDEV : err;
}

int bw_handover(const struct bw_handover_req *rq,
		struct bw_handover_result *res)
{
	size_t count = rq->names ? rq->names->ndom : rq->n, from, to;
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
		to = count - from > CHUNK ? from + CHUNK : count;
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
