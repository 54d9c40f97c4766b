/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The inside of the watch's live entries (live.h), for the files of the
 * module alone (daemon/live*.c; make check-layers says so): the state,
 * and the calls they make of each other.
 */
#ifndef __BW_DAEMON_LIVE_PRIV_H
#define __BW_DAEMON_LIVE_PRIV_H

#include <stdbool.h>
#include <linux/types.h>

#include "daemon/live.h"
#include "daemon/live_rec.h"
#include "daemon/live_size.h"
#include "filter/live.h"
#include "filter/records.h"
#include "kernel/filter_map.h"
#include "lists/entry.h"

/* What the running filter is to the watch; bw_wlive_enter() changes it. */
enum bw_wlive_run {
	BW_WLIVE_NONE,	  /* no filter open: none runs, or none looked at */
	BW_WLIVE_OWN,	  /* the watch's own rebuild: blocks as built, bases */
	BW_WLIVE_TAKEN,	  /* any other filter, the live keys ORed into it */
	BW_WLIVE_STAGING, /* a rebuild's fork runs; its child stages */
};

struct bw_wlive {
	struct bw_live set;
	const char *iface;
	enum bw_wlive_run run;
	enum bw_wlive_run resume; /* STAGING: the state the fork began in */
	struct bw_filter_map map; /* the running filter, mapped read-write */
	__u32 prog_id;		  /* the program it was found from; 0: none */
	__u32 marks;		  /* its records' marks, as last synced */
	int memfd;		  /* a rebuild's bases, -1: none */
	/* The rebuild asked for (true bases, adds in or out): why, NULL:
	 * none; asked again at retry_at (Unix seconds) while none went in. */
	const char *want;
	__u64 retry_at;
	bool changed; /* since the state was last published */
	/*
	 * An add has no target length to be kept live in (or verify mode):
	 * the watch's rebuilds build the adds in, and rebuild at
	 * base_expiry, the next end, while the records hold one.
	 */
	bool adds_in_base;
	__u64 base_expiry;
	struct bw_adopted adopted; /* the CLI's adds kept live (live_rec.h) */
	__u64 looked_at; /* when an add last looked for a filter, Unix s */
	__u64 adds, deletes, expired, takeovers;
	struct bw_wsize size; /* rebuilds sized for them (live_size.h) */
};

/*
 * The one place l->run changes (the transitions are listed there). m:
 * the filter map that runs now, its program prog, owned from here on;
 * NULL: the map held runs still.
 */
void bw_wlive_enter(struct bw_wlive *l, enum bw_wlive_run to,
		    struct bw_filter_map *m, __u32 prog);

/*
 * The adds of m's records as live entries (their keys set in target,
 * NULL: none), strict as bw_adopted_sync; 0 or -errno.
 */
int bw_wlive_adopt(struct bw_wlive *l, const struct bw_filter_map *m,
		   void *target, bool strict);

/*
 * A filter not of this watch's making runs (m, its program prog): every
 * live key set in it, deletes kept back until a rebuild gives true bases.
 */
void bw_wlive_take_over(struct bw_wlive *l, struct bw_filter_map *m,
			__u32 prog);

/*
 * The running filter's records read again (a remove marked adds taken
 * out): the adds kept live that they no longer hold go out in place;
 * where the adds are built in, a rebuild is asked for. 1 (in place), 0
 * (a rebuild takes them out), -ENOENT (no filter runs), -EINVAL (its
 * records cannot be read). r (NULL: not wanted) gets the records read,
 * the marked entries in r->gone (bw_records_free() it whatever the
 * return).
 */
int bw_wlive_sync(struct bw_wlive *l, struct bw_records *r);

/* A rebuild asked for at once, not at the retry time of one before. */
void bw_wlive_want_now(struct bw_wlive *l, const char *why);

/*
 * Makes sure the map that runs is the one open: 0, or -ENOENT (none), or
 * -EAGAIN while a rebuild's fork runs and another program is on the hook
 * (its end, fork_end, takes that over: ask again).
 */
int bw_wlive_sync_map(struct bw_wlive *l);

/*
 * Whether the running map's blocks hold none of the adds: this watch's
 * own build, with them left out, and no other command's bits since (a
 * rebuild's fork running: as the running one was when it began).
 */
bool bw_wlive_adds_out_of_blocks(const struct bw_wlive *l);

/* A verify-mode filter: its adds are built in (builder.c's adds_live). */
static inline bool bw_wlive_verify(const void *mem)
{
	return ((const struct bw_hdr *)mem)->flags & BW_F_VERIFY;
}

#endif /* __BW_DAEMON_LIVE_PRIV_H */
