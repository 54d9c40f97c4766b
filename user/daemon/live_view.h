/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the watch's live entries (live.h) hold, for the other verbs: the
 * figures, the "live" section of the state file, the socket's add and
 * remove.
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

/* Sets the "live" section of the state file's root (daemon_state.h). */
void bw_wlive_publish(const struct bw_wlive *l, struct json_object *root);

/*
 * The socket's "add" and "remove" (base/run_ask.h says their fields):
 * req the question, ans the reply to fill (its "ok" true, made an error
 * by bw_ask_fail() when refused); through bw_wlive_add_log() and
 * bw_wlive_remove().
 */
void bw_wlive_add_answer(struct bw_wlive *l, struct json_object *req,
			 struct json_object *ans);
void bw_wlive_remove_answer(struct bw_wlive *l, struct json_object *req,
			    struct json_object *ans);

#endif /* __BW_DAEMON_LIVE_VIEW_H */
