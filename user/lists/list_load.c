// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading list files: a line at a time in bounded memory, each line handed
 * to bw_list_parse_line() (list_parse.c); bad lines reported with their
 * file and line, or skipped and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "lists/list_format.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "lists/list_reader.h"

/* Says what went wrong with the file and what to check. */
static void warn_unreadable(const char *path, int err)
{
	const char *hint = "is it a readable list file?";

	if (err == -ENOENT)
		hint = "check the path; \"-\" reads standard input";
	else if (err == -EACCES || err == -EPERM)
		hint = "check its permissions";
	else if (err == -ENOMEM)
		hint = "out of memory while reading the list";
	pr_warn("%s: %s (%s)\n", path, strerror(-err), hint);
}

/*
 * A bad line: skipped under skip_invalid (the first few said one by one),
 * else the error that ends the read.
 */
static int bad_line(struct bw_list *l, struct bw_reader *r, const char *why,
		    const struct bw_list_opts *opts)
{
	if (!opts->skip_invalid) {
		pr_warn("%s:%zu: %s\n", r->name, r->lineno, why);
		return -EINVAL;
	}
	if (++r->skipped <= BW_SKIP_SHOWN)
		pr_warn("%s:%zu: %s (skipped)\n", r->name, r->lineno, why);
	l->skipped++;
	return 0;
}

/* One line read from a file: reports a bad line as path:line: reason. */
static int load_line(struct bw_list *l, struct bw_reader *r, char *line,
		     size_t len, const struct bw_list_opts *opts)
{
	struct bw_list_opts o = *opts;
	size_t mapped = l->mapped;
	char err[BW_ERRLEN];
	int ret;

	/* A UTF-8 byte order mark, as some editors save, is not an entry. */
	if (r->lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3)) {
		line += 3;
		len -= 3;
	}
	/* Not a bad line but a file that is not text: never skipped. */
	if (memchr(line, '\0', len)) {
		pr_warn("%s:%zu: NUL byte: not a text list\n", r->name,
			r->lineno);
		return -EINVAL;
	}
	o.note_mapped = !r->noted;
	ret = bw_fmt_line(&r->fmt, l, line, r->lineno, &o, err, sizeof(err));
	if (l->mapped != mapped)
		r->noted = true;
	if (!ret) {
		if (err[0])
			pr_warn("%s:%zu: %s\n", r->name, r->lineno, err);
		return 0;
	}
	if (ret == -EINVAL)
		return bad_line(l, r, err, opts);
	pr_warn("%s:%zu: %s\n", r->name, r->lineno, err);
	return ret;
}

/* A line over the bound; its first bytes tell a binary file apart. */
static int load_too_long(struct bw_list *l, struct bw_reader *r,
			 const char *line, const struct bw_list_opts *opts)
{
	char why[64];
	int ret;

	if (memchr(line, '\0', BW_LINE_MAX + 1)) {
		pr_warn("%s:%zu: NUL byte: not a text list\n", r->name,
			r->lineno);
		return -EINVAL;
	}
	snprintf(why, sizeof(why), "line too long (more than %d bytes)",
		 BW_LINE_MAX);
	ret = bad_line(l, r, why, opts);
	if (ret)
		return ret;
	ret = bw_reader_skip_rest(r);
	if (ret)
		warn_unreadable(r->name, ret);
	return ret;
}

/*
 * The end of the file: what its format still expects (a block left open)
 * is a bad line at the last line; a format other than plain says how the
 * file was read and what it counted.
 */
static int load_end(struct bw_list *l, struct bw_reader *r,
		    const struct bw_list_opts *opts)
{
	char err[BW_ERRLEN], note[BW_ERRLEN * 2];
	int ret;

	if (bw_fmt_end(&r->fmt, err, sizeof(err))) {
		ret = bad_line(l, r, err, opts);
		if (ret)
			return ret;
	}
	bw_fmt_note(&r->fmt, note, sizeof(note));
	if (note[0])
		pr_warn("%s: note: %s\n", r->name, note);
	return 0;
}

