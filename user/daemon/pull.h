/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The watch's pull source (watch --url): the image fetched over HTTP(S)
 * from the URLs given, in their order (the first that answers wins; the
 * others are mirrors tried when one before them fails), with conditional
 * requests (If-None-Match with the ETag, If-Modified-Since with the
 * Last-Modified of the image each URL last gave that went in), into a
 * temporary file of the state directory (STATE/IFACE, 0700), checked as
 * it comes (an image's header first, then exactly the bytes it says,
 * never more than the largest image bloomwall builds), fsync'd, then
 * swapped in by the watch through load's path. Only once it went in does
 * it become STATE/IFACE/current.img, the last good image, which a watch
 * that starts on an interface running nothing loads before its first pull.
 *
 * A 304, or the image that runs already, changes nothing. A failure (a
 * timeout, no connection, a TLS failure, a redirect to another scheme, an
 * HTTP error, a cut or oversized body, no image, an image its check
 * refuses) leaves the last good filter running: counted by reason, one log
 * line with the reason, and the next try backs off (pull_sched.h).
 */
#ifndef __BW_PULL_H
#define __BW_PULL_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <json-c/json.h>
#include <linux/types.h>

#include "out/pull_out.h"

#define BW_PULL_STATE_DIR "/var/lib/bloomwall"
#define BW_PULL_MAX_URLS 8

/* watch --url's options. */
struct bw_pull_cfg {
	const char *urls[BW_PULL_MAX_URLS];
	int nurls;
	const char *ca_file;	/* NULL: the system's CAs */
	const char *cert_file;	/* TLS client certificate, or NULL */
	const char *key_file;	/* its key, or NULL */
	double connect_timeout; /* seconds; 0: net/http.h's default */
	double timeout;		/* the whole transfer; 0: the default */
	double interval;	/* seconds; 0: BW_PULL_INTERVAL */
	const char *state_dir;	/* NULL: BW_PULL_STATE_DIR */
};

struct bw_pull_url {
	const char *url;
	char etag[256];	     /* of its last image that went in, or "" */
	__s64 last_modified; /* the same's Last-Modified, or <= 0 */
};

struct bw_pull {
	const struct bw_pull_cfg *c;
	const char *iface;
	double interval;
	char dir[PATH_MAX - 32]; /* STATE/IFACE */
	char tmp[PATH_MAX];	 /* the download */
	char cur[PATH_MAX];	 /* the last image that went in */
	struct bw_pull_url url[BW_PULL_MAX_URLS];
	int answered; /* the URL that answered last, -1: none yet */
	/* The download in tmp: its URL, headers and hash. */
	int fetched;
	char fetched_etag[256];
	__s64 fetched_lm;
	char fetched_sha[65];
	char sha[65]; /* sha256 of cur (hex), "" when there is none */
	struct bw_pull_figures fig;
	enum bw_pull_reason why; /* the last failure's */
	char reason[512];	 /* the last pull's, for the log and status */
	char trying[512];	 /* the one under way's failures so far */
	double next;		 /* when to pull next, CLOCK_MONOTONIC s */
	double next_real;	 /* the same, Unix s, for status */
	bool json;		 /* the log's lines as JSON records */
	/* --verify-key: an unsigned image is refused at its header. */
	bool need_signed;
	struct bw_pull_fetch *fetch; /* the pull under way, or NULL */
	bool hup;		     /* that one is SIGHUP's */
	bool forced;		     /* that one is unconditional */
	/* What the watch swaps in now (watch_pull.h): no pull meanwhile. */
	enum { BW_PULL_SWAP_NONE, BW_PULL_SWAP_LAST, BW_PULL_SWAP_NEW } swap;
};

/* The options checked, the state directory made: 0 or -errno (said). */
int bw_pull_init(struct bw_pull *p, const char *iface,
		 const struct bw_pull_cfg *c);

/* Whether there is a last good image (p->cur) to start from. */
bool bw_pull_have_last(const struct bw_pull *p);

/*
 * An image larger than this many times the last good one is refused at
 * its header (a lying or broken server), unless the pull is forced.
 */
#define BW_PULL_GROWTH_MAX 16

/*
 * One pull, the URLs in order, driven by the watch's loop: bw_pull_begin
 * (force: no conditional request, an image like the one that runs is
 * taken as new, and one of any size: SIGHUP, or nothing runs), then each
 * turn bw_pull_fds and, after the poll, bw_pull_step until it ends;
 * bw_pull_cancel drops it, the download removed. Each download is judged
 * at its 64-byte header, before the rest comes: no image, unsigned under
 * --verify-key, or past BW_PULL_GROWTH_MAX times the last good image:
 * the transfer ends there, and the next URL is asked. Begin: 0, or
 * -ENOMEM (no pull under way).
 */
int bw_pull_begin(struct bw_pull *p, bool force);

/*
 * The pull under way goes on from URL i (a mirror after one whose image
 * was refused), as forced as it began: 0, or -ENOMEM (none under way).
 */
int bw_pull_begin_at(struct bw_pull *p, int i);

/* Appends "URL i: msg" to the failures of the pull under way. */
void bw_pull_add_reason(struct bw_pull *p, int i, const char *msg);

/*
 * The sockets of the pull under way into pfd (room for BW_HTTP_MAX_FDS,
 * net/http.h), their count; *wake lowered to when it wants a step
 * without an event (CLOCK_MONOTONIC seconds).
 */
int bw_pull_fds(const struct bw_pull *p, struct pollfd *pfd, double *wake);

/*
 * After the poll (pfd and n as bw_pull_fds gave them): -EINPROGRESS
 * while under way; else it ended: 0, a new image is in p->tmp, to be
 * swapped in, then bw_pull_finish(); 1: unchanged; else -errno, p->why
 * and p->reason saying why.
 */
int bw_pull_step(struct bw_pull *p, const struct pollfd *pfd, int n);

void bw_pull_cancel(struct bw_pull *p);

#endif /* __BW_PULL_H */
