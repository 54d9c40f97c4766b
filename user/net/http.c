// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * HTTP(S) GET through libcurl's multi interface (http.h), one multi handle
 * a transfer: its socket and timer callbacks say what to poll and when,
 * curl_multi_socket_action moves it on when that comes.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "base/duration.h"
#include "base/output.h"
#include "net/curl_errno.h"
#include "net/dl_libs.h"
#include "net/http.h"
#include "net/url.h"

struct bw_http_xfer {
	CURLM *m;
	CURL *h;
	struct curl_slist *hdrs;
	struct bw_http_req rq; /* the caller's, its strings not kept */
	struct bw_http_res res;
	const char *scheme; /* of the URL asked for */
	int body_err;	    /* the callback's error, or -EFBIG */
	bool bomb;	    /* -EFBIG by max_ratio */
	char location[256]; /* the last response's Location, or "" */
	char errbuf[CURL_ERROR_SIZE];
	/* Headers or a client certificate: redirects followed here, and
	 * only to the origin asked (scheme, host, port). */
	bool credentials;
	int redirects;
	char origin[300]; /* of the URL asked for */
	/* What libcurl waits for: its sockets, and its timer (-1: none). */
	struct pollfd fds[BW_HTTP_MAX_FDS];
	int nfds;
	bool too_many_fds;
	double timer;
	bool done;
	int err; /* once done */
};

void bw_http_req_init(struct bw_http_req *rq, const char *url)
{
	memset(rq, 0, sizeof(*rq));
	rq->url = url;
}

/*
 * Whether the response being received is a 2xx: an error page's body
 * never reaches the callback, so a body that happens to parse (a proxy's
 * cached stream behind a 5xx) cannot be taken for the answer.
 */
static bool answer_ok(struct bw_http_xfer *x)
{
	long status = 0;

	bw_curl.easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	return status >= 200 && status < 300;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ctx)
{
	struct bw_http_xfer *x = ctx;
	size_t len = size * n;
	curl_off_t wire = 0; /* bytes received, before their decoding */
	int err;

	if (x->rq.max_ratio && x->res.bytes + len > BW_HTTP_RATIO_FLOOR &&
	    !bw_curl.easy_getinfo(x->h, CURLINFO_SIZE_DOWNLOAD_T, &wire) &&
	    x->res.bytes + len > x->rq.max_ratio * (__u64)wire)
		x->bomb = true;
	if (x->bomb ||
	    (x->rq.max_bytes && x->res.bytes + len > x->rq.max_bytes)) {
		x->body_err = -EFBIG;
		return 0;
	}
	x->res.bytes += len;
	if (!x->rq.body || !answer_ok(x))
		return len;
	err = x->rq.body(x->rq.ctx, buf, len);
	if (err) {
		x->body_err = err;
		return 0;
	}
	return len;
}

/*
 * Copies a header's value, its surrounding blanks and CR LF cut. What a
 * server sends reaches log lines and the state: a value with a byte
 * outside printable ASCII is kept escaped (base/output.h; an ETag then
 * matches no more, a full answer comes), others as they are.
 */
