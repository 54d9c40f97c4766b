/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One HTTP(S) GET through libcurl, for what bloomwall pulls from a server:
 * filter images (watch --url) and CrowdSec's decision stream (watch
 * --crowdsec). The body goes to a callback as it comes, so a large answer
 * is never held whole here; the transfer is bounded in time and size and
 * can be stopped at once from outside (a signal), whatever the server does.
 *
 * TLS verifies the peer with the system's CAs or a given file; libcurl
 * reads the usual proxy variables (https_proxy, no_proxy...). A redirect is
 * followed (at most BW_HTTP_MAX_REDIRS) only to the scheme of the URL asked
 * for: an https URL is never sent on to http.
 */
#ifndef __BW_HTTP_H
#define __BW_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define BW_HTTP_MAX_REDIRS 5
/* Defaults, in seconds, for a request that gives none. */
#define BW_HTTP_CONNECT_TIMEOUT 10.0
#define BW_HTTP_TIMEOUT 60.0
/* How often a transfer checks its stop callback, in milliseconds. */
#define BW_HTTP_STOP_POLL_MS 100

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
	const char *etag;	 /* If-None-Match, or NULL */
	__s64 if_modified_since; /* unix seconds, 0: none */
	/*
	 * The body of the final response (after redirects), as it comes,
	 * when it is a 2xx (an error page's body is counted and dropped):
	 * 0 goes on, -errno ends the transfer with that error. NULL: dropped.
	 */
	int (*body)(void *ctx, const void *buf, size_t len);
	/*
	 * Called every BW_HTTP_STOP_POLL_MS at most and whenever wake_fd
	 * (if >= 0, e.g. a signalfd) is readable: true ends the transfer,
	 * -EINTR. May be NULL.
	 */
	bool (*stop)(void *ctx);
	int wake_fd;
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

/*
 * Performs the GET. 0 when a response came whole, whatever its status
 * (res->status says: 200, 304...); else -errno with res->reason set:
 * -ETIMEDOUT, -ECONNREFUSED (could not connect), -EHOSTUNREACH (no such
 * host), -EPROTO (TLS failure, a redirect to another scheme, a malformed
 * answer), -EFBIG (past max_bytes), -EPIPE (cut short), -EINTR (stopped),
 * the body callback's error, -EINVAL (bad URL), -ENOMEM, -EIO.
 */
int bw_http_get(const struct bw_http_req *rq, struct bw_http_res *res);

/* "http" or "https" (the scheme of url, lower case), or NULL for others. */
const char *bw_http_scheme(const char *url);

#endif /* __BW_HTTP_H */
