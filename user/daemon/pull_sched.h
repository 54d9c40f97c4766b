/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * When the watch pulls its image next (watch --url): every interval, each
 * wait drawn uniformly from interval +- BW_PULL_JITTER of it; after a
 * failed pull the next comes after an interval too, and the wait doubles
 * with each further failure in a row, up to 2^BW_PULL_BACKOFF_MAX times
 * the interval, drawn the same way.
 *
 * Why +-10 % and not a wait added on top: the mean period stays the
 * interval (a server sees hosts/interval requests a second, whatever the
 * draw), a change reaches every host within 1.1 intervals, and hosts that
 * happen to start or fail together drift apart by a tenth of an interval
 * each round instead of arriving together for ever. A watch that starts
 * with a filter already running (a restart of the service, a package
 * upgrade across a fleet) waits a draw from [0, interval) first: hosts
 * restarted together spread over a whole interval at once. One that
 * starts with nothing running pulls at once: it has nothing to keep.
 */
#ifndef __BW_PULL_SCHED_H
#define __BW_PULL_SCHED_H

#include <stdbool.h>

/* The interval without --interval, seconds. */
#define BW_PULL_INTERVAL 60.0
/* The wait is drawn from interval * [1 - J, 1 + J]. */
#define BW_PULL_JITTER 0.1
/* Failures in a row double the wait up to 2^this times the interval. */
#define BW_PULL_BACKOFF_MAX 4

/* A uniform draw from [0, 1) (getrandom; the clock if that fails). */
double bw_pull_uniform(void);

/*
 * Seconds to wait before the next pull, after fails failed pulls in a row
 * (0 after a pull that worked), with u a draw from [0, 1).
 */
double bw_pull_delay(double interval, unsigned int fails, double u);

/* Seconds before the first pull: 0, or u * interval when a filter runs. */
double bw_pull_first_delay(double interval, bool running, double u);

#endif /* __BW_PULL_SCHED_H */
