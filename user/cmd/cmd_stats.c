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
#include "kernel/running.h"
#include "kernel/stats.h"
#include "out/status_text.h"
#include "ops/status.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* The running program's counters: 0, or -ENOENT (said) if none runs. */
static int read_counters(const struct bw_args *a, struct bw_stats *s)
{
	struct bw_running r;
	int err;

	err = bw_running_open(a->iface, a->ifindex, BW_RUN_OLD_OK, &r);
	if (err)
		return err;
	err = bw_stats_read(r.maps.stats, s);
	if (err)
		pr_warn("%s: cannot read the counters: %s\n", a->iface,
			bw_errno_hint(err));
	bw_running_close(&r);
	return err;
}

/* "    label    %'llu", label the JSON key too. */
static void kv_u64(const char *label, unsigned long long v)
{
	bw_status_kv_u64(label, label, v);
}

/*
 * The drop log's rate and counters, when the program has a log: -ENOENT
 * when it has none (from before the drop log), else 0 or -errno.
 */
static int read_log(const struct bw_args *a, long *rate,
		    struct bw_log_stats *ls)
{
	struct bw_running r;
	int err;

	err = bw_running_open(a->iface, a->ifindex,
			      BW_RUN_OLD_OK | BW_RUN_QUIET, &r);
	if (!err && r.maps.log_stats < 0)
		err = -ENOENT;
	if (!err)
		err = bw_log_stats_read(r.maps.log_stats, ls);
	*rate = r.maps.log_rate;
	bw_running_close(&r);
	return err;
}

/* "log": {"rate", "logged", "lost_rate", "lost_ring"}. */
static void show_log(const struct bw_args *a)
{
	struct bw_log_stats ls;
	long rate;
	size_t i;

	if (read_log(a, &rate, &ls))
		return;
	bw_out_text("  drop log (rate %ld events/s per CPU%s)\n",
		    rate > 0 ? rate : 0, rate > 0 ? "" : ": off");
	bw_out_open_object("log");
	bw_out_int("rate", NULL, rate > 0 ? rate : 0);
	for (i = 0; i < bw_log_stats_nfields; i++)
		kv_u64(bw_log_stats_fields[i].name,
		       *(const __u64 *)((const char *)&ls +
					bw_log_stats_fields[i].off));
	bw_out_close_object();
}

static int show_counters(const struct bw_args *a)
{
	struct bw_stats s;
	size_t i;
	int err;

	err = read_counters(a, &s);
	if (err)
		return err;
	bw_out_text("bloomwall on %s: counters (summed over CPUs)\n", a->iface);
	bw_out_open_object("counters");
	kv_u64("packets", bw_stats_packets(&s));
	for (i = 0; i < bw_stats_nfields; i++)
		kv_u64(bw_stats_fields[i].name,
		       bw_stats_get(&s, &bw_stats_fields[i]));
	bw_out_close_object();
	show_log(a);
	return 0;
}

static int show_prometheus(const struct bw_args *a)
{
	struct bw_status_view v;

	bw_status_gather(&v, a->iface);
	if (v.prog_err)
		return bw_explain_not_attached(a->iface);
	return bw_metrics_write(stdout, &v, NULL);
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double rate(__u64 now_v, __u64 then, double secs)
{
	/* A detach and attach in between starts the counters again. */
	return now_v >= then ? (now_v - then) / secs : 0.0;
}

static __u64 real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * One line of rates: text a table row (after the header when header),
 * JSON a record {"iface", "time", "seconds", "rates": {"packets",
 * <counters>}}.
 */
static void out_rates(const char *iface, const struct bw_stats *s,
		      const struct bw_stats *p, double secs, bool header)
{
	size_t i;

	bw_out_record_begin();
	if (header) {
		bw_out_text("%12s", "packets/s");
		for (i = 0; i < bw_stats_nfields; i++)
			bw_out_text(" %12s", bw_stats_fields[i].name);
		bw_out_text("\n");
	}
	bw_out_string("iface", NULL, iface);
	bw_out_epoch("time", NULL, real_ns());
	bw_out_double("seconds", NULL, secs);
	bw_out_open_object("rates");
	bw_out_double("packets", "%12.1f",
		      rate(bw_stats_packets(s), bw_stats_packets(p), secs));
	for (i = 0; i < bw_stats_nfields; i++)
		bw_out_double(bw_stats_fields[i].name, " %12.1f",
			      rate(bw_stats_get(s, &bw_stats_fields[i]),
				   bw_stats_get(p, &bw_stats_fields[i]), secs));
	bw_out_close_object();
	bw_out_text("\n");
	/* A line that could not be written ends nothing: SIGPIPE does. */
	bw_out_record_end();
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
	err = read_counters(a, &prev);
	t0 = next = now(CLOCK_MONOTONIC);
	while (!err) {
		next += a->ops.interval;
		if (!sleep_until(next))
			break;
		err = read_counters(a, &cur);
		t1 = now(CLOCK_MONOTONIC);
		if (err)
			break;
		out_rates(a->iface, &cur, &prev, t1 - t0, n % 20 == 0);
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
	{ "prometheus", BW_OPT_PROMETHEUS, NULL,
	  "write Prometheus' text exposition: counters and filter gauges" },
	{ "interval", BW_OPT_INTERVAL, "SECS",
	  "print per-second rates every SECS until interrupted" },
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
