/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's list sources given by URL (net/src_fetch.h): each fetched
 * every --refresh into its copy in the cache (net/src_cache.h), which is
 * one of the watch's list files: a new copy moved into place rebuilds as
 * a changed list file does, and a failed fetch changes no file.
 *
 * The schedule is the pull's (pull_sched.h): each wait drawn from the
 * source's interval (its own, or --refresh) +- 10 %, failures in a row doubling it up to 16 times. A copy
 * that is younger than the interval at start waits for the rest of it;
 * one without a copy is fetched at once, and the watch's start waits for
 * those first fetches (one that fails, with no copy, ends the watch, as a
 * missing list file does). Spamhaus asks for an hour between automated
 * downloads: a source on its hosts is fetched no more often, unless
 * --force-refresh. Each fetch is a transfer among the loop's events: a
 * slow source delays nothing else, and SIGTERM ends it at once. SIGHUP
 * fetches every source now.
 */
#ifndef __BW_WATCH_SRC_H
#define __BW_WATCH_SRC_H

#include <poll.h>
#include <stdbool.h>
#include <json-c/json.h>

#include "net/http.h"
#include "net/src_fetch.h"
#include "out/src_out.h"

#define BW_SRC_MAX 16
/* --refresh's default: the hourly rhythm most list publishers keep. */
#define BW_SRC_REFRESH 3600.0
/* The least refresh for Spamhaus' hosts, unless --force-refresh. */
#define BW_SRC_SPAMHAUS_MIN 3600.0
/* --max-age's default: this many refresh intervals without an answer. */
#define BW_SRC_MAX_AGE_REFRESHES 3

/*
 * One source's own settings (an item of the config file's lists:), each
 * over the watch's; unset, the watch's.
 */
struct bw_wsrc_set {
	double refresh; /* seconds; 0: the watch's */
	double max_age; /* seconds; 0: the watch's */
	bool force_set; /* force_refresh given for it */
	bool force_refresh;
};

/* What the watch is given (cmd_watch.c). */
struct bw_wsrc_cfg {
	const char *urls[BW_SRC_MAX];
	const char *paths[BW_SRC_MAX];	    /* each one's copy: a list file */
	struct bw_wsrc_set set[BW_SRC_MAX]; /* each one's own */
	int n;
	double refresh; /* seconds; 0: BW_SRC_REFRESH */
	double max_age; /* seconds; 0: BW_SRC_MAX_AGE_REFRESHES refreshes */
	bool force_refresh;
	const char *state_dir;
	struct bw_src_opts opts;
};

struct bw_wsrc_one {
	struct bw_src_figures *fig; /* in the watch's fig[] */
	const char *url;	    /* as given: what is fetched */
	char redacted[2048];	    /* fig->url: net/url.h's bw_url_redacted */
	char said[1024];	    /* in messages: bw_url_said */
	double interval;	    /* this source's refresh */
	struct bw_src_fetch *f;	    /* under way, or NULL */
	double next;		    /* the next fetch, CLOCK_MONOTONIC s */
	double t0;		    /* when the one under way began */
	bool tried;		    /* a first fetch ended */
	bool hourly;		    /* on Spamhaus' hosts, not forced */
	bool stale_said;
	int fd0, nfds; /* its sockets in the loop's poll */
};

struct bw_wsrc {
	const struct bw_wsrc_cfg *c;
	const char *iface;
	struct bw_wsrc_one s[BW_SRC_MAX];
	struct bw_src_figures fig[BW_SRC_MAX]; /* the metrics' */
	int n;
};

/*
 * Takes the sources of c (none: n 0), their copies' ages said, the first
 * fetches scheduled. 0 or -errno (said: the state directory).
 */
int bw_wsrc_init(struct bw_wsrc *w, const struct bw_wsrc_cfg *c,
		 const char *iface);

/* Whether every source has a copy, or had its first try. */
bool bw_wsrc_first_done(const struct bw_wsrc *w);

/* The sources without a copy after their first try: said; how many. */
int bw_wsrc_missing(const struct bw_wsrc *w);

/* The fetches' sockets into p (room for n * BW_HTTP_MAX_FDS): how many. */
int bw_wsrc_fds(struct bw_wsrc *w, struct pollfd *p, double *wake);

/*
 * After the poll (p as bw_wsrc_fds filled it): fetches go on, those due
 * begin. True when one ended (the state to publish); a new copy is seen
 * by the watch's files as a changed list.
 */
bool bw_wsrc_step(struct bw_wsrc *w, const struct pollfd *p);

/*
 * SIGHUP: every source fetched now (conditionally, as always), but one
 * under way, and one held to Spamhaus' hour that was fetched within it
 * (said).
 */
void bw_wsrc_now(struct bw_wsrc *w);

/* A fetch is under way or due now (one SIGHUP asked for, say). */
bool bw_wsrc_busy(const struct bw_wsrc *w);

/* The "sources" section of the watch's state. */
void bw_wsrc_json(const struct bw_wsrc *w, struct json_object *root);

/* The fetches under way dropped. */
void bw_wsrc_free(struct bw_wsrc *w);

#endif /* __BW_WATCH_SRC_H */
