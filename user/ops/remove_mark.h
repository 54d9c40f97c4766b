/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * remove with a watch running: the entries are taken out of the running
 * filter's records in place (filter/records_gone.h), under the lock every
 * writer takes, with no rebuild and no swap; the watch, which keeps the
 * added entries live (daemon/live.h), then takes their bits out in place.
 * A remove killed between two entries leaves each in or out, whole, and
 * the watch finds the marks on its own within a second.
 */
#ifndef __BW_REMOVE_MARK_H
#define __BW_REMOVE_MARK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/entry.h"

struct bw_mark_req {
	const char *iface;
	int ifindex;
	const struct bw_entries *entries; /* prefixes and names (checked) */
};

struct bw_mark_result {
	bool *found;	  /* one an entry, the caller's: entry i was an add */
	size_t marked;	  /* how many: each now marked taken out */
	__u64 generation; /* of the running filter */
	bool watch_gone;  /* some marked, and no watch runs to find them */
};

/*
 * Takes the lock, marks each of rq's entries the running filter's
 * records hold as an add, releases it; then, when it marked some, looks
 * whether a watch still runs. 0 (also when none was held: marked 0), or
 * -errno (said; nothing marked after the first error).
 */
int bw_remove_mark(const struct bw_mark_req *rq, struct bw_mark_result *res);

#endif /* __BW_REMOVE_MARK_H */
