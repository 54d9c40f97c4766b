/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The running state of an interface, for the verbs that read it: the
 * pinned maps, the filter the program runs with (found through the
 * filter_id registry), and what to tell an operator when they are missing.
 *
 * int functions return 0 or -errno and say what is missing and what to do,
 * unless they say otherwise.
 */
#ifndef __BW_RUNNING_H
#define __BW_RUNNING_H

#include <stdbool.h>

#include "filter_map.h"
#include "prog.h"

/* Says why iface has no bloomwall pins and what to do; returns -ENOENT. */
int bw_explain_not_attached(const char *iface);

/* Opens a pinned map of iface (allow, exact, stats, filter_id): an fd. */
int bw_open_pinned_map(const char *iface, const char *name);

/* Opens every pinned map a program shares; closes all on failure. */
int bw_open_maps(const char *iface, struct bw_maps *mp);

/*
 * Opens the filter whose id is in slot 0 of the registry map and maps it
 * (read-only unless writable). -ENOENT if there is none. Prints nothing.
 */
int bw_filter_open_current(int registry_fd, bool writable,
			   struct bw_filter_map *m);

/* Opens and maps iface's running filter (writable or not). */
int bw_open_running(const char *iface, bool writable, struct bw_filter_map *m);

/*
 * bw_open_running, read-only, but -EINVAL quietly when the filter is there
 * and not one this bloomwall can read (corrupt, or another format version),
 * so that a reload can replace it.
 */
int bw_open_running_or_invalid(const char *iface, struct bw_filter_map *m);

#endif /* __BW_RUNNING_H */
