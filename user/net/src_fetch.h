/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One fetch of a list source given by URL into its cache (src_cache.h),
 * through the HTTP layer (http.h): a conditional GET (If-None-Match,
 * If-Modified-Since from the copy's meta), the body unpacked by its magic
 * bytes as it comes (lists/unpack.h) into PATH.tmp, bounded in bytes and
 * time; then judged whole before it may replace the copy. It does not
 * when the answer is not a 2xx (a 304 confirms the copy), is cut (the
 * transfer, or a compressed stream, ended early), is an HTML page (a
 * portal's or a CDN's error answered with 200), holds no entry, does not
 * read as a list as the rebuild reads it (lists/list_load.h: the same
 * skip_invalid and mask_host_bits; named by its URL and line), or holds
 * fewer than half the copy's entries (the shrink guard, per source;
 * force lets it). A download the same as the copy only confirms it: the
 * copy stays the same file, and nothing rebuilds.
 *
 * Driven by its caller's loop like a transfer (http.h): start, then fds
 * and step each turn until it ends; free at any time (the temporary file
 * removed). bw_src_fetch_once drives one to its end alone, for the verbs
 * that run once (build, attach, reload).
 */
#ifndef __BW_SRC_FETCH_H
#define __BW_SRC_FETCH_H

#include <poll.h>
#include <stdbool.h>
#include <linux/types.h>

#include "net/src_cache.h"

/* Unpacked bytes a copy may hold, by default: a list of ~40M lines. */
#define BW_SRC_MAX_BYTES (1ULL << 30)

/*
 * Unpacked bytes per byte received at most, past the first mebibyte (of
 * gzip, xz or bzip2, and of a Content-Encoding): lists pack 3 to 10
 * times; a decompression bomb, a thousand times and more, ends there.
 */
#define BW_SRC_MAX_RATIO 100

/* How a fetch ended, for the counts by reason and the log. */
enum bw_src_why {
	BW_SRC_NEW,	  /* a new copy went in */
	BW_SRC_SAME,	  /* 304, or the same bytes: the copy confirmed */
	BW_SRC_E_CONNECT, /* no connection, no such host, TLS */
	BW_SRC_E_TIMEOUT,
	BW_SRC_E_HTTP, /* an answer other than 2xx and 304 */
	BW_SRC_E_CUT,  /* the body, or its compressed stream, cut short */
	BW_SRC_E_SIZE, /* past the bound */
	BW_SRC_E_HTML, /* an HTML page answered as the list */
	BW_SRC_E_EMPTY,
	BW_SRC_E_SHRUNK,
	BW_SRC_E_PARSE, /* not a list bloomwall reads */
	BW_SRC_E_OTHER, /* the disk, memory, a redirect refused... */
	BW_SRC_NWHY
};

/* "new", "unchanged", "connect", "timeout", "http", "cut", ... */
const char *bw_src_why_name(enum bw_src_why why);

struct bw_src_opts {
	const char *ca_file;	/* NULL: the system's CAs */
	double connect_timeout; /* seconds; 0: http.h's default */
	double timeout;		/* the whole transfer; 0: the default */
	__u64 max_bytes;	/* unpacked; 0: BW_SRC_MAX_BYTES */
	bool skip_invalid;	/* bad lines skipped (build's --skip-invalid) */
	bool mask_host_bits; /* host bits masked (build's --mask-host-bits) */
	bool allow_shrink;   /* no shrink guard (watch --allow-shrink) */
};

struct bw_src_result {
	enum bw_src_why why;
	long status;		 /* the HTTP status; 0: none came */
	__u64 bytes;		 /* unpacked bytes of the download */
	__u64 entries;		 /* what it holds (read) */
	char reason[512];	 /* why it did not go in, for the log */
	struct bw_src_meta meta; /* the copy's, after this fetch */
};

struct bw_src_fetch;

/*
 * Starts the fetch of url into the copy at path (its meta, if any, gives
 * the validators and the shrink guard's count). force: unconditional,
 * and no shrink guard. NULL: no memory.
 */
struct bw_src_fetch *bw_src_fetch_start(const char *url, const char *path,
					const struct bw_src_opts *o,
					bool force);

/* As http.h's bw_http_fds. */
int bw_src_fetch_fds(const struct bw_src_fetch *f, struct pollfd *p,
		     double *wake);

/*
 * After the poll: -EINPROGRESS while under way; else r says how it ended
 * and the return is 0 (BW_SRC_NEW or BW_SRC_SAME) or -errno.
 */
int bw_src_fetch_step(struct bw_src_fetch *f, const struct pollfd *p, int n,
		      struct bw_src_result *r);

/* Ends it (under way or not), the temporary file removed. NULL: nothing. */
void bw_src_fetch_free(struct bw_src_fetch *f);

/* One fetch driven to its end (a verb that runs once). */
int bw_src_fetch_once(const char *url, const char *path,
		      const struct bw_src_opts *o, struct bw_src_result *r);

#endif /* __BW_SRC_FETCH_H */
