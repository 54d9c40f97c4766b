// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * HTTP(S) GET through libcurl's multi interface (http.h): curl_multi_poll
 * with a short timeout and the caller's fd, so a stop is seen within
 * BW_HTTP_STOP_POLL_MS whatever the server does.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "net/http.h"

struct xfer {
	CURL *h;
	const struct bw_http_req *rq;
	struct bw_http_res *res;
	int body_err;	    /* the callback's error, or -EFBIG */
	char location[256]; /* the last response's Location, or "" */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void bw_http_req_init(struct bw_http_req *rq, const char *url)
{
	memset(rq, 0, sizeof(*rq));
	rq->url = url;
	rq->wake_fd = -1;
}

const char *bw_http_scheme(const char *url)
{
	if (!strncasecmp(url, "https://", 8))
		return "https";
	if (!strncasecmp(url, "http://", 7))
		return "http";
	return NULL;
}

/*
 * Whether the response being received is a 2xx: an error page's body
 * never reaches the callback, so a body that happens to parse (a proxy's
 * cached stream behind a 5xx) cannot be taken for the answer.
 */
static bool answer_ok(struct xfer *x)
{
	long status = 0;

	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	return status >= 200 && status < 300;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;
	int err;

	if (x->rq->max_bytes && x->res->bytes + len > x->rq->max_bytes) {
		x->body_err = -EFBIG;
		return 0;
	}
	x->res->bytes += len;
	if (!x->rq->body || !answer_ok(x))
		return len;
	err = x->rq->body(x->rq->ctx, buf, len);
	if (err) {
		x->body_err = err;
		return 0;
	}
	return len;
}

/* Copies a header's value, its surrounding blanks and CR LF cut. */
static void header_value(char *dst, size_t cap, const char *v, size_t len)
{
	while (len && (*v == ' ' || *v == '\t'))
		v++, len--;
	while (len && isspace((unsigned char)v[len - 1]))
		len--;
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

static size_t on_header(char *buf, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;

	/* A new status line: a redirect's headers are not the answer's. */
	if (len >= 5 && !strncmp(buf, "HTTP/", 5)) {
		x->res->etag[0] = '\0';
		x->location[0] = '\0';
		x->res->content_type[0] = '\0';
	} else if (len > 5 && !strncasecmp(buf, "ETag:", 5)) {
		header_value(x->res->etag, sizeof(x->res->etag), buf + 5,
			     len - 5);
	} else if (len > 9 && !strncasecmp(buf, "Location:", 9)) {
		header_value(x->location, sizeof(x->location), buf + 9,
			     len - 9);
	} else if (len > 13 && !strncasecmp(buf, "Content-Type:", 13)) {
		header_value(x->res->content_type, sizeof(x->res->content_type),
			     buf + 13, len - 13);
	}
	return len;
}

static struct curl_slist *request_headers(const struct bw_http_req *rq)
{
	struct curl_slist *l = NULL, *t;
	char line[320];

	for (const char *const *h = rq->headers; h && *h; h++) {
		t = curl_slist_append(l, *h);
		if (!t)
			goto fail;
		l = t;
	}
	if (rq->etag && *rq->etag) {
		snprintf(line, sizeof(line), "If-None-Match: %s", rq->etag);
		t = curl_slist_append(l, line);
		if (!t)
			goto fail;
		l = t;
	}
	return l;
fail:
	curl_slist_free_all(l);
	return NULL;
}

static int setup(CURL *h, struct xfer *x, struct curl_slist *hdrs, char *errbuf)
{
	const struct bw_http_req *rq = x->rq;
	const char *scheme = bw_http_scheme(rq->url);
	double ct = rq->connect_timeout > 0 ? rq->connect_timeout
					    : BW_HTTP_CONNECT_TIMEOUT;
	double tt = rq->timeout > 0 ? rq->timeout : BW_HTTP_TIMEOUT;
	CURLcode rc = CURLE_OK;

	if (!scheme)
		return -EINVAL;
#define SET(opt, val)                                       \
	do {                                                \
		if (rc == CURLE_OK)                         \
			rc = curl_easy_setopt(h, opt, val); \
	} while (0)
	SET(CURLOPT_URL, rq->url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, scheme);
	SET(CURLOPT_FOLLOWLOCATION, 1L);
	SET(CURLOPT_MAXREDIRS, (long)BW_HTTP_MAX_REDIRS);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(ct * 1000));
	SET(CURLOPT_TIMEOUT_MS, (long)(tt * 1000));
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, x);
	SET(CURLOPT_FILETIME, 1L);
	SET(CURLOPT_USERAGENT, "bloomwall");
	SET(CURLOPT_HTTPHEADER, hdrs);
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

static int curl_errno(CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		return 0;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return -EHOSTUNREACH;
	case CURLE_FILESIZE_EXCEEDED:
		return -EFBIG;
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return -EPIPE;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return -EINVAL;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_HTTP2:
		return -EPROTO;
	default:
		return -EIO;
	}
}

