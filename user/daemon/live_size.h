/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Sizing the watch's rebuilds for its live entries (filter/live_room.h):
 * the room a rebuild sizes for (every live entry, and the adds refused for
 * want of a target length or for too many keys), and when the live
 * entries have outgrown the running filter so that a rebuild with more
 * room is due:
 * - an add refused: kept pending, counted, and one rebuild asked for
 *   BW_WLIVE_REFUSED_SETTLE seconds after the last such refusal; one
 *   refused again after a rebuild that went in sized for it is counted
 *   only (never retried in a loop);
 * - the live keys of a region past what the watch's own build sized it
 *   for (BW_REC_SIZED), with a sixteenth more (at least BW_WSIZE_SLACK
 *   keys) of slack: one rebuild, and another for the same filter only
 *   once the live keys doubled; never two within BW_WLIVE_RETRY seconds;
 * - any running filter, the watch's or not (not an image's), past its
 *   target false-positive rate by the model with its live keys
 *   (filter/rate.h): a rebuild, at most one in BW_WSIZE_RETRY seconds;
 * - an add that would take it past BW_WSIZE_RATE_LIMIT times its target:
 *   not set in place but answered busy (asked again by the client), a
 *   rebuild asked for at once, and its entries kept to size it for
 *   (until a rebuild of the watch's own ends, or they go in); on an
 *   image's filter, which no rebuild of the watch grows, one past its
 *   target is not taken in place (the CLI's add refuses it, and says
 *   why).
 */
#ifndef __BW_DAEMON_LIVE_SIZE_H
#define __BW_DAEMON_LIVE_SIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "filter/live.h"
#include "filter/live_room.h"
#include "kernel/filter_map.h"
#include "lists/entry.h"

/* Seconds after the last refused add before the rebuild for them. */
#define BW_WLIVE_REFUSED_SETTLE 1.0
/* Most refused adds kept for the next rebuild; past it only counted. */
#define BW_WLIVE_PENDING_MAX 65536

/* Live keys a region takes past its room before a rebuild for room. */
#define BW_WSIZE_SLACK 64

/* Seconds between the rebuilds for room (as BW_WLIVE_RETRY). */
#define BW_WSIZE_RETRY 10

/* Times its target rate that no add in place takes a filter past. */
#define BW_WSIZE_RATE_LIMIT 2.0

/* Lives in the watch's live entries (live.h). */
struct bw_wsize {
	bool host_targets;	/* a decision source: /32 and /128 targets */
	struct bw_live pending; /* refused adds, for the next rebuild */
	struct bw_live staged;	/* those the rebuild under way sizes for */
	struct bw_live tried;	/* refused after a rebuild sized for them */
	struct bw_live busy;	/* adds answered busy past the rate limit */
	__u64 busy_names[BW_NAME_REGIONS]; /* names among them, a count */
	char full_why[192]; /* the rebuild bw_wsize_full's caller asks for */
	__u32 image_map;    /* the filter image is of */
	bool image;	    /* it is an image's (BW_REC_IMAGE) */
	__u64 refused;	    /* adds refused */
	double refused_at;  /* the last new refusal, CLOCK_MONOTONIC */
	double grow_at;	    /* no rebuild for room before, CLOCK_MONOTONIC */
	__u32 grow_map;	    /* the filter the last one was asked for */
	size_t grow_keys;   /* live keys then */
	__u32 sized_map;    /* the filter sized[] is of */
	bool have_sized;
	__u32 sized[BW_REGIONS]; /* its BW_REC_SIZED */
};

void bw_wsize_init(struct bw_wsize *z);
void bw_wsize_free(struct bw_wsize *z);

/* An add the running filter refused (-ENOENT or -E2BIG): kept, counted. */
void bw_wsize_refused(struct bw_wsize *z, const struct bw_prefix *p);

/* An add that went in: no longer pending or refused. */
void bw_wsize_placed(struct bw_wsize *z, const struct bw_prefix *p);

/*
 * Whether the entries of s (had: those live already; subdomains: names
 * go as subtrees) would take the running filter (map, with set's live
 * keys) past BW_WSIZE_RATE_LIMIT times its target rate: 0 when not; 1
 * when they would: they are kept to size the next rebuild for, and why
 * says which part and how far (the rebuild's trigger); -EXDEV when the
 * filter is an image's and they would take it past its target (the
 * watch's rebuild loads it again as it was built: no room for them).
 */
int bw_wsize_full(struct bw_wsize *z, const struct bw_live *set,
		  const struct bw_filter_map *map, const struct bw_entries *s,
		  const bool *had, bool subdomains, char *why, size_t len);

/* Refused adds the next rebuild sizes for. */
size_t bw_wsize_pending(const struct bw_wsize *z);

/* What the next rebuild sizes for besides the lists: set's entries too. */
void bw_wsize_room(const struct bw_wsize *z, const struct bw_live *set,
		   struct bw_live_room *r);

/* The rebuild's fork: the pending refused adds are what it sizes for. */
void bw_wsize_begin(struct bw_wsize *z);

/* Its end; own: the rebuild went in (the filter is the watch's own). */
void bw_wsize_end(struct bw_wsize *z, bool own);

/*
 * Whether a rebuild for room is due now (now: CLOCK_MONOTONIC seconds):
 * set is the live set on map, own whether map is the watch's own last
 * rebuild; why says why (the log line's trigger).
 */
bool bw_wsize_outgrown(struct bw_wsize *z, const struct bw_live *set,
		       const struct bw_filter_map *map, bool own, double now,
		       char *why, size_t len);

#endif /* __BW_DAEMON_LIVE_SIZE_H */
