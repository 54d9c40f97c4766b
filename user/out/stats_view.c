// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * stats's counters, rendered (stats_view.h).
 */
#include <time.h>

#include "base/output.h"
#include "kernel/stats.h"
#include "out/stats_view.h"
#include "out/status_text.h"

/* "    label    %'llu", label the JSON key too. */
static void kv_u64(const char *label, unsigned long long v)
{
	bw_status_kv_u64(label, label, v);
}

void bw_stats_out_log(long rate, const struct bw_log_stats *ls)
{
	size_t i;

	bw_out_text("  drop log (rate %ld events/s per CPU%s)\n",
		    rate > 0 ? rate : 0, rate > 0 ? "" : ": off");
	bw_out_open_object("log");
	bw_out_int("rate", NULL, rate > 0 ? rate : 0);
	for (i = 0; i < bw_log_stats_nfields; i++)
		kv_u64(bw_log_stats_fields[i].name,
		       *(const __u64 *)((const char *)ls +
					bw_log_stats_fields[i].off));
	bw_out_close_object();
}

void bw_stats_out_counters(const char *iface, const struct bw_stats *s)
{
	size_t i;

	bw_out_text("bloomwall on %s: counters (summed over CPUs)\n", iface);
	bw_out_open_object("counters");
	kv_u64("packets", bw_stats_packets(s));
	for (i = 0; i < bw_stats_nfields; i++)
		kv_u64(bw_stats_fields[i].name,
		       bw_stats_get(s, &bw_stats_fields[i]));
	bw_out_close_object();
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

void bw_stats_out_rates(const char *iface, const struct bw_stats *s,
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
