/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the watch's live entries (live.h) hold, for the other verbs: the
 * figures, the "live" section of the state file, remove's answer.
 */
#ifndef __BW_DAEMON_LIVE_VIEW_H
#define __BW_DAEMON_LIVE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "daemon/live.h"

/* What bw_wlive_stats() says (also in the state file and the metrics). */
struct bw_wlive_stats {
	size_t entries, keys, blocks;
	size_t names;	   /* of the entries: names (one key each) */
	size_t bytes;	   /* memory held for them */
	__u64 next_expiry; /* Unix seconds; 0: none */
	/*
	 * Entries not in the filter: nothing runs, or it has no target
	 * length for them (set once a filter that has one runs).
	 */
	size_t unplaced;
	__u64 adds, deletes, expired;
	__u64 takeovers; /* filters other commands swapped in, taken over */
	bool pending;	 /* deletes kept back until a rebuild */
	__u64 refused;	 /* adds refused for want of a target length */
	size_t refused_pending; /* of them, for the next rebuild to size for */
};

void bw_wlive_stats(const struct bw_wlive *l, struct bw_wlive_stats *s);

/*
 * remove's question "sync" (daemon/watch_sock.h): bw_wlive_sync(), and in
 * ans "removed": [{"entry" (a prefix, or a name: "*.NAME" a subtree), "how": "in_place" | "held" (another live
 * entry, a decision, keeps it) | "rebuild"}] for every entry the records
 * mark taken out, or "error".
 */
void bw_wlive_sync_answer(struct bw_wlive *l, struct json_object *ans);

/* Sets the "live" section of the state file's root (daemon_state.h). */
void bw_wlive_publish(const struct bw_wlive *l, struct json_object *root);

/*
 * The socket's "add" (daemon/watch_sock.h): req {"prefixes": ["ADDR" |
 * "CIDR", ...] | "names": [{"name", "subtree"}], "expires": Unix seconds
 * (0 or none: never)}; bw_wlive_add_log(), and in ans "ok": true,
 * "in_place": true, "expires", "results": ["added" | "already", ...]
 * (one per entry asked, in its order); or "ok": false, "code": "busy" (ask again) |
 * "not_in_place" (the CLI swaps instead) | "no_filter" | "bad_request" |
 * "bad_records" | "no_memory", and "error", said for a person.
 */
void bw_wlive_add_answer(struct bw_wlive *l, struct json_object *req,
			 struct json_object *ans);

/*
 * The socket's "remove": req {"prefixes" | "names"} as for "add";
 * bw_wlive_remove(), and in ans "ok": true, "results": ["in_place" |
 * "held" (a live entry of another source, a decision, keeps it) |
 * "rebuild" (the adds are built in: a rebuild takes it out) |
 * "not_added", ...] (one per entry asked, in its order); or "ok": false
 * with "code" and "error" as for "add".
 */
void bw_wlive_remove_answer(struct bw_wlive *l, struct json_object *req,
			    struct json_object *ans);

/*
 * A typed question on the watch's socket (watch_sock.h): one JSON
 * object, {"v": 1, "op": "add" | "remove", ...}, answered by the two
 * above; the answer (NULL without memory) carries "v", and an error
 * "ok": false, "code": "bad_request", "error".
 */
struct json_object *bw_wlive_answer(struct bw_wlive *l, const char *q);

#endif /* __BW_DAEMON_LIVE_VIEW_H */