static void header_value(char *dst, size_t cap, const char *v, size_t len)
{
	size_t i;

	while (len && (*v == ' ' || *v == '\t'))
		v++, len--;
	while (len && isspace((unsigned char)v[len - 1]))
		len--;
	for (i = 0; i < len && (unsigned char)v[i] >= 0x20 && v[i] <= 0x7e; i++)
		;
	if (i < len) {
		bw_esc_mem(dst, cap - 1, v, len, false);
		return;
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

static size_t on_header(char *buf, size_t size, size_t n, void *ctx)
{
	struct bw_http_xfer *x = ctx;
	size_t len = size * n;

	/* A new status line: a redirect's headers are not the answer's. */
	if (len >= 5 && !strncmp(buf, "HTTP/", 5)) {
		x->res.etag[0] = '\0';
		x->location[0] = '\0';
		x->res.content_type[0] = '\0';
	} else if (len > 5 && !strncasecmp(buf, "ETag:", 5)) {
		header_value(x->res.etag, sizeof(x->res.etag), buf + 5,
			     len - 5);
	} else if (len > 9 && !strncasecmp(buf, "Location:", 9)) {
		header_value(x->location, sizeof(x->location), buf + 9,
			     len - 9);
	} else if (len > 13 && !strncasecmp(buf, "Content-Type:", 13)) {
		header_value(x->res.content_type, sizeof(x->res.content_type),
			     buf + 13, len - 13);
	}
	return len;
}

static struct curl_slist *request_headers(const struct bw_http_req *rq)
{
	struct curl_slist *l = NULL, *t;
	char line[320];

	for (const char *const *h = rq->headers; h && *h; h++) {
		t = bw_curl.slist_append(l, *h);
		if (!t)
			goto fail;
		l = t;
	}
	if (rq->etag && *rq->etag) {
		snprintf(line, sizeof(line), "If-None-Match: %s", rq->etag);
		t = bw_curl.slist_append(l, line);
		if (!t)
			goto fail;
		l = t;
	}
	return l;
fail:
	bw_curl.slist_free_all(l);
	return NULL;
}

static int setup(struct bw_http_xfer *x, const struct bw_http_req *rq)
{
	CURL *h = x->h;
	const char *scheme = x->scheme;
	double ct = rq->connect_timeout > 0 ? rq->connect_timeout
					    : BW_HTTP_CONNECT_TIMEOUT;
	double tt = rq->timeout > 0 ? rq->timeout : BW_HTTP_TIMEOUT;
	CURLcode rc = CURLE_OK;

	if (!scheme)
		return -EINVAL;
#define SET(opt, val)                                          \
	do {                                                   \
		if (rc == CURLE_OK)                            \
			rc = bw_curl.easy_setopt(h, opt, val); \
	} while (0)
	SET(CURLOPT_URL, rq->url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, scheme);
	/* libcurl sends custom headers on to any host a redirect names. */
	SET(CURLOPT_FOLLOWLOCATION, x->credentials ? 0L : 1L);
	SET(CURLOPT_MAXREDIRS, (long)BW_HTTP_MAX_REDIRS);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(ct * 1000));
	SET(CURLOPT_TIMEOUT_MS, (long)(tt * 1000));
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, x);
	SET(CURLOPT_FILETIME, 1L);
	SET(CURLOPT_USERAGENT, "bloomwall");
	SET(CURLOPT_ACCEPT_ENCODING, ""); /* what libcurl decodes (http.h) */
	SET(CURLOPT_HTTPHEADER, x->hdrs);
	if (rq->max_bytes)
		SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)rq->max_bytes);
	if (rq->ca_file)
		SET(CURLOPT_CAINFO, rq->ca_file);
	if (rq->cert_file)
		SET(CURLOPT_SSLCERT, rq->cert_file);
	if (rq->key_file)
		SET(CURLOPT_SSLKEY, rq->key_file);
	if (rq->if_modified_since > 0) {
		SET(CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
		SET(CURLOPT_TIMEVALUE_LARGE, (curl_off_t)rq->if_modified_since);
	}
#undef SET
	return rc == CURLE_OK ? 0 : -EINVAL;
}

static int on_socket(CURL *h, curl_socket_t fd, int what, void *ctx,
		     void *sock_ctx)
{
	struct bw_http_xfer *x = ctx;
	short ev = (what & CURL_POLL_IN ? POLLIN : 0) |
		   (what & CURL_POLL_OUT ? POLLOUT : 0);
	int i;

	(void)h;
	(void)sock_ctx;
	for (i = 0; i < x->nfds && x->fds[i].fd != fd; i++)
		;
	if (what == CURL_POLL_REMOVE) {
		if (i < x->nfds)
			x->fds[i] = x->fds[--x->nfds];
		return 0;
	}
	if (i == x->nfds) {
		/* More than a GET ever opens: ended, not waited on blind. */
		if (x->nfds == BW_HTTP_MAX_FDS) {
			x->too_many_fds = true;
			return -1;
		}
		x->nfds++;
	}
	x->fds[i] = (struct pollfd){ .fd = fd, .events = ev };
	return 0;
}

static int on_timer(CURLM *m, long ms, void *ctx)
{
	struct bw_http_xfer *x = ctx;

	(void)m;
	x->timer = ms < 0 ? -1 : bw_mono() + (double)ms / 1000;
	return 0;
}

/*
 * A redirect of a request with credentials: followed when it stays at the
 * origin asked (1: the same handle asks it now), else -EPROTO said; 0:
 * no redirect (the answer is what came).
 */