static bool stopped(const struct bw_http_req *rq)
{
	return rq->stop && rq->stop(rq->ctx);
}

/* Runs the transfer, checking stop between polls: a CURLcode or -EINTR. */
static int run(CURLM *m, const struct bw_http_req *rq, CURLcode *rc)
{
	struct curl_waitfd wfd = { .fd = rq->wake_fd,
				   .events = CURL_WAIT_POLLIN };
	int running = 1;
	CURLMsg *msg;
	int left;

	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			return -EIO;
		if (!running)
			break;
		if (curl_multi_poll(m, rq->wake_fd >= 0 ? &wfd : NULL,
				    rq->wake_fd >= 0 ? 1 : 0,
				    BW_HTTP_STOP_POLL_MS, NULL) != CURLM_OK)
			return -EIO;
		if (stopped(rq))
			return -EINTR;
	}
	*rc = CURLE_OK;
	while ((msg = curl_multi_info_read(m, &left)))
		if (msg->msg == CURLMSG_DONE)
			*rc = msg->data.result;
	return 0;
}

/* A redirect to a scheme other than the URL's: not followed, -EPROTO. */
static int redirect_refused(struct xfer *x, struct bw_http_res *res)
{
	snprintf(res->reason, sizeof(res->reason),
		 "redirected (HTTP %ld) to %.150s, not followed: only %s:// is",
		 res->status, *x->location ? x->location : "another scheme",
		 bw_http_scheme(x->rq->url));
	return -EPROTO;
}

static int finish(CURL *h, struct xfer *x, CURLcode rc, const char *errbuf)
{
	struct bw_http_res *res = x->res;
	curl_off_t ft = -1;
	int err;

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->status);
	if (curl_easy_getinfo(h, CURLINFO_FILETIME_T, &ft) == CURLE_OK)
		res->last_modified = ft;
	if (rc == CURLE_WRITE_ERROR && x->body_err) {
		snprintf(res->reason, sizeof(res->reason), "%s",
			 x->body_err == -EFBIG ? "answer larger than allowed"
					       : strerror(-x->body_err));
		return x->body_err;
	}
	if (rc == CURLE_UNSUPPORTED_PROTOCOL && res->status >= 300 &&
	    res->status < 400)
		return redirect_refused(x, res);
	err = curl_errno(rc);
	if (err)
		snprintf(res->reason, sizeof(res->reason), "%s",
			 *errbuf ? errbuf : curl_easy_strerror(rc));
	return err;
}

int bw_http_get(const struct bw_http_req *rq, struct bw_http_res *res)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct xfer x = { .rq = rq, .res = res };
	struct curl_slist *hdrs = NULL;
	CURLcode rc = CURLE_OK;
	CURLM *m = NULL;
	CURL *h = NULL;
	int err;

	memset(res, 0, sizeof(*res));
	res->last_modified = -1;
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		snprintf(res->reason, sizeof(res->reason), "libcurl: %s",
			 curl_easy_strerror(global_rc));
		return -EIO;
	}
	h = curl_easy_init();
	x.h = h;
	m = curl_multi_init();
	hdrs = request_headers(rq);
	/* An empty ETag sends no header: no list is no failure then. */
	err = !h || !m || ((rq->headers || (rq->etag && *rq->etag)) && !hdrs)
		      ? -ENOMEM
		      : 0;
	if (!err)
		err = setup(h, &x, hdrs, errbuf);
	if (err == -EINVAL)
		snprintf(res->reason, sizeof(res->reason),
			 "not an http:// or https:// URL");
	if (!err && curl_multi_add_handle(m, h) != CURLM_OK)
		err = -ENOMEM;
	if (!err) {
		err = run(m, rq, &rc);
		if (err == -EINTR)
			snprintf(res->reason, sizeof(res->reason), "stopped");
		else if (!err)
			err = finish(h, &x, rc, errbuf);
		curl_multi_remove_handle(m, h);
	}
	if (err == -ENOMEM && !*res->reason)
		snprintf(res->reason, sizeof(res->reason), "out of memory");
	curl_multi_cleanup(m);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return err;
}
