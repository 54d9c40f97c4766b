// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * One fetch of a list source into its cache (src_fetch.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/duration.h"
#include "base/file.h"
#include "base/output.h"
#include "lists/list.h"
#include "lists/list_stream.h"
#include "lists/unpack.h"
#include "net/http.h"
#include "net/src_fetch.h"
#include "net/url.h"

struct bw_src_fetch {
	struct bw_http_xfer *x;
	struct bw_unpack u;
	char url[2048];
	char path[4096], tmp[4112]; /* tmp: "" until the body comes */
	struct bw_src_meta have;    /* the copy's meta; fetched 0: no copy */
	bool force, skip_invalid, allow_shrink;
	int fd;	       /* tmp, -1: none */
	int werr;      /* a write's error */
	char head[64]; /* the first unpacked bytes: an HTML page? */
	size_t nhead;
	/* The unpacked bytes read as a list as they come: no step of the
	 * caller's loop holds it longer than a piece of the body takes. */
	struct bw_list_stream ls;
	bool ls_failed;
};

static const char *const why_names[BW_SRC_NWHY] = {
	[BW_SRC_NEW] = "new",		[BW_SRC_SAME] = "unchanged",
	[BW_SRC_E_CONNECT] = "connect", [BW_SRC_E_TIMEOUT] = "timeout",
	[BW_SRC_E_HTTP] = "http",	[BW_SRC_E_CUT] = "cut",
	[BW_SRC_E_SIZE] = "size",	[BW_SRC_E_HTML] = "html",
	[BW_SRC_E_EMPTY] = "empty",	[BW_SRC_E_SHRUNK] = "shrunk",
	[BW_SRC_E_PARSE] = "parse",	[BW_SRC_E_OTHER] = "other",
};

const char *bw_src_why_name(enum bw_src_why why)
{
	return why < BW_SRC_NWHY ? why_names[why] : "other";
}

/* An HTML page where a list was asked: a portal's, a CDN's error page. */
static bool html(const struct bw_src_fetch *f, const char *type)
{
	static const char *const tags[] = { "<!doctype html", "<html", "<head",
					    "<body", "<?xml" };
	size_t i = 0;

	if (!strncasecmp(type, "text/html", 9) ||
	    !strncasecmp(type, "application/xhtml", 17))
		return true;
	while (i < f->nhead && strchr(" \t\r\n", f->head[i]))
		i++;
	for (size_t t = 0; t < sizeof(tags) / sizeof(*tags); t++)
		if (f->nhead - i >= strlen(tags[t]) &&
		    !strncasecmp(f->head + i, tags[t], strlen(tags[t])))
			return true;
	return false;
}

static int out(void *ctx, const void *buf, size_t len)
{
	struct bw_src_fetch *f = ctx;
	size_t take = sizeof(f->head) - f->nhead;

	take = take < len ? take : len;
	int err;

	memcpy(f->head + f->nhead, buf, take);
	f->nhead += take;
	err = bw_write_all(f->fd, buf, len);
	if (err)
		return err;
	/* An HTML page is said as such at the end, not as bad lines. */
	if (html(f, ""))
		return 0;
	err = bw_list_stream_feed(&f->ls, buf, len);
	f->ls_failed = err != 0;
	return err ? -EBADMSG : 0;
}

static int body(void *ctx, const void *buf, size_t len)
{
	struct bw_src_fetch *f = ctx;

	if (f->fd < 0) {
		f->fd = bw_src_tmp_open(f->path, f->tmp, sizeof(f->tmp));
		if (f->fd < 0) {
			f->tmp[0] = '\0';
			return f->fd;
		}
	}
	return bw_unpack_feed(&f->u, buf, len);
}

