/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a watch that pulls its image (watch --url) counts, and how that is
 * shown: Prometheus samples for the metrics file, and the Pull section of
 * status, read from the "pull" section the watch publishes in its state
 * file (daemon_state.h). No bpf() here.
 */
#ifndef __BW_PULL_OUT_H
#define __BW_PULL_OUT_H

#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

/* A pull's result. */
enum bw_pull_result {
	BW_PULL_OK,	   /* a new image swapped in */
	BW_PULL_UNCHANGED, /* 304, or the image that runs already */
	BW_PULL_FAILED,	   /* no URL gave an image that went in */
	BW_PULL_NRESULTS,
};

/* Why a pull failed (the last URL's reason, when several were tried). */
enum bw_pull_reason {
	BW_PULL_R_TIMEOUT,   /* connect or total timeout */
	BW_PULL_R_CONNECT,   /* could not connect */
	BW_PULL_R_RESOLVE,   /* no such host */
	BW_PULL_R_PROTOCOL,  /* TLS, a redirect to another scheme, garbage */
	BW_PULL_R_STATUS,    /* an HTTP status other than 200 and 304 */
	BW_PULL_R_TOO_LARGE, /* past what an image may be, or says it is */
	BW_PULL_R_CUT,	     /* the body cut short */
	BW_PULL_R_NOT_IMAGE, /* the body does not begin as an image */
	BW_PULL_R_REFUSED,   /* the image's check refused it */
	BW_PULL_R_SIGNATURE, /* unsigned, another key's, or tampered with */
	BW_PULL_R_ROLLBACK,  /* not newer than the image that runs */
	BW_PULL_R_LOCAL,     /* the state directory, the disk, a swap */
	BW_PULL_NREASONS,
};

struct bw_pull_figures {
	__u64 results[BW_PULL_NRESULTS];
	__u64 failures[BW_PULL_NREASONS];
	__u64 consecutive; /* failed pulls in a row */
	double last_time;  /* when the last pull ended, Unix s; 0: none */
	double last_ok;	   /* the last one that was not a failure */
	enum bw_pull_result last;
};

/* "ok", "unchanged", "failed"; "timeout", "connect", ...: metric labels. */
const char *bw_pull_result_name(enum bw_pull_result r);
const char *bw_pull_reason_name(enum bw_pull_reason r);

/* The pull's samples (bloomwall_pull_*) for iface. */
void bw_pull_metrics_write(FILE *f, const char *iface,
			   const struct bw_pull_figures *p);

/* The figures as JSON members of o (the watch's "pull" section). */
void bw_pull_figures_json(struct json_object *o,
			  const struct bw_pull_figures *p);

/*
 * status's Pull section of an interface, from the state its watch
 * publishes (state, err: what bw_dstate_read() read and returned);
 * nothing when no watch pulls for it.
 */
void bw_pull_status_out(struct json_object *state, int err);

/*
 * A time as a status line and a JSON member: "label  2026-12-02 03:50:01
 * UTC (12 s ago)" (or "in 12 s"), "never" for t <= 0; key: Unix seconds.
 */
void bw_pull_kv_time(const char *label, const char *key, long long t);

#endif /* __BW_PULL_OUT_H */
