/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A watch's list sources given by URL (net/src_fetch.h) as the operator
 * sees them: each source's figures, as the watch's state section
 * "sources" (JSON), as status lines, and as metrics (bloomwall_source_*,
 * labelled with the URL): when the source last answered (a new copy or a
 * 304), its age, entries and bytes, the last HTTP status, the fetches by
 * result and the failures by reason, and whether it is stale (no answer
 * for longer than --max-age): the metric an alert fires on.
 */
#ifndef __BW_SRC_OUT_H
#define __BW_SRC_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "net/src_fetch.h"

struct bw_src_figures {
	const char *url;
	const char *path;	    /* its copy */
	__u64 entries, bytes;	    /* the copy's */
	__s64 fetched;		    /* when the copy came; 0: no copy */
	__s64 checked;		    /* the last success (new copy or 304) */
	long status;		    /* the last HTTP status; 0: none */
	__u64 results[BW_SRC_NWHY]; /* fetches by how they ended */
	__u64 consecutive;	    /* failures in a row */
	int last;		    /* enum bw_src_why, -1: none yet */
	char reason[512];	    /* the last failure's */
	__s64 next;		    /* the next fetch, Unix s */
	double refresh;		    /* seconds: its interval */
	double max_age;		    /* seconds: older is stale */
	char pack[8];
};

/* Whether the source has not answered for longer than max_age. */
bool bw_src_stale(const struct bw_src_figures *s, __s64 now);

/* One source as a JSON object (an item of the state's "sources"). */
struct json_object *bw_src_figures_json(const struct bw_src_figures *s);

/* The sources' samples for iface. */
void bw_src_metrics_write(FILE *f, const char *iface,
			  const struct bw_src_figures *s, int n);

/* The state's "sources" section as status lines (err: the state's). */
void bw_src_status_out(struct json_object *state, int err);

#endif /* __BW_SRC_OUT_H */