struct bw_src_fetch *bw_src_fetch_start(const char *url, const char *path,
					const struct bw_src_opts *o, bool force)
{
	struct bw_src_fetch *f = calloc(1, sizeof(*f));
	struct bw_http_req rq;
	struct stat st;
	__u64 max = o->max_bytes ?: BW_SRC_MAX_BYTES;

	if (!f)
		return NULL;
	f->fd = -1;
	f->force = force;
	if (bw_list_stream_init(
		    &f->ls, f->url,
		    &(struct bw_list_opts){ .skip_invalid = o->skip_invalid,
					    .mask_host_bits = o->mask_host_bits,
					    .domains = true,
					    .threads = 1 })) {
		bw_list_stream_free(&f->ls);
		free(f);
		return NULL;
	}
	f->skip_invalid = o->skip_invalid;
	f->allow_shrink = o->allow_shrink;
	/* The request has the credential; the name, the meta and every
	 * message have it redacted. */
	bw_url_redacted(url, f->url, sizeof(f->url));
	snprintf(f->path, sizeof(f->path), "%s", path);
	bw_src_sweep(path);
	if (bw_src_meta_read(path, &f->have) || strcmp(f->have.url, f->url) ||
	    access(path, R_OK)) {
		memset(&f->have, 0, sizeof(f->have));
		f->have.last_modified = -1;
	}
	/* A copy that is not what its meta says (cut, edited): a 304 would
	 * confirm it, so it is asked for whole. */
	if (f->have.fetched &&
	    (stat(path, &st) || (__u64)st.st_size != f->have.bytes)) {
		f->have.etag[0] = '\0';
		f->have.last_modified = -1;
	}
	bw_unpack_init(&f->u, max, out, f);
	f->u.max_ratio = BW_SRC_MAX_RATIO;
	bw_http_req_init(&rq, url);
	rq.ca_file = o->ca_file;
	rq.connect_timeout = o->connect_timeout;
	rq.timeout = o->timeout;
	rq.max_bytes = max;
	rq.max_ratio = BW_SRC_MAX_RATIO;
	if (!force && f->have.fetched) {
		rq.etag = f->have.etag;
		rq.if_modified_since =
			f->have.last_modified > 0 ? f->have.last_modified : 0;
	}
	rq.body = body;
	rq.ctx = f;
	f->x = bw_http_start(&rq);
	if (!f->x) {
		bw_list_stream_free(&f->ls);
		free(f);
		return NULL;
	}
	return f;
}

int bw_src_fetch_fds(const struct bw_src_fetch *f, struct pollfd *p,
		     double *wake)
{
	return bw_http_fds(f->x, p, wake);
}

