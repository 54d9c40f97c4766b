// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall stats IFACE [--json] [--prometheus] [--interval SECS]: the
 * data path's counters summed over CPUs; Prometheus' text exposition of
 * them and of the filter (metrics.h); or, with an interval, per-second
 * rates until interrupted, a line each (a JSON object a line with --json).
 * Reads only: no lock.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_stats.h"
#include "base/log.h"
#include "out/metrics.h"
#include "base/output.h"
#include "ops/status.h"
#include "out/stats_view.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int show_counters(const struct bw_args *a)
{
	struct bw_log_stats ls;
	struct bw_stats s;
	long rate;
	int err;

	err = bw_status_counters(a->iface, a->ifindex, &s);
	if (err)
		return err;
	bw_stats_out_counters(a->iface, &s);
	if (!bw_status_log(a->iface, a->ifindex, &rate, &ls))
		bw_stats_out_log(rate, &ls);
	return 0;
}

static int show_prometheus(const struct bw_args *a)
{
	struct bw_status_view v;

	bw_status_gather(&v, a->iface);
	if (v.prog_err)
		return bw_status_not_attached(a->iface);
	return bw_metrics_write(stdout, &v, NULL);
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps to the absolute monotonic time t; false when a signal came. */
static bool sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t,
			       .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	return !clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) &&
	       !stop;
}

static int show_rates(const struct bw_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bw_stats prev, cur;
	double t0, t1, next;
	int n = 0, err;

	/* No SA_RESTART: the signal ends the sleep. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = bw_status_counters(a->iface, a->ifindex, &prev);
	t0 = next = now(CLOCK_MONOTONIC);
	while (!err) {
		next += a->ops.interval;
		if (!sleep_until(next))
			break;
		err = bw_status_counters(a->iface, a->ifindex, &cur);
		t1 = now(CLOCK_MONOTONIC);
		if (err)
			break;
		bw_stats_out_rates(a->iface, &cur, &prev, t1 - t0, n % 20 == 0);
		prev = cur;
		t0 = t1;
		n++;
	}
	return err;
}

static int do_stats(struct bw_args *a)
{
	bool json = bw_out_is_json();
	int err;

	bw_out_string("iface", NULL, a->iface);
	if (a->ops.prometheus && (json || a->ops.interval > 0)) {
		pr_warn("bloomwall stats: --prometheus writes the counters themselves; it goes with neither --json nor --interval\n");
		return -BW_EUSAGE;
	}
	err = bw_check_privileges("stats");
	if (err)
		return err;
	if (a->ops.prometheus)
		return show_prometheus(a);
	if (a->ops.interval > 0) {
		/* Lines as they come: not one document at the end. */
		bw_out_stream_begin();
		return show_rates(a);
	}
	return show_counters(a);
}

static const struct bw_opt stats_only_opts[] = {
	BW_OPT("prometheus", NULL, ops.prometheus, bw_parse_flag,
	       "write Prometheus' text exposition: counters and filter gauges"),
	BW_OPT("interval", "SECS", ops.interval, bw_parse_seconds,
	       "print per-second rates every SECS until interrupted",
	       .min = 0.01),
	{ 0 },
};

static const struct bw_opt *const stats_opts[] = { stats_only_opts, NULL };

const struct bw_verb bw_verb_stats = {
	.name = "stats",
	.summary = "show the counters of IFACE (rates, or for Prometheus)",
	.details =
		"The data path's per-CPU counters, summed: packets, passed, dropped_v4,\n"
		"dropped_v6 and the parts of passed (not_ip, malformed, monitored, allowed,\n"
		"false_pos, no_filter), and the drop log's rate and counters (logged,\n"
		"lost_rate, lost_ring). --interval SECS prints their per-second rates every\n"
		"SECS until SIGINT or SIGTERM: a table, or with --json one object a line\n"
		"{\"iface\", \"time\", \"seconds\", \"rates\": {\"packets\", <counters>}}.\n"
		"--prometheus writes the text exposition format: the counter\n"
		"bloomwall_packets_total{iface,verdict,reason[,family]}, whose series add up\n"
		"to every packet (drops by reason address or dns), the drop log's\n"
		"bloomwall_log_events_total{iface,result} and bloomwall_log_rate, and gauges of the filter (generation, entries, sized\n"
		"entries and entries over them, added entries kept, bytes, target and\n"
		"estimated false-positive rates, per region fill, rate and entries).\n"
		"'bloomwall watch --metrics-file' keeps the same in a file for\n"
		"node_exporter's textfile collector.\n",
	.opts = stats_opts,
	.pos = {},
	.run = do_stats,
};
