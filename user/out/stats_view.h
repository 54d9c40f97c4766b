/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What stats prints of the counters ops/status.h reads: their sums, the
 * drop log's, and a line of per-second rates, as text or JSON.
 */
#ifndef __BW_STATS_VIEW_H
#define __BW_STATS_VIEW_H

#include <stdbool.h>

#include "bloomwall.h"

/* "bloomwall on IFACE: counters (summed over CPUs)" and a row each. */
void bw_stats_out_counters(const char *iface, const struct bw_stats *s);

/* "log": {"rate", "logged", "lost_rate", "lost_ring"}. */
void bw_stats_out_log(long rate, const struct bw_log_stats *ls);

/*
 * One line of rates from p to s over secs: text a table row (after the
 * header when header), JSON a record {"iface", "time", "seconds",
 * "rates": {"packets", <counters>}}.
 */
void bw_stats_out_rates(const char *iface, const struct bw_stats *s,
			const struct bw_stats *p, double secs, bool header);

#endif /* __BW_STATS_VIEW_H */