static int fail(struct bw_src_result *r, enum bw_src_why why, int err,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct bw_src_result *r, enum bw_src_why why, int err,
		const char *fmt, ...)
{
	char raw[sizeof(r->reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	bw_esc(r->reason, sizeof(r->reason), raw);
	r->why = why;
	return err;
}

/* Whether the download's bytes are the copy's. */
static bool same_as_copy(const struct bw_src_fetch *f, __u64 bytes)
{
	char a[1 << 15], b[1 << 15];
	struct stat st;
	int fa, fb;
	ssize_t na, nb;
	bool same = false;

	if (stat(f->path, &st) || (__u64)st.st_size != bytes)
		return false;
	fa = open(f->path, O_RDONLY | O_CLOEXEC);
	fb = open(f->tmp, O_RDONLY | O_CLOEXEC);
	if (fa >= 0 && fb >= 0) {
		do {
			na = read(fa, a, sizeof(a));
			nb = read(fb, b, sizeof(b));
			same = na == nb && na >= 0 &&
			       !memcmp(a, b, (size_t)(na > 0 ? na : 0));
		} while (same && na > 0);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* A 2xx whole: judged, then in place of the copy, or refused. */
static int judge(struct bw_src_fetch *f, const struct bw_http_res *hr,
		 struct bw_src_result *r)
{
	int err = bw_unpack_end(&f->u);

	if (f->werr || (f->fd < 0 && hr->bytes))
		return fail(r, BW_SRC_E_OTHER, -EIO, "%s: %s", f->tmp,
			    strerror(EIO));
	if (err == -EPIPE)
		return fail(r, BW_SRC_E_CUT, err,
			    "its %s stream ends before its end: cut short",
			    bw_pack_name(f->u.kind));
	if (err)
		return fail(r, BW_SRC_E_PARSE, err, "%s data: %s",
			    bw_pack_name(f->u.kind), strerror(-err));
	r->bytes = f->u.out;
	if (!r->bytes)
		return fail(r, BW_SRC_E_EMPTY, -ENODATA, "an empty answer");
	if (html(f, hr->content_type))
		return fail(
			r, BW_SRC_E_HTML, -EBADMSG,
			"an HTML page answered with %ld (Content-Type %s), not a list",
			hr->status,
			*hr->content_type ? hr->content_type : "none");
	err = bw_list_stream_end(&f->ls);
	if (err)
		return fail(r, BW_SRC_E_PARSE, err, "not a list: %s",
			    f->ls.err);
	r->entries = f->ls.entries;
	if (!r->entries)
		return fail(r, BW_SRC_E_EMPTY, -ENODATA, "holds no entry");
	if (!f->force && !f->allow_shrink && f->have.entries &&
	    r->entries < f->have.entries / 2)
		return fail(
			r, BW_SRC_E_SHRUNK, -ERANGE,
			"shrank from %llu to %llu entries (under half: a cut list?)",
			(unsigned long long)f->have.entries,
			(unsigned long long)r->entries);
	r->meta = f->have;
	snprintf(r->meta.url, sizeof(r->meta.url), "%s", f->url);
	snprintf(r->meta.etag, sizeof(r->meta.etag), "%s", hr->etag);
	snprintf(r->meta.pack, sizeof(r->meta.pack), "%s",
		 bw_pack_name(f->u.kind));
	r->meta.last_modified = hr->last_modified;
	r->meta.checked = time(NULL);
	r->meta.bytes = r->bytes;
	r->meta.entries = r->entries;
	if (f->have.fetched && same_as_copy(f, r->bytes)) {
		r->why = BW_SRC_SAME;
		unlink(f->tmp);
	} else {
		r->meta.fetched = r->meta.checked;
		err = bw_src_commit(f->tmp, f->path);
		if (err)
			return fail(r, BW_SRC_E_OTHER, err, "%s: %s", f->path,
				    strerror(-err));
		r->why = BW_SRC_NEW;
	}
	err = bw_src_meta_write(f->path, &r->meta);
	if (err)
		return fail(r, BW_SRC_E_OTHER, err, "%s.meta: %s", f->path,
			    strerror(-err));
	return 0;
}

static enum bw_src_why why_of(int err)
{
	switch (err) {
	case -ETIMEDOUT:
		return BW_SRC_E_TIMEOUT;
	case -ECONNREFUSED:
	case -EHOSTUNREACH:
		return BW_SRC_E_CONNECT;
	case -EPIPE:
		return BW_SRC_E_CUT;
	case -EFBIG:
		return BW_SRC_E_SIZE;
	case -EBADMSG:
		return BW_SRC_E_PARSE;
	default:
		return BW_SRC_E_OTHER;
	}
}

int bw_src_fetch_step(struct bw_src_fetch *f, const struct pollfd *p, int n,
		      struct bw_src_result *r)
{
	struct bw_http_res hr;
	int err = bw_http_step(f->x, p, n, &hr);

	if (err == -EINPROGRESS)
		return err;
	memset(r, 0, sizeof(*r));
	r->meta = f->have;
	r->status = hr.status;
	if (err && f->u.bomb)
		err = fail(
			r, BW_SRC_E_SIZE, err,
			"its %s data unpacks to over %d times its bytes (a decompression bomb?)",
			bw_pack_name(f->u.kind), BW_SRC_MAX_RATIO);
	else if (err && f->ls_failed)
		err = fail(r, BW_SRC_E_PARSE, err, "not a list: %s", f->ls.err);
	else if (err)
		err = fail(r, why_of(err), err, "%s", hr.reason);
	else if (hr.status == 304 && f->have.fetched) {
		r->why = BW_SRC_SAME;
		r->meta.checked = time(NULL);
		err = bw_src_meta_write(f->path, &r->meta);
		if (err)
			fail(r, BW_SRC_E_OTHER, err, "%s.meta: %s", f->path,
			     strerror(-err));
	} else if (hr.status < 200 || hr.status >= 300)
		err = fail(r, BW_SRC_E_HTTP, -EPROTO, "HTTP %ld", hr.status);
	else
		err = judge(f, &hr, r);
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
	if (r->why != BW_SRC_NEW)
		unlink(f->tmp);
	return err;
}

void bw_src_fetch_free(struct bw_src_fetch *f)
{
	if (!f)
		return;
	bw_http_free(f->x);
	bw_unpack_free(&f->u);
	bw_list_stream_free(&f->ls);
	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->tmp);
	}
	free(f);
}

int bw_src_fetch_once(const char *url, const char *path,
		      const struct bw_src_opts *o, struct bw_src_result *r)
{
	struct bw_src_fetch *f = bw_src_fetch_start(url, path, o, false);
	struct pollfd p[BW_HTTP_MAX_FDS];
	double wake, d;
	int n, err;

	if (!f)
		return fail(r, BW_SRC_E_OTHER, -ENOMEM, "out of memory");
	do {
		wake = bw_mono() + 1;
		n = bw_src_fetch_fds(f, p, &wake);
		d = fmax(0, wake - bw_mono());
		if (poll(p, (nfds_t)n, (int)ceil(d * 1000)) < 0)
			for (int i = 0; i < n; i++)
				p[i].revents = 0;
		err = bw_src_fetch_step(f, p, n, r);
	} while (err == -EINPROGRESS);
	bw_src_fetch_free(f);
	return err;
}
