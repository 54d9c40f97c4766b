/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's rebuild step (watch.h): attach when nothing runs, else
 * reload from the lists or swap the image in, through the operations the
 * verbs use (ops/), whose results give the log line its figures.
 */
#ifndef __BW_WATCH_APPLY_H
#define __BW_WATCH_APPLY_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "ops/build.h"

/* What a watch keeps running, and how (bloomwall watch's options). */
struct bw_watch_cfg {
	const char *iface;
	const char *const *lists; /* the list files, or none with image */
	int nlists;
	const char *image; /* --image FILE */
	const struct bw_build_args *build;
	enum xdp_attach_mode mode; /* when it attaches */
	bool own_link;
	double interval; /* seconds between ticks; 0: BW_WATCH_TICK */
	double debounce; /* seconds without events before a rebuild */
	const char *metrics_file;
	bool detach_on_exit;
	bool json; /* one JSON record a rebuild */
};

/* What a rebuild did, for the log line. */
struct bw_watch_outcome {
	__u64 generation, entries, bytes;
	bool empty; /* built from lists that hold no entries */
};

/* Whether the interface ifindex runs bloomwall's program. */
bool bw_watch_attached(int ifindex);

/*
 * Attaches (with an image: an empty filter, then the image) when nothing
 * runs, else reloads from the lists or swaps the image in. Its own index
 * of the interface each time (a re-created interface has another). 0 or
 * -errno (said on stderr); o says what runs now.
 */
int bw_watch_apply(const struct bw_watch_cfg *c, struct bw_watch_outcome *o);

#endif /* __BW_WATCH_APPLY_H */