static int follow(struct bw_http_xfer *x)
{
	char *next = NULL, url[2048], origin[sizeof(x->origin)];
	struct bw_http_res *res = &x->res;
	char raw[sizeof(res->reason)];

	if (res->status < 300 || res->status >= 400 ||
	    bw_curl.easy_getinfo(x->h, CURLINFO_REDIRECT_URL, &next) !=
		    CURLE_OK ||
	    !next)
		return 0;
	if (snprintf(url, sizeof(url), "%s", next) >= (int)sizeof(url) ||
	    !bw_url_origin(url, origin, sizeof(origin)) ||
	    strcmp(origin, x->origin)) {
		snprintf(
			raw, sizeof(raw),
			"redirected (HTTP %ld) to %.80s, not followed: its credentials go to %.80s only",
			res->status, url, x->origin);
		bw_esc(res->reason, sizeof(res->reason), raw);
		return -EPROTO;
	}
	if (++x->redirects > BW_HTTP_MAX_REDIRS) {
		snprintf(res->reason, sizeof(res->reason),
			 "more than %d redirects", BW_HTTP_MAX_REDIRS);
		return -EPROTO;
	}
	bw_curl.multi_remove_handle(x->m, x->h);
	res->status = 0;
	res->bytes = 0;
	res->last_modified = -1;
	if (bw_curl.easy_setopt(x->h, CURLOPT_URL, url) != CURLE_OK ||
	    bw_curl.multi_add_handle(x->m, x->h) != CURLM_OK) {
		snprintf(res->reason, sizeof(res->reason), "out of memory");
		return -ENOMEM;
	}
	return 1;
}

/* A redirect to a scheme other than the URL's: not followed, -EPROTO. */
static int redirect_refused(struct bw_http_xfer *x)
{
	snprintf(x->res.reason, sizeof(x->res.reason),
		 "redirected (HTTP %ld) to %.150s, not followed: only %s:// is",
		 x->res.status, *x->location ? x->location : "another scheme",
		 x->scheme);
	return -EPROTO;
}

static int finish(struct bw_http_xfer *x, CURLcode rc)
{
	struct bw_http_res *res = &x->res;
	struct curl_header *e;
	char raw[sizeof(res->reason)];
	curl_off_t ft = -1;
	int err;

	bw_curl.easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &res->status);
	if (bw_curl.easy_getinfo(x->h, CURLINFO_FILETIME_T, &ft) == CURLE_OK)
		res->last_modified = ft;
	if (rc == CURLE_WRITE_ERROR && x->body_err) {
		snprintf(res->reason, sizeof(res->reason), "%s",
			 x->bomb ? "its Content-Encoding unpacks too far "
				   "(a decompression bomb?)"
			 : x->body_err == -EFBIG ? "answer larger than allowed"
						 : strerror(-x->body_err));
		return x->body_err;
	}
	if (rc == CURLE_UNSUPPORTED_PROTOCOL && res->status >= 300 &&
	    res->status < 400)
		return redirect_refused(x);
	err = bw_curl_errno(rc);
	/* libcurl's message, and a header, may quote the server. */
	if (rc == CURLE_BAD_CONTENT_ENCODING &&
	    !bw_curl.easy_header(x->h, "Content-Encoding", 0, CURLH_HEADER, -1,
				 &e)) {
		snprintf(raw, sizeof(raw), "Content-Encoding %.40s: %.150s",
			 e->value, x->errbuf);
		bw_esc(res->reason, sizeof(res->reason), raw);
	} else if (err) {
		bw_esc(res->reason, sizeof(res->reason),
		       *x->errbuf ? x->errbuf : bw_curl.easy_strerror(rc));
	}
	return err;
}

/* The transfer ends with err (0 or -errno), why said when not said. */
static void end(struct bw_http_xfer *x, int err, const char *why)
{
	x->done = true;
	x->err = err;
	if (err && !*x->res.reason)
		snprintf(x->res.reason, sizeof(x->res.reason), "%s", why);
}

/* A transfer of the handle ended with rc: the end, or a redirect asked. */
static void ended(struct bw_http_xfer *x, CURLcode rc)
{
	int err = finish(x, rc);

	if (!err && x->credentials)
		err = follow(x);
	if (err != 1)
		end(x, err, "");
}