/* ---- a regular file read by two threads -------------------------------- */

/* Smaller files are read by one thread: a second would save nothing. */
#define SPLIT_MIN (1 << 20)

/*
 * The second half of a regular file, parsed by a thread of its own into a
 * list of its own while the first half is read as always. It takes only
 * lines that parse with nothing to say: at the first warning, bad line,
 * NUL byte or line too long it stops, and the file is read on from its
 * half by the one thread, as if it had never been split. Taken, its
 * entries follow the first half's, as one thread would have pushed them:
 * the list is the same, byte for byte.
 */
struct half {
	pthread_t tid;
	int fd;
	off_t start; /* its first byte, just after a newline */
	struct bw_list_opts opts;
	struct bw_list l;
	size_t lines;
	bool clean;
};

static void *half_run(void *arg)
{
	struct half *h = arg;
	struct bw_reader r = { .fd = h->fd, .pread = true, .pos = h->start };
	char err[BW_ERRLEN], *line;
	size_t len;
	int ret;

	r.buf = malloc(BW_READ_CHUNK + 1);
	while (r.buf) {
		ret = bw_reader_next(&r, &line, &len);
		if (ret == BW_LINE_EOF) {
			h->clean = true;
			break;
		}
		if (ret != BW_LINE_OK || memchr(line, '\0', len))
			break;
		h->lines++;
		if (bw_list_parse_line(&h->l, line, &h->opts, err,
				       sizeof(err)) ||
		    err[0])
			break;
	}
	free(r.buf);
	return NULL;
}

