/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The CLI's adds ('bloomwall add', with or without --timeout), prefixes
 * and names, a watch keeps as live entries (live.h): read from a filter's records, set in a
 * live set, taken out of it when the records no longer hold them (a
 * remove, marked in place or through a swap; a new timeout) or when they
 * end.
 */
#ifndef __BW_DAEMON_LIVE_REC_H
#define __BW_DAEMON_LIVE_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/live.h"
#include "lists/entry.h"
#include "lists/list.h"

/*
 * The prefix adds taken into a set, each with the expiry it was taken
 * with. The set's names are all adopted ones (no other source adds
 * names): they are synced against the records directly.
 */
struct bw_adopted {
	struct bw_entries e; /* prefixes, indexed */
};

/* An adopted entry's expiry while it is being taken out (none is). */
#define BW_ADOPTED_DROPPED ((__u64)-1)

void bw_adopted_free(struct bw_adopted *a);

/*
 * Makes the adds a set holds from mem's records (a filter of nblocks)
 * those of its records that do not end by now: each new one added to set
 * (its keys set in target, NULL: none), each gone one deleted (from
 * target). strict: an add the set's layout cannot hold fails it (-ENOENT,
 * -E2BIG: said, naming it), else it is passed over. The records' next
 * expiry in *next (0: none). 0 or -errno.
 */
int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next);

/* Drops those the set no longer holds (ended there). */
void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set);

#endif /* __BW_DAEMON_LIVE_REC_H */
