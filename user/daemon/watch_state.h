/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a running watch holds (watch.h), and the small things every part
 * of its loop does with it: the clock, what runs on the interface, the
 * state file it publishes, the metrics file, the reload counts.
 */
#ifndef __BW_WATCH_STATE_H
#define __BW_WATCH_STATE_H

#include <stdbool.h>
#include <linux/types.h>

#include "daemon/live.h"
#include "daemon/pull.h"
#include "daemon/watch_apply.h"
#include "daemon/watch_cs.h"
#include "daemon/watch_files.h"
#include "daemon/watch_sock.h"
#include "net/http_serve.h"
#include "daemon/watch_src.h"
#include "out/metrics.h"

struct watch {
	const struct bw_watch_cfg *c;
	struct bw_watch_files fs;
	int ifindex;	  /* at start: a rename keeps it */
	int lock_fd;	  /* the watch's own, for its life */
	double settle;	  /* when to act on the events seen; < 0: none */
	bool writer_said; /* "waiting for ... to be closed" said */
	bool gone_said;	  /* "not attached anymore" said once */
	/* The generation this watch last put in, and whether another command
	 * replacing it was said. */
	__u64 kept_gen;
	bool replaced_said;
	__u64 last_keys; /* of the filter it keeps, for the shrink check */
	/* A shrunk rebuild was kept out: checks since with the files the
	 * same (BW_WATCH_SHRINK_TICKS of them let it in). */
	bool shrunk;
	int shrunk_ticks;
	/* The filter map a rebuild for adds was last tried for: an add swaps
	 * in a copy (a new map) of the same generation. */
	__u32 auto_map;
	struct bw_watch_counts counts;
	struct bw_watch_signals sig;
	struct bw_wlive *live; /* entries kept in place (daemon/live.h) */
	bool state_said;       /* a state file error said */
	struct bw_watch_cs cs; /* a CrowdSec source (--crowdsec) */
	struct bw_pull *pull;  /* --url: the pull source, else NULL */
	struct bw_wsrc src;    /* the lists given by URL */
	struct bw_wsock sock;  /* its socket (watch_sock.h) */
	/* --metrics-listen's server, or NULL */
	struct bw_http_serve *http;
	/* The rebuild under way, one at a time: its child, what set it off,
	 * when, the generation before it, and whether it is the start's (a
	 * failure with nothing running ends the watch) or a pull's. */
	struct bw_watch_job job;
	char trigger[400];
	double job_t0;
	__u64 job_old_gen;
	bool job_start, job_pull;
	bool hup;	  /* SIGHUP came: acted on once no rebuild runs */
	double hup_until; /* and its fetches ended, or this time came */
	bool begun;   /* the start is under way (after the first decisions) */
	bool started; /* and ended: READY */
	int end_err;  /* the start failed: the watch ends with it */
};

/* The generation running on iface, 0 when no filter of ours runs. */
__u64 bw_watch_generation_on(const char *iface);
__u64 bw_watch_running_generation(const struct watch *w);

/* The interface's new name (in buf), if the one watched was renamed. */
const char *bw_watch_renamed_to(const struct watch *w, char *buf);

/*
 * The watch's state in root: "pid", "updated" and its sections (live
 * entries, the socket's clients, CrowdSec, the pull), as the socket's
 * "status" answers it (base/run_ask.h) and the state file holds it.
 */
void bw_watch_state(struct watch *w, struct json_object *root);

/*
 * A question of the watch's socket (watch_sock.h's answer callback, ctx
 * the watch), answered in the loop: its reply.
 */
struct json_object *bw_watch_answer(void *ctx, const char *q, size_t len);

/* Writes bw_watch_state() to the state file (an error said once). */
void bw_watch_publish(struct watch *w);

/*
 * The metrics of v (what runs, gathered) and of the watch: the file
 * rewritten, the HTTP server's body swapped, each if asked for.
 */
void bw_watch_put_metrics(struct watch *w, const struct bw_status_view *v);

/* The same, what runs gathered first; nothing when neither is asked. */
void bw_watch_write_metrics(struct watch *w);

/* Counts a rebuild that ended with err after secs. */
void bw_watch_count(struct watch *w, int err, double secs);

/*
 * The watch ends (SIGTERM or SIGINT): what it leaves running said, and
 * with --detach-on-exit bloomwall detached.
 */
void bw_watch_stop(struct watch *w);

#endif /* __BW_WATCH_STATE_H */