static void begin(struct bw_http_xfer *x, const struct bw_http_req *rq)
{
	CURLMcode mc = CURLM_OK;
	int err;

	x->h = bw_curl.easy_init();
	x->m = bw_curl.multi_init();
	x->hdrs = request_headers(rq);
	/* An empty ETag sends no header: no list is no failure then. */
	if (!x->h || !x->m ||
	    ((rq->headers || (rq->etag && *rq->etag)) && !x->hdrs)) {
		end(x, -ENOMEM, "out of memory");
		return;
	}
	err = setup(x, rq);
	if (err) {
		end(x, err, "not an http:// or https:// URL");
		return;
	}
	mc = bw_curl.multi_setopt(x->m, CURLMOPT_SOCKETFUNCTION, on_socket);
	if (mc == CURLM_OK)
		mc = bw_curl.multi_setopt(x->m, CURLMOPT_SOCKETDATA, x);
	if (mc == CURLM_OK)
		mc = bw_curl.multi_setopt(x->m, CURLMOPT_TIMERFUNCTION,
					  on_timer);
	if (mc == CURLM_OK)
		mc = bw_curl.multi_setopt(x->m, CURLMOPT_TIMERDATA, x);
	if (mc == CURLM_OK)
		mc = bw_curl.multi_add_handle(x->m, x->h);
	if (mc != CURLM_OK)
		end(x, -ENOMEM, "out of memory");
}

struct bw_http_xfer *bw_http_start(const struct bw_http_req *rq)
{
	struct bw_http_xfer *x = calloc(1, sizeof(*x));
	int err;

	if (!x)
		return NULL;
	/* Only what the callbacks read is kept: libcurl copies the rest. */
	x->rq.max_bytes = rq->max_bytes;
	x->rq.max_ratio = rq->max_ratio;
	x->rq.body = rq->body;
	x->rq.ctx = rq->ctx;
	x->res.last_modified = -1;
	x->timer = -1;
	x->scheme = bw_url_scheme(rq->url);
	x->credentials = rq->headers || rq->cert_file;
	/* Without libcurl, its URL parser too is missing: said first. */
	err = bw_curl_load(x->res.reason, sizeof(x->res.reason));
	if (!err && x->scheme &&
	    !bw_url_origin(rq->url, x->origin, sizeof(x->origin)))
		x->scheme = NULL;
	if (err)
		end(x, err, "");
	else if (!x->scheme)
		end(x, -EINVAL, "not an http:// or https:// URL");
	else
		begin(x, rq);
	return x;
}

int bw_http_fds(const struct bw_http_xfer *x, struct pollfd *p, double *wake)
{
	if (x->done) {
		*wake = fmin(*wake, bw_mono());
		return 0;
	}
	if (x->timer >= 0)
		*wake = fmin(*wake, x->timer);
	memcpy(p, x->fds, (size_t)x->nfds * sizeof(*p));
	return x->nfds;
}

/* One socket's events, or the timer's (fd CURL_SOCKET_TIMEOUT). */
static bool act(struct bw_http_xfer *x, curl_socket_t fd, short revents)
{
	int ev = 0, running;

	if (revents & (POLLIN | POLLHUP | POLLERR))
		ev |= CURL_CSELECT_IN;
	if (revents & (POLLOUT | POLLERR))
		ev |= CURL_CSELECT_OUT;
	if (revents & POLLERR)
		ev |= CURL_CSELECT_ERR;
	if (bw_curl.multi_socket_action(x->m, fd, ev, &running) == CURLM_OK)
		return true;
	end(x, -EIO,
	    x->too_many_fds ? "too many sockets for one transfer" : "libcurl");
	return false;
}

int bw_http_step(struct bw_http_xfer *x, const struct pollfd *p, int n,
		 struct bw_http_res *res)
{
	CURLMsg *msg;
	int i, left;
	long ms;

	for (i = 0; i < n && !x->done; i++)
		if (p[i].revents)
			act(x, p[i].fd, p[i].revents);
	if (!x->done && x->timer >= 0 && bw_mono() >= x->timer)
		act(x, CURL_SOCKET_TIMEOUT, 0);
	while (!x->done && (msg = bw_curl.multi_info_read(x->m, &left)))
		if (msg->msg == CURLMSG_DONE)
			ended(x, msg->data.result);
	/* A timer libcurl found not due yet is not said again: asked. */
	if (!x->done && bw_curl.multi_timeout(x->m, &ms) == CURLM_OK)
		on_timer(x->m, ms, x);
	if (!x->done)
		return -EINPROGRESS;
	*res = x->res;
	return x->err;
}

void bw_http_free(struct bw_http_xfer *x)
{
	if (!x)
		return;
	/* A transfer that never began (no libcurl...) holds none of them. */
	if (x->m && x->h)
		bw_curl.multi_remove_handle(x->m, x->h);
	if (x->m)
		bw_curl.multi_cleanup(x->m);
	if (x->h)
		bw_curl.easy_cleanup(x->h);
	if (x->hdrs)
		bw_curl.slist_free_all(x->hdrs);
	free(x);
}
