/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Rebuilds the running filter from its recorded lists with these changes:
 * kept adds or names taken out (remove), names kept from now on (add of
 * names the filter has no region for). The lists and build options are
 * those the running filter records (not its seed); the rebuild goes
 * through reload's path (reload.h).
 */
#ifndef __BW_REBUILD_H
#define __BW_REBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/records.h"
#include "ops/reload.h"

struct bw_rebuild_req {
	const char *iface;
	int ifindex;
	/* Kept adds to leave out, or NULL. */
	const struct bw_entries *remove;
	/* Entries to keep from now on, each until its expiry, or NULL. */
	const struct bw_entries *add;
	const char *owner; /* add's owner, or whose claims remove takes */
	/*
	 * Room: the new filter is sized with room for every kept add and
	 * those of add (filter/live_room.h: twice them, or them and
	 * BW_ROOM_MIN keys more, where they land), so that the adds after
	 * it go in place at the target rate (an add that grows the filter).
	 * Refused for a filter loaded from an image: it is built elsewhere.
	 */
	bool room;
	/* Called once the rebuild is to go ahead, before it (may be NULL). */
	void (*before_reload)(void *ctx);
	void *ctx;
};

struct bw_rebuild_result {
	bool read;	       /* the running filter's records were read: */
	struct bw_records rec; /* them, as they were before (indexed) */
	__u64 generation;      /* and its generation */
	bool reloaded;	       /* the reload was tried (its error returned): */
	struct bw_reload_result reload; /* what it did */
};

/*
 * Reads the running filter's records into res; when none of what rq takes
 * out is kept there, -ENOENT with nothing rebuilt (said by the caller);
 * when its lists cannot be read again, or rq->room for an image's filter,
 * says why (-ENOENT, -EINVAL, -EPERM); else the reload. Free
 * res with bw_rebuild_result_free() whatever the return.
 */
int bw_rebuild(const struct bw_rebuild_req *rq, struct bw_rebuild_result *res);
void bw_rebuild_result_free(struct bw_rebuild_result *res);

#endif /* __BW_REBUILD_H */
