/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The end of a pull (pull.h): the image that went in kept, the figures,
 * the log line of a failure, when the next pull is, and what the watch
 * publishes of it.
 */
#ifndef __BW_PULL_END_H
#define __BW_PULL_END_H

#include <stdbool.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "daemon/pull.h"

/*
 * rc is bw_pull_step's end, swap_err the swap's (0 when rc was not 0). Keeps
 * the image that went in as p->cur, counts, prints the line of a failure
 * (gen: the generation that runs), and sets when the next pull is.
 */
void bw_pull_finish(struct bw_pull *p, int rc, int swap_err, __u64 gen);

/*
 * The download of URL p->fetched was refused at its swap (swap_err: its
 * signature, an older serial, its check): when a URL follows it, the pull
 * goes on there (true), the refusal counted and kept in the reason; else
 * false (bw_pull_finish ends the pull).
 */
bool bw_pull_next_mirror(struct bw_pull *p, int swap_err);

/* The first pull: at once, or within an interval when a filter runs. */
void bw_pull_schedule_first(struct bw_pull *p, bool running);

/* The "pull" section of the watch's state file, added to root. */
void bw_pull_json(const struct bw_pull *p, struct json_object *root);

#endif /* __BW_PULL_END_H */
