/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's log: one line a rebuild (one JSON record with --json),
 * saying what runs after it and why.
 */
#ifndef __BW_WATCH_LOG_H
#define __BW_WATCH_LOG_H

#include <stdbool.h>
#include <linux/types.h>

#include "daemon/watch_apply.h"

struct bw_watch_rebuilt {
	const char *iface;
	int err; /* the rebuild's: 0, -BW_WATCH_ETORN, -BW_WATCH_ESHRUNK, ... */
	const char *trigger;
	const struct bw_watch_outcome *o;
	double seconds;
	__u64 old_gen; /* after a failure: what runs (0: none, unreadable) */
	const char *renamed; /* the interface's new name, or NULL */
	bool ends_watch;     /* a failed start with nothing running */
};

/*
 * "IFACE: reload ok: generation N, ... (trigger)", "reload FAILED ...",
 * "reload KEPT OUT ...", "reload deferred ..."; with json one record
 * {iface, result, generation, entries, bytes, seconds, trigger}.
 */
void bw_watch_log_rebuild(const struct bw_watch_rebuilt *r, bool json);

#endif /* __BW_WATCH_LOG_H */
