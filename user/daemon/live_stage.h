/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The rebuild's hand-over of the watch's live entries (live.h), the one
 * path from a rebuild to the running filter. fork_begin: in the parent
 * before the fork (0 or -errno: then the rebuild must not run; else
 * fork_end must follow, fork or not). stage: in the child, as the
 * reload's or attach's before_swap_filter hook, ctx the bw_wlive: m is the
 * new filter as built; the blocks live keys land in are saved as built
 * (the bases) into a memfd and every live key set in m, before the swap.
 * fork_end: in the parent once the child ended: the filter it staged made
 * the watch's own, bases from the memfd, what changed since the fork
 * written in place; any other filter that runs then is taken over.
 */
#ifndef __BW_DAEMON_LIVE_STAGE_H
#define __BW_DAEMON_LIVE_STAGE_H

#include "daemon/live.h"
#include "kernel/filter_map.h"

int bw_wlive_fork_begin(struct bw_wlive *l);
int bw_wlive_stage(void *ctx, const struct bw_filter_map *m);
void bw_wlive_fork_end(struct bw_wlive *l);

#endif /* __BW_DAEMON_LIVE_STAGE_H */
