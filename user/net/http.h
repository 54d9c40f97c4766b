/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One HTTP(S) GET through libcurl, for what bloomwall pulls from a server:
 * filter images (watch --url) and CrowdSec's decision stream (watch
 * --crowdsec). The body goes to a callback as it comes, so a large answer
 * is never held whole here; the transfer is bounded in time and size, and
 * its caller's loop can drop it at any time, whatever the server does.
 *
 * An answer in a Content-Encoding libcurl decodes (gzip, deflate...; all
 * are asked for) reaches the callback decoded, max_bytes bounding it
 * decoded; one it cannot decode ends the transfer naming the encoding.
 * With max_ratio, an answer that decodes to more than max_ratio times the
 * bytes that came, once past BW_HTTP_RATIO_FLOOR, ends with -EFBIG (a
 * decompression bomb), within its first mebibytes.
 *
 * TLS verifies the peer with the system's CAs or a given file; libcurl
 * reads the usual proxy variables (https_proxy, no_proxy...). A redirect is
 * followed (at most BW_HTTP_MAX_REDIRS) only to the scheme of the URL asked
 * for: an https URL is never sent on to http. A request that carries
 * credentials (headers, such as CrowdSec's key, or a client certificate)
 * follows a redirect only to the origin it asked (scheme, host, port): a
 * key is never sent to a host it was not given for (libcurl would send
 * custom headers on).
 *
 * A transfer is driven by its caller, so that a loop waits on it with its
 * other events and never inside it: bw_http_start, then each turn
 * bw_http_fds (what to poll, and when to step without an event) and,
 * after the poll, bw_http_step, until it ends; bw_http_free at any time
 * (a transfer under way is dropped).
 */
#ifndef __BW_HTTP_H
#define __BW_HTTP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define BW_HTTP_MAX_REDIRS 5
/* Defaults, in seconds, for a request that gives none. */
#define BW_HTTP_CONNECT_TIMEOUT 10.0
#define BW_HTTP_TIMEOUT 60.0
/* Decoded bytes below which max_ratio is not judged. */
#define BW_HTTP_RATIO_FLOOR (1ULL << 20)
/* The most sockets one transfer waits on at once (happy eyeballs: two). */
#define BW_HTTP_MAX_FDS 8

struct bw_http_req {
	const char *url;
	/* Extra request headers, "Name: value", NULL-terminated; or NULL. */
	const char *const *headers;
	const char *ca_file;	 /* NULL: the system's CAs */
	const char *cert_file;	 /* TLS client certificate (PEM), or NULL */
	const char *key_file;	 /* its key, or NULL (then in cert_file) */
	double connect_timeout;	 /* seconds; 0: BW_HTTP_CONNECT_TIMEOUT */
	double timeout;		 /* the whole transfer; 0: BW_HTTP_TIMEOUT */
	__u64 max_bytes;	 /* a larger body is cut: -EFBIG; 0: no bound */
	__u64 max_ratio;	 /* decoded / received at most; 0: no bound */
	const char *etag;	 /* If-None-Match, or NULL */
	__s64 if_modified_since; /* unix seconds, 0: none */
	/*
	 * The body of the final response (after redirects), as it comes,
	 * when it is a 2xx (an error page's body is counted and dropped):
	 * 0 goes on, -errno ends the transfer with that error. NULL: dropped.
	 */
	int (*body)(void *ctx, const void *buf, size_t len);
	void *ctx;
};

struct bw_http_res {
	long status;		/* of the final response; 0: none came */
	char etag[256];		/* its ETag header, as sent, or "" */
	__s64 last_modified;	/* its Last-Modified, unix seconds, or -1 */
	__u64 bytes;		/* body bytes received */
	char content_type[128]; /* or "" */
	/* Why the transfer failed, for a log line ("" when it completed). */
	char reason[256];
};

/* Sets up the fields a request leaves unset: no fd, defaults elsewhere. */
void bw_http_req_init(struct bw_http_req *rq, const char *url);

struct bw_http_xfer;

/*
 * Starts the GET of rq (its strings are copied; body and ctx are kept
 * for the transfer's life). NULL: no memory. A request that cannot start
 * (a bad URL...) gives a transfer that ends at its first step.
 */
struct bw_http_xfer *bw_http_start(const struct bw_http_req *rq);

/*
 * The sockets to poll, into p (room for BW_HTTP_MAX_FDS): their count.
 * *wake is lowered to when the transfer wants a step whatever the
 * sockets do (CLOCK_MONOTONIC seconds, base/duration.h's bw_mono).
 */
int bw_http_fds(const struct bw_http_xfer *x, struct pollfd *p, double *wake);

/*
 * After the poll, with p and n as bw_http_fds filled them (revents set):
 * the transfer goes on as far as it can without waiting. -EINPROGRESS
 * while under way; else it ended, *res is its result, and the return is
 * 0 when a response came whole, whatever its status (res->status says:
 * 200, 304...); else -errno with res->reason set: -ETIMEDOUT,
 * -ECONNREFUSED (could not connect), -EHOSTUNREACH (no such host),
 * -EPROTO (TLS failure, a redirect to another scheme, or with
 * credentials to another origin, a malformed answer), -EFBIG (past
 * max_bytes), -EPIPE (cut short), the body callback's error, -EINVAL (bad
 * URL), -ELIBACC (libcurl cannot be loaded: net/dl_libs.h), -ENOMEM, -EIO.
 */
int bw_http_step(struct bw_http_xfer *x, const struct pollfd *p, int n,
		 struct bw_http_res *res);

/* Ends the transfer (under way or not) and frees it. NULL: nothing. */
void bw_http_free(struct bw_http_xfer *x);

#endif /* __BW_HTTP_H */