static unsigned int want_threads(const struct bw_list_opts *opts)
{
	if (opts->threads)
		return opts->threads;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

/* Starts the second half's thread; false: the file is read by one. */
static bool half_start(struct half *h, struct bw_reader *r,
		       const struct bw_list_opts *opts)
{
	char buf[BW_LINE_MAX + 1], *nl;
	off_t mid;
	struct stat st;
	ssize_t n;

	if (want_threads(opts) < 2 || fstat(r->fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size - r->pos < SPLIT_MIN)
		return false;
	mid = r->pos + (st.st_size - r->pos) / 2;
	n = pread(r->fd, buf, sizeof(buf), mid);
	nl = n > 0 ? memchr(buf, '\n', (size_t)n) : NULL;
	if (!nl)
		return false;
	memset(h, 0, sizeof(*h));
	h->fd = r->fd;
	h->start = mid + (nl - buf) + 1;
	h->opts = *opts;
	h->opts.tap = NULL;
	h->opts.skip_invalid = false;
	/* A note to make is a line to leave to the one thread. */
	h->opts.note_mapped = true;
	bw_list_init(&h->l);
	return !pthread_create(&h->tid, NULL, half_run, h);
}

/* Appends the half's entries and counts to l; -E2BIG past the names' bound. */
static int half_merge(struct bw_list *l, const struct bw_list *h)
{
	size_t i, base = l->names_len;

	if (l->names_len + h->names_len > UINT32_MAX)
		return -E2BIG;
	if (bw_list_reserve(l, h->n4, h->n6, h->ndom, h->names_len))
		return -ENOMEM;
	memcpy(l->v4 + l->n4, h->v4, h->n4 * sizeof(*l->v4));
	l->n4 += h->n4;
	memcpy(l->v6 + l->n6, h->v6, h->n6 * sizeof(*l->v6));
	l->n6 += h->n6;
	if (h->names_len)
		memcpy(l->names + base, h->names, h->names_len);
	l->names_len += h->names_len;
	for (i = 0; i < h->ndom; i++) {
		l->dom[l->ndom] = h->dom[i];
		l->dom[l->ndom++].off += (__u32)base;
	}
	l->local += h->local;
	l->lines += h->lines;
	l->mapped += h->mapped;
	return 0;
}

/*
 * At the half (or past it): 1 if its entries were taken and the rest of
 * the file read (for the tap, not parsed again), 0 to read on alone,
 * -errno on a read error.
 */
static int half_join(struct bw_list *l, struct bw_reader *r, struct half *h)
{
	int err = 0;

	pthread_join(h->tid, NULL);
	/* The half was read as plain lines: only a plain file takes it. */
	if (!h->clean || r->fmt.kind != BW_FMT_PLAIN ||
	    bw_reader_offset(r) != h->start || half_merge(l, &h->l)) {
		bw_list_free(&h->l);
		return 0;
	}
	bw_list_free(&h->l);
	r->lineno += h->lines;
	while (!err && !r->eof) {
		r->start = r->end = 0;
		err = bw_reader_fill(r);
	}
	r->start = r->end;
	return err ?: 1;
}

int bw_list_load_fd(struct bw_list *l, int fd, const char *name,
		    const struct bw_list_opts *opts)
{
	struct bw_reader r = { .fd = fd, .name = name, .tap = opts->tap };
	struct half h;
	bool split;
	size_t len;
	char *line;
	int ret;

	bw_fmt_init(&r.fmt);

	r.buf = malloc(BW_READ_CHUNK + 1);
	if (!r.buf) {
		warn_unreadable(name, -ENOMEM);
		return -ENOMEM;
	}
	r.pos = lseek(fd, 0, SEEK_CUR);
	split = r.pos >= 0 && half_start(&h, &r, opts);
	for (;;) {
		if (split && bw_reader_offset(&r) >= h.start) {
			split = false;
			ret = half_join(l, &r, &h);
			if (ret < 0)
				warn_unreadable(name, ret);
			if (ret)
				break;
		}
		ret = bw_reader_next(&r, &line, &len);
		if (ret == BW_LINE_EOF) {
			ret = 0;
			break;
		}
		if (ret < 0) {
			warn_unreadable(name, ret);
			break;
		}
		r.lineno++;
		if (ret == BW_LINE_TOO_LONG)
			ret = load_too_long(l, &r, line, opts);
		else
			ret = load_line(l, &r, line, len, opts);
		if (ret < 0)
			break;
	}
	if (split) {
		pthread_join(h.tid, NULL);
		bw_list_free(&h.l);
	}
	if (ret > 0)
		ret = 0;
	if (!ret)
		ret = load_end(l, &r, opts);
	if (!ret && r.skipped > BW_SKIP_SHOWN)
		pr_warn("%s: %zu more bad %s skipped\n", name,
			r.skipped - BW_SKIP_SHOWN,
			bw_plural(r.skipped - BW_SKIP_SHOWN, "line", "lines"));
	if (r.tap)
		r.tap->lines = r.lineno;
	free(r.buf);
	return ret;
}

/*
 * Only a regular file or a pipe is a list: a device can be endless
 * (/dev/zero, /dev/urandom) or have side effects when opened, and a
 * directory or a socket reads as nothing useful. Checked before the open,
 * so no device is opened, and again on what was opened.
 */
static int check_kind(const char *path, const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode))
		return 0;
	pr_warn("%s: not a regular file or pipe (%s): give a list file, or \"-\" for standard input\n",
		path, bw_file_kind(st->st_mode));
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

int bw_list_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts)
{
	struct stat st;
	int fd, ret;

	/* Standard input is what the operator gave: read as it is. */
	if (!strcmp(path, "-"))
		return bw_list_load_fd(l, STDIN_FILENO, "<stdin>", opts);
	if (stat(path, &st)) {
		ret = -errno;
		warn_unreadable(path, ret);
		return ret;
	}
	ret = check_kind(path, &st);
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		warn_unreadable(path, ret);
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		warn_unreadable(path, ret);
	} else {
		ret = check_kind(path, &st)
			      ?: bw_list_load_fd(l, fd, path, opts);
	}
	close(fd);
	return ret;
}
