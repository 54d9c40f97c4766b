/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The reload operation: build the new filter from lists (build.h) or take
 * an image's (image_load.h), stage, swap it in on the interface (swap.h)
 * and report. reload, load, remove and watch use it.
 */
#ifndef __BW_RELOAD_H
#define __BW_RELOAD_H

#include "filter/live_room.h"
#include <stdbool.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "kernel/filter_map.h"
#include "lists/entry.h"
#include "ops/build.h"

struct bw_image;
struct bw_running;

struct bw_reload_req {
	const char *iface;
	int ifindex;
	const struct bw_build_args *args;
	const char *const *lists;
	int nlists;
	/* Kept adds to leave out (bloomwall remove), or NULL. */
	const struct bw_entries *remove;
	/*
	 * Entries to keep from now on (bloomwall add), or NULL, each until
	 * its expiry whether it was kept already or not, as add --timeout
	 * sets it (records_edit.h).
	 */
	const struct bw_entries *add;
	/* The owner of add's entries, or whose claims remove takes out. */
	const char *owner;
	/* bloomwall load: this image's filter instead of the lists' */
	const struct bw_image *image;
	const char *image_path;
	/* An image older than the running one's is taken (image_serial.h). */
	bool allow_rollback;
	/*
	 * --egress: the new filter's TC egress program goes on IFACE's egress
	 * hook too when it runs none (one that runs is always replaced).
	 */
	bool egress;
	/*
	 * Provenance: how the new filter came to be (enum bw_origin; 0:
	 * BW_ORIGIN_RELOAD, BW_ORIGIN_LOAD for an image; bloomwall watch says
	 * BW_ORIGIN_WATCH). A remove or an add (remove, add) is recorded
	 * as a change of the running filter instead (BW_REC_CHANGE).
	 */
	__u8 origin;
	/*
	 * Called under the lock once the new filter is built, before it is
	 * swapped in (may be NULL): non-zero (-errno) stops the reload there,
	 * nothing changed. watch checks that no list changed while it was
	 * read, and that the lists did not shrink too far.
	 */
	int (*before_swap)(void *ctx, const struct bw_build_figures *f);
	/*
	 * Called right after before_swap, with the new filter's map (its
	 * blocks as built, mapped read-write; m->nblocks, m->id), which it
	 * may change before the swap (watch sets its live entries there, and
	 * keeps the blocks they land in as built); may be NULL. Non-zero
	 * (-errno) stops the reload, as before_swap's does.
	 */
	int (*before_swap_filter)(void *ctx, const struct bw_filter_map *m);
	/*
	 * Kept adds stay in the records but out of the blocks
	 * (bw_build_req.adds_live, and an image's): the hook sets them
	 * (watch).
	 */
	bool adds_live;
	/* Live entries to size the new filter for (filter/live_room.h). */
	const struct bw_live_room *room;
	void *ctx;
	/*
	 * What the caller opened of what runs (bw_running_open() with
	 * BW_RUN_OLD_OK), to build on instead of opening it again, or NULL.
	 * The reload reads the hook again under the lock, and may reopen it
	 * there; the caller closes it.
	 */
	struct bw_running *running;
};

/* A reload builds at most twice: again when an add raced the first build. */
#define BW_RELOAD_BUILDS 2

/*
 * What a reload did, stage by stage, whether or not it went through: the
 * verbs print it (out/op_report.h), watch logs it.
 */
struct bw_reload_result {
	struct bw_build_figures build[BW_RELOAD_BUILDS]; /* each build's */
	int nbuilds;
	bool swapped;	     /* the new filter runs: */
	__u64 generation;    /* numbered so */
	__u64 replaces;	     /* in place of this one (0: one unreadable) */
	bool verify;	     /* with its exact trie */
	bool allow_replaced; /* --allow, or the image's, replaced the allowlist: */
	__u64 allow_entries, allow_added, allow_removed;
	size_t kept;	 /* entries added at run time built in */
	size_t left_out; /* and those left out */
	size_t expired;	 /* and those past their expiry, dropped */
	double seconds;	 /* the whole reload took */
};

/*
 * Rebuilds iface's filter from the lists and the entries the running
 * filter keeps from 'bloomwall add' (none with args->forget_added; less
 * r->remove), with the running filter's settings unless args change them,
 * and swaps it in under the lock; the kept adds go into the new filter's
 * records. If the running filter changed while the build ran (an add),
 * builds again under the lock. A failure at any step leaves the running
 * filter as it was, and says so. res says what was done, whatever the
 * return; nothing is printed on stdout.
 */
int bw_reload(const struct bw_reload_req *r, struct bw_reload_result *res);

#endif /* __BW_RELOAD_H */
