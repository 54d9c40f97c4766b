/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's rebuild step (watch.h): attach when nothing runs, else
 * reload from the lists or swap the image in.
 */
#ifndef __BW_WATCH_APPLY_H
#define __BW_WATCH_APPLY_H

#include <stdbool.h>
#include <linux/types.h>

#include "cmd/cli.h"

/* Whether a's interface runs bloomwall's program. */
bool bw_watch_attached(const struct bw_args *a);

/*
 * Attaches (with --image: an empty filter, then the image) when nothing
 * runs, else reloads from the lists or swaps the image in: the verbs'
 * own paths, their output as they make it. 0 or -errno (said).
 */
int bw_watch_apply(struct bw_args *a);

/* What a rebuild reports in its JSON document, for the log line. */
struct bw_watch_outcome {
	__u64 generation, entries, bytes;
};

/* From the document doc (NULL or not JSON: all zero). */
void bw_watch_outcome_read(const char *doc, struct bw_watch_outcome *out);

#endif /* __BW_WATCH_APPLY_H */
