/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's figures of its live entries and of the running filter's
 * rate (watch.h): what the metrics file counts, what asks a rebuild.
 */
#ifndef __BW_WATCH_LIVE_H
#define __BW_WATCH_LIVE_H

#include "daemon/live.h"
#include "daemon/watch_cs.h"
#include "out/metrics.h"
#include "out/status_view.h"

/* The live entries' and the CrowdSec source's counts into c. */
void bw_watch_live_counts(struct bw_watch_counts *c, const struct bw_wlive *l,
			  struct bw_watch_cs *cs);

/* The family whose estimated rate is past twice the target, or -1. */
int bw_watch_over_target(const struct bw_status_view *v);

#endif /* __BW_WATCH_LIVE_H */
