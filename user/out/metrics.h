/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Metrics for monitoring systems: what status gathers of an interface
 * (ops/status.h), written in Prometheus' text exposition format, for
 * 'bloomwall stats --prometheus' and for the file 'watch --metrics-file'
 * keeps for node_exporter's textfile collector. No bpf() here: the
 * formatting works on a gathered view, so the unit tests feed it one.
 *
 * Conventional names and labels: one counter family,
 * bloomwall_packets_total{iface, verdict, reason[, family]}, whose series
 * add up to every packet the program saw; the drop log's counters,
 * bloomwall_log_events_total{iface, result}; gauges for the filter and per
 * region and the log's rate; watch's reload counts when a watch writes
 * the file.
 */
#ifndef __BW_METRICS_H
#define __BW_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "kernel/stats.h"
#include "out/cs_metrics.h"
#include "out/pull_out.h"
#include "ops/status.h"

struct bw_src_figures; /* out/src_out.h */

/* What a watch adds to the metrics: its reloads, by result. */
struct bw_watch_counts {
	__u64 reloads_ok;
	__u64 reloads_failed;
	__u64 rebuilds_auto; /* of reloads_ok: started by runtime adds */
	double last_seconds; /* the last reload's duration, < 0: none yet */
	double last_time;    /* when it ended, Unix seconds */
	bool last_ok;
	__u64 started;	/* when the watch started, Unix seconds */
	__u64 kept_gen; /* the generation it last put in, 0: none yet */
	/* Its live entries (daemon/live.h), when live is set. */
	bool live;
	__u64 live_entries, live_keys, live_bytes;
	__u64 live_adds, live_deletes, live_expired;
	/* Its CrowdSec source (out/cs_metrics.h), or NULL. */
	const struct bw_cs_metrics *cs;
	const struct bw_pull_figures *pull; /* watch --url's, or NULL */
	/* Its lists given by URL (out/src_out.h). */
	const struct bw_src_figures *src;
	int nsrc;
};

/*
 * The packets_total series: verdict, reason, family (NULL: not known, as
 * for passed packets) and the counter's value from s. The passed reasons
 * are parts of s->passed; "unlisted" is the rest of it.
 */
struct bw_packet_series {
	const char *verdict, *reason, *family;
	__u64 value;
};

#define BW_PACKET_SERIES 11

/*
 * Fills out[BW_PACKET_SERIES]; their values add up to the packets seen.
 * The drops are split by reason with d, the blocked queries by family
 * (reason "dns"; the rest of dropped_v4 and dropped_v6 is "address"); d
 * may be NULL (a program from before dns_drops): then every drop is an
 * address's.
 */
void bw_packet_series(const struct bw_stats *s, const struct bw_dns_drops *d,
		      struct bw_packet_series *out);

/*
 * The address keys v's filter was sized for: as its build recorded them
 * (BW_REC_SIZED), or, for a filter from before that record, what it holds
 * at its target rate by the sizing model (bloom_size.c), region by region,
 * give or take the rounding of whole blocks. Entries added at run time
 * raise the entries, not this; 0 for a filter without entries.
 */
double bw_metrics_sized_entries(const struct bw_status_view *v);

/*
 * Writes the exposition of v (and of w, when not NULL) to f: HELP and TYPE
 * lines, then the samples. An interface that runs no filter gets only
 * bloomwall_attached 0. -EIO when f could not be written.
 */
int bw_metrics_write(FILE *f, const struct bw_status_view *v,
		     const struct bw_watch_counts *w);

/* What the exposition is served as (watch --metrics-listen). */
#define BW_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/*
 * The exposition of v (and of w) in a buffer of its own (*text, malloc'd,
 * *len bytes), for the HTTP server to hand out. 0 or -ENOMEM.
 */
int bw_metrics_render(char **text, size_t *len, const struct bw_status_view *v,
		      const struct bw_watch_counts *w);

/*
 * Writes v's exposition (and w's) to path atomically: a temporary file in
 * the same directory, renamed over path, so a reader (node_exporter) sees
 * the old file or the new one, never a part. Says what failed; -errno.
 */
int bw_metrics_write_file(const char *path, const struct bw_status_view *v,
			  const struct bw_watch_counts *w);

#endif /* __BW_METRICS_H */
