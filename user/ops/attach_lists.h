/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The attach operation: a first filter built from lists, put on an
 * interface that runs no bloomwall program. attach and watch use it.
 */
#ifndef __BW_ATTACH_LISTS_H
#define __BW_ATTACH_LISTS_H

#include "filter/live_room.h"
#include <stdbool.h>
#include <xdp/libxdp.h>

#include "kernel/attach.h"
#include "ops/build.h"

struct bw_attach_req {
	const char *iface;
	int ifindex;
	enum xdp_attach_mode mode;
	bool own_link; /* --link: a bpf_link of bloomwall's own */
	bool egress;   /* --egress: the TC egress program too */
	const struct bw_build_args *args;
	const char *const *lists;
	int nlists;
	__u8 origin; /* enum bw_origin; 0: BW_ORIGIN_ATTACH */
	/* As reload's (reload.h): before the attach, under the lock. */
	int (*before_swap)(void *ctx, const struct bw_build_figures *f);
	int (*before_swap_filter)(void *ctx, const struct bw_filter_map *m);
	/* Live entries to size the new filter for (filter/live_room.h). */
	const struct bw_live_room *room;
	void *ctx;
};

/* What an attach did, stage by stage, whether or not it went through. */
struct bw_attach_result {
	bool built; /* the lists were built: */
	struct bw_build_figures build;
	bool attached; /* and the filter runs: */
	struct bw_attach_figures attach;
};

/*
 * Refuses an interface that bloomwall or another program holds (removing
 * pins an earlier bloomwall left, under the lock); builds the lists before
 * the lock is taken, then attaches and pins under it. A failure leaves
 * nothing attached (said). res says what was done; nothing is printed on
 * stdout.
 */
int bw_attach_lists(const struct bw_attach_req *rq,
		    struct bw_attach_result *res);

#endif /* __BW_ATTACH_LISTS_H */
