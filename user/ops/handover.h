/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Asking the running watch (base/run_ask.h, the protocol), and add and
 * remove with a watch running: the entries are handed to the watch over
 * its socket (the questions "add" and "remove"), which changes the
 * running filter's records under the lock (an add appended to its add
 * log, a remove marked) and its blocks in place: no rebuild, no swap,
 * the same program on the hook. The watch is the one owner of the live
 * entries; without one, or where it cannot do it in place, the caller
 * does the change itself.
 */
#ifndef __BW_HANDOVER_H
#define __BW_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "base/run_ask.h"
#include "bloomwall.h"
#include "lists/entry.h"

/* A reply of the watch (base/run_ask.h). */
struct bw_watch_reply {
	struct json_object *o; /* the reply, "ok" true; json_object_put() it */
	enum bw_ask_code code; /* a refusal's */
	char why[256];	       /* a refusal's "error" */
};

/*
 * The one client of the watch's socket: asks iface's watch op with the
 * fields of req (taken and put here; NULL: none). 0 with the reply in
 * r->o; -ENOENT when no watch listens; -EREMOTEIO when it refused
 * (r->code, r->why); -ETIMEDOUT when it made no progress for timeout_ms
 * (a rebuild holds its loop); -EBADMSG a reply not of the protocol;
 * -errno. "busy" is asked again for a while.
 */
int bw_watch_ask(const char *iface, enum bw_ask_op op, struct json_object *req,
		 int timeout_ms, struct bw_watch_reply *r);

enum bw_handover_op {
	BW_HANDOVER_ADD,
	BW_HANDOVER_REMOVE,
};

struct bw_handover_req {
	const char *iface;
	enum bw_handover_op op;
	/* Prefixes and names; an add's each until its expiry (0: never). */
	const struct bw_entries *entries;
	const char *owner; /* 'add/remove --owner' (NULL: none) */
};

/* What the watch did with one entry. */
enum bw_handover_how {
	BW_HOW_ADDED,	  /* add: now live */
	BW_HOW_ALREADY,	  /* add: it was live before */
	BW_HOW_IN_PLACE,  /* remove: out of the blocks */
	BW_HOW_HELD,	  /* remove: out, but a decision still holds it */
	BW_HOW_REBUILD,	  /* remove: out of the records; a rebuild follows */
	BW_HOW_NOT_ADDED, /* remove: it was no add */
	/* remove marked by the caller, not handed over: the watch finds it */
	BW_HOW_MARKED,
	BW_HOW_KEPT, /* remove --owner: the claim went, other owners keep it */
};

struct bw_handover_result {
	enum bw_handover_how *how; /* one per entry asked, in order */
	char why[256];		   /* the watch's word when not in place */
};

/*
 * Hands rq to iface's watch, a question of at most 2000 entries at a time:
 * 0 when it did every entry (res->how filled; free it with
 * bw_handover_free); -ENOENT when no watch listens (or one that knows no
 * such question); -EXDEV when the watch cannot do it in place (res->why
 * says why); either way the caller does it itself. -ETIMEDOUT when the
 * watch did not answer, -errno. A busy lock is asked again for a while.
 */
int bw_handover(const struct bw_handover_req *rq,
		struct bw_handover_result *res);

void bw_handover_free(struct bw_handover_result *res);

/*
 * The pid of the watch running on iface (holding its watch lock, read
 * without taking it): 0 when none, -errno.
 */
int bw_handover_watch(const char *iface);

#endif /* __BW_HANDOVER_H */
