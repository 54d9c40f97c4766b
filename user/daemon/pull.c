// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watch's pull source (pull.h): the state directory and one pull, the
 * URLs in order, into the temporary file, a transfer at a time that the
 * watch's loop drives.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sodium.h>

#include "base/duration.h"
#include "base/file.h"
#include "base/log.h"
#include "daemon/pull.h"
#include "daemon/pull_sched.h"
#include "image/image.h"
#include "net/http.h"
#include "net/url.h"

/* An error page is small: this much that is no image ends the transfer. */
#define NOT_IMAGE_MAX (64U << 10)

static int hash_file(const char *path, char hex[65])
{
	unsigned char buf[1 << 16], md[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_state s;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	hex[0] = '\0';
	if (fd < 0)
		return -errno;
	crypto_hash_sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crypto_hash_sha256_update(&s, buf, (unsigned long long)n);
	close(fd);
	if (n < 0)
		return -EIO;
	crypto_hash_sha256_final(&s, md);
	sodium_bin2hex(hex, 65, md, sizeof(md));
	return 0;
}

int bw_pull_init(struct bw_pull *p, const char *iface,
		 const struct bw_pull_cfg *c)
{
	const char *base = c->state_dir ?: BW_PULL_STATE_DIR;
	int i, err;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->iface = iface;
	p->interval = c->interval > 0 ? c->interval : BW_PULL_INTERVAL;
	p->answered = p->fetched = -1;
	for (i = 0; i < c->nurls; i++) {
		if (!bw_url_scheme(c->urls[i])) {
			pr_warn("bloomwall watch: --url %s: not an http:// or https:// URL\n",
				c->urls[i]);
			return -EINVAL;
		}
		p->url[i].url = c->urls[i];
	}
	if (sodium_init() < 0) {
		pr_warn("bloomwall watch: libsodium does not initialise\n");
		return -EIO;
	}
	if (snprintf(p->dir, sizeof(p->dir), "%s/%s", base, iface) >=
	    (int)sizeof(p->dir) - 16)
		return -ENAMETOOLONG;
	snprintf(p->tmp, sizeof(p->tmp), "%s/pull.tmp", p->dir);
	snprintf(p->cur, sizeof(p->cur), "%s/current.img", p->dir);
	err = bw_own_dir(base, 0755);
	if (!err)
		err = bw_own_dir(p->dir, 0700);
	if (err) {
		pr_warn("bloomwall watch: the state directory %s: %s (a directory of its own user, not writable by others)\n",
			err == -EPERM || err == -ENOTDIR ? p->dir : base,
			strerror(-err));
		return err;
	}
	unlink(p->tmp);
	if (bw_pull_have_last(p))
		hash_file(p->cur, p->sha);
	return 0;
}

bool bw_pull_have_last(const struct bw_pull *p)
{
	struct stat st;

	return !lstat(p->cur, &st) && S_ISREG(st.st_mode);
}

/* The body as it comes: into the file, checked and hashed. */
struct sink {
	int fd;
	__u64 got;
	__u64 want; /* the image's size once its header came; 0: not yet */
	union {
		struct bw_image_hdr h;
		unsigned char b[sizeof(struct bw_image_hdr)];
	} hdr;
	bool not_image;
	bool need_signed; /* refused at the header when unsigned */
	__u64 most;	  /* refused at the header past this; 0: any size */
	enum bw_pull_reason why;
	char msg[300];
	crypto_hash_sha256_state sha;
};

/* The pull under way (bw_pull.fetch). */
struct bw_pull_fetch {
	struct bw_http_xfer *xfer; /* of URL i; NULL: ended, rc says how */
	int i;
	bool force;
	int rc;
	struct sink s;
};

static int sink_fail(struct sink *s, enum bw_pull_reason why, int err)
{
	s->why = why;
	return err;
}

/* The header, once whole: is it an image, and how long. */
static int sink_header(struct sink *s)
{
	const __u8 *b = s->hdr.b;
	char why[256];

	/* Its first bytes, not the length a header that is none declares. */
	if (memcmp(s->hdr.h.magic, BW_IMAGE_MAGIC, sizeof(s->hdr.h.magic))) {
		snprintf(
			s->msg, sizeof(s->msg),
			"not a bloomwall image: it starts with %02x %02x %02x %02x, not \"%s\"",
			b[0], b[1], b[2], b[3], BW_IMAGE_MAGIC);
		s->not_image = true;
		return 0;
	}
	if (bw_image_check_hdr(&s->hdr.h, s->hdr.h.image_bytes, why,
			       sizeof(why))) {
		snprintf(s->msg, sizeof(s->msg),
			 "an image this bloomwall refuses: %s", why);
		s->not_image = true;
		return 0;
	}
	if (s->need_signed && !(s->hdr.h.flags & BW_IMAGE_F_SIG)) {
		snprintf(
			s->msg, sizeof(s->msg),
			"an unsigned image (--verify-key wants a signature): refused at its header");
		return sink_fail(s, BW_PULL_R_SIGNATURE, -EBADMSG);
	}
	if (s->most && s->hdr.h.image_bytes > s->most) {
		snprintf(
			s->msg, sizeof(s->msg),
			"an image of %llu bytes, more than %d times the last good one: refused at its header (SIGHUP takes it)",
			(unsigned long long)s->hdr.h.image_bytes,
			BW_PULL_GROWTH_MAX);
		return sink_fail(s, BW_PULL_R_TOO_LARGE, -EFBIG);
	}
	s->want = s->hdr.h.image_bytes;
	return 0;
}

static int sink_write(struct sink *s, const void *buf, size_t len)
{
	const char *b = buf;
	ssize_t n;

	while (len) {
		n = write(s->fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(s->msg, sizeof(s->msg),
				 "cannot write the download: %s",
				 strerror(n < 0 ? errno : ENOSPC));
			return sink_fail(s, BW_PULL_R_LOCAL, -EIO);
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int on_body(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;
	size_t h = sizeof(s->hdr), take;
	int err;

	if (s->got < h) {
		take = len < h - s->got ? len : h - s->got;
		memcpy(s->hdr.b + s->got, buf, take);
		err = s->got + take == h ? sink_header(s) : 0;
		if (err)
			return err;
	}
	s->got += len;
	if (s->not_image)
		return s->got > NOT_IMAGE_MAX
			       ? sink_fail(s, BW_PULL_R_NOT_IMAGE, -EBADMSG)
			       : 0;
	if (s->want && s->got > s->want) {
		snprintf(
			s->msg, sizeof(s->msg),
			"the answer is longer than the %llu bytes its image header says",
			(unsigned long long)s->want);
		return sink_fail(s, BW_PULL_R_TOO_LARGE, -EFBIG);
	}
	crypto_hash_sha256_update(&s->sha, buf, len);
	err = sink_write(s, buf, len);
	return err;
}

static enum bw_pull_reason http_reason(int err)
{
	switch (-err) {
	case ETIMEDOUT:
		return BW_PULL_R_TIMEOUT;
	case ECONNREFUSED:
		return BW_PULL_R_CONNECT;
	case EHOSTUNREACH:
		return BW_PULL_R_RESOLVE;
	case EFBIG:
		return BW_PULL_R_TOO_LARGE;
	case EPIPE:
		return BW_PULL_R_CUT;
	case ENOMEM:
		return BW_PULL_R_LOCAL;
	default:
		return BW_PULL_R_PROTOCOL;
	}
}

/* What a whole answer is: 0 new, 1 unchanged, -errno (s->why, s->msg). */
static int judge(struct sink *s, const struct bw_http_res *res)
{
	if (res->status == 304)
		return 1;
	if (res->status != 200) {
		snprintf(s->msg, sizeof(s->msg), "HTTP status %ld",
			 res->status);
		return sink_fail(s, BW_PULL_R_STATUS, -EPROTO);
	}
	if (s->not_image || s->got < sizeof(s->hdr)) {
		if (!s->not_image)
			snprintf(
				s->msg, sizeof(s->msg),
				"not a bloomwall image: %llu bytes, shorter than an image header",
				(unsigned long long)s->got);
		return sink_fail(s, BW_PULL_R_NOT_IMAGE, -EBADMSG);
	}
	if (s->got != s->want) {
		snprintf(s->msg, sizeof(s->msg),
			 "cut short: %llu of the %llu bytes its header says",
			 (unsigned long long)s->got,
			 (unsigned long long)s->want);
		return sink_fail(s, BW_PULL_R_CUT, -EPIPE);
	}
	if (fsync(s->fd)) {
		snprintf(s->msg, sizeof(s->msg), "fsync: %s", strerror(errno));
		return sink_fail(s, BW_PULL_R_LOCAL, -EIO);
	}
	return 0;
}

static void request(const struct bw_pull *p, int i, bool force,
		    struct bw_http_req *rq)
{
	const struct bw_pull_cfg *c = p->c;

	bw_http_req_init(rq, p->url[i].url);
	rq->ca_file = c->ca_file;
	rq->cert_file = c->cert_file;
	rq->key_file = c->key_file;
	rq->connect_timeout = c->connect_timeout;
	rq->timeout = c->timeout;
	rq->max_bytes = sizeof(struct bw_image_hdr) +
			(__u64)BW_MAX_BLOCKS * BW_BLOCK_BYTES +
			BW_IMAGE_SEC_MAX;
	if (force)
		return;
	if (p->url[i].etag[0])
		rq->etag = p->url[i].etag;
	rq->if_modified_since =
		p->url[i].last_modified > 0 ? p->url[i].last_modified : 0;
}

/* The download's name for the swap, once it came whole. */
static void fetched(struct bw_pull *p, int i, struct sink *s,
		    const struct bw_http_res *res)
{
	unsigned char md[crypto_hash_sha256_BYTES];

	crypto_hash_sha256_final(&s->sha, md);
	sodium_bin2hex(p->fetched_sha, sizeof(p->fetched_sha), md, sizeof(md));
	snprintf(p->fetched_etag, sizeof(p->fetched_etag), "%s", res->etag);
	p->fetched_lm = res->last_modified;
	p->fetched = i;
}

/* Why a transfer that did not complete failed, into s. */
static void failed(struct sink *s, int err, const struct bw_http_res *res)
{
	if (err != -EPROTO && res->status >= 300 && res->status != 304) {
		snprintf(s->msg, sizeof(s->msg), "HTTP status %ld",
			 res->status);
		s->why = BW_PULL_R_STATUS;
	} else if (!s->msg[0]) {
		s->why = http_reason(err);
		snprintf(s->msg, sizeof(s->msg), "%s", res->reason);
	}
}

/* The most an image may declare at its header now; 0: any size. */
static __u64 most_bytes(const struct bw_pull *p, bool force)
{
	struct stat st;

	if (force || lstat(p->cur, &st) || !S_ISREG(st.st_mode))
		return 0;
	return (__u64)st.st_size * BW_PULL_GROWTH_MAX;
}

/* URL f->i asked: -EINPROGRESS, or -errno when it cannot be (f->s). */
static int start_one(struct bw_pull *p, struct bw_pull_fetch *f)
{
	struct sink *s = &f->s;
	struct bw_http_req rq;

	memset(s, 0, sizeof(*s));
	s->why = BW_PULL_R_PROTOCOL;
	s->need_signed = p->need_signed;
	s->most = most_bytes(p, f->force);
	unlink(p->tmp);
	s->fd = open(p->tmp,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (s->fd < 0) {
		snprintf(s->msg, sizeof(s->msg), "%.200s: %s", p->tmp,
			 strerror(errno));
		return sink_fail(s, BW_PULL_R_LOCAL, -EIO);
	}
	crypto_hash_sha256_init(&s->sha);
	request(p, f->i, f->force, &rq);
	rq.body = on_body;
	rq.ctx = s;
	f->xfer = bw_http_start(&rq);
	if (f->xfer)
		return -EINPROGRESS;
	close(s->fd);
	unlink(p->tmp);
	snprintf(s->msg, sizeof(s->msg), "out of memory");
	return sink_fail(s, BW_PULL_R_LOCAL, -ENOMEM);
}

/* URL f->i's transfer ended: 0 (the image in p->tmp), 1 unchanged, -errno. */
static int end_one(struct bw_pull *p, struct bw_pull_fetch *f, int err,
		   const struct bw_http_res *res)
{
	struct sink *s = &f->s;

	bw_http_free(f->xfer);
	f->xfer = NULL;
	if (err)
		failed(s, err, res);
	if (!err)
		err = judge(s, res);
	close(s->fd);
	if (!err && res->status == 200) {
		fetched(p, f->i, s, res);
		return 0;
	}
	unlink(p->tmp);
	return err ?: 1;
}

/* The last pull's reason stays what status says until this one ends. */
void bw_pull_add_reason(struct bw_pull *p, int i, const char *msg)
{
	size_t off = strlen(p->trying);

	snprintf(p->trying + off, sizeof(p->trying) - off, "%s%s: %s",
		 off ? "; " : "", p->url[i].url, msg);
}

/*
 * URL f->i came to err: after a failure the next URL is asked.
 * -EINPROGRESS while one is, else the pull's end as bw_pull_step's.
 */
static int settle(struct bw_pull *p, struct bw_pull_fetch *f, int err)
{
	while (err < 0 && err != -EINPROGRESS) {
		p->why = f->s.why;
		p->fig.failures[p->why]++;
		bw_pull_add_reason(p, f->i, f->s.msg);
		if (++f->i == p->c->nurls)
			return err;
		err = start_one(p, f);
	}
	if (err >= 0)
		p->answered = f->i;
	return err;
}

int bw_pull_begin_at(struct bw_pull *p, int i)
{
	struct bw_pull_fetch *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	p->fetched = -1;
	p->fetch = f;
	f->force = p->forced;
	f->i = i;
	f->rc = i < p->c->nurls ? settle(p, f, start_one(p, f)) : -ENOENT;
	return 0;
}

int bw_pull_begin(struct bw_pull *p, bool force)
{
	p->trying[0] = '\0';
	p->forced = force;
	return bw_pull_begin_at(p, 0);
}

int bw_pull_fds(const struct bw_pull *p, struct pollfd *pfd, double *wake)
{
	if (p->fetch->xfer)
		return bw_http_fds(p->fetch->xfer, pfd, wake);
	*wake = fmin(*wake, bw_mono());
	return 0;
}

int bw_pull_step(struct bw_pull *p, const struct pollfd *pfd, int n)
{
	struct bw_pull_fetch *f = p->fetch;
	struct bw_http_res res;
	bool force = f->force;
	int err = f->rc;

	if (f->xfer) {
		err = bw_http_step(f->xfer, pfd, n, &res);
		if (err == -EINPROGRESS)
			return err;
		err = settle(p, f, end_one(p, f, err, &res));
		if (err == -EINPROGRESS)
			return err;
	}
	free(f);
	p->fetch = NULL;
	if (err || force || !p->sha[0] || strcmp(p->fetched_sha, p->sha))
		return err;
	/* The image that runs, from another URL or with new headers. */
	snprintf(p->url[p->answered].etag, sizeof(p->url[p->answered].etag),
		 "%s", p->fetched_etag);
	p->url[p->answered].last_modified = p->fetched_lm;
	unlink(p->tmp);
	p->fetched = -1;
	return 1;
}

void bw_pull_cancel(struct bw_pull *p)
{
	struct bw_pull_fetch *f = p->fetch;

	if (!f)
		return;
	if (f->xfer) {
		bw_http_free(f->xfer);
		close(f->s.fd);
		unlink(p->tmp);
	}
	free(f);
	p->fetch = NULL;
}
