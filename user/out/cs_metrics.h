/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The CrowdSec source's metrics, in the style of CrowdSec's own bouncers
 * (cs-firewall-bouncer's decisions by origin and scope, LAPI requests by
 * result) beside bloomwall's, in the watch's metrics file:
 *
 *   bloomwall_decisions{iface,origin,scope}            gauge
 *   bloomwall_decisions_refused_total{iface,reason}    counter
 *   bloomwall_lapi_requests_total{iface,result}        counter
 *   bloomwall_lapi_last_sync_timestamp_seconds{iface}  gauge (0: none yet)
 *   bloomwall_decisions_resync_drift_total{iface}      counter
 *
 * and the results the daemon counts its polls by: what a poll came to,
 * and its reason in words.
 */
#ifndef __BW_CS_METRICS_H
#define __BW_CS_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "net/cs_decisions.h"
#include "net/http.h"

/* How a poll of the LAPI ended. */
enum bw_cs_result {
	BW_CS_OK,
	BW_CS_FORBIDDEN,    /* 401, 403: a wrong or revoked key */
	BW_CS_SERVER_ERROR, /* 5xx */
	BW_CS_BAD_STATUS,   /* any other status */
	BW_CS_DOWN,	    /* could not connect, no such host */
	BW_CS_TIMEOUT,
	BW_CS_CUT,	 /* the answer ended early */
	BW_CS_MALFORMED, /* not JSON, or not the stream's shape */
	BW_CS_TOO_LARGE,
	BW_CS_TLS, /* TLS or protocol failure */
	BW_CS_ERROR,
	BW_CS_RESULTS,
};

extern const char *const bw_cs_result_names[BW_CS_RESULTS];

/*
 * What a poll came to, from its transfer's err and res (net/http.h) and
 * the stream's error (net/cs_stream.h): its result, and in why its reason
 * for the log line and the state ("" when it went well).
 */
enum bw_cs_result bw_cs_result_of(int err, const struct bw_http_res *res,
				  const char *stream_err, char *why,
				  size_t cap);

/* Decision counts by origin and scope: the first few pairs, then "other". */
#define BW_CS_METRIC_PAIRS 32

struct bw_cs_metrics {
	__u64 requests[BW_CS_RESULTS];
	__u64 skipped[BW_CS_SKIP_KINDS];
	double last_sync; /* Unix seconds of the last whole answer; 0: none */
	__u64 drift;	  /* decisions the resyncs put in or took out */
	struct bw_cs_pair {
		char origin[BW_CS_ORIGIN_MAX];
		char scope[8]; /* "Ip" or "Range" */
		__u64 n;
	} pairs[BW_CS_METRIC_PAIRS];
	int npairs;
	__u64 other; /* decisions of pairs past the first few */
};

/* Adds one decision of origin and scope to m's pairs. */
void bw_cs_metrics_count(struct bw_cs_metrics *m, const char *origin,
			 const char *scope);

/* Writes m's metrics for iface to f (the metrics file's text format). */
void bw_cs_metrics_write(FILE *f, const char *iface,
			 const struct bw_cs_metrics *m);

#endif /* __BW_CS_METRICS_H */
