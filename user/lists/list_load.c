// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading list files: a line at a time in bounded memory, each line handed
 * to bw_list_parse_line() (list_parse.c); bad lines reported with their
 * file and line, or skipped and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/log.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"

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

/* Reads at most this much a read(2): a few lines' worth of BW_LINE_MAX. */
#define READ_CHUNK (16 * BW_LINE_MAX)

/*
 * A list file read a line at a time, in bounded memory. stdio's getline()
 * grows its buffer to the longest line, and its end of file and its errors
 * (ENOMEM among them) look alike: a read error taken as the end would
 * swap in the part of the list read before it.
 */
struct reader {
	int fd;
	const char *name;
	char *buf; /* READ_CHUNK bytes, and a byte for a last line's NUL */
	size_t start, end; /* the bytes not handed out yet */
	bool eof;
	size_t lineno;
	size_t skipped; /* bad lines of this file, skipped */
	bool noted;	/* an IPv4-mapped entry was noted in this file */
	struct bw_list_tap *tap; /* provenance: the bytes read */
};

/* More bytes into the buffer. 0, or -errno: never an end taken for an error. */
static int fill(struct reader *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;

	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	for (;;) {
		n = read(r->fd, r->buf + r->end, READ_CHUNK - r->end);
		if (n > 0) {
			if (r->tap)
				r->tap->bytes(r->tap->ctx, r->buf + r->end,
					      (size_t)n);
			r->end += (size_t)n;
			return 0;
		}
		if (!n) {
			r->eof = true;
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		/* A non-blocking pipe (a shared standard input): wait. */
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
	}
}

enum { LINE_OK, LINE_EOF, LINE_TOO_LONG };

/*
 * The next line, NUL-terminated in place, in *line and *len. A line longer
 * than BW_LINE_MAX is LINE_TOO_LONG: *line then holds its first
 * BW_LINE_MAX + 1 bytes (not terminated), the rest is still unread.
 * Returns LINE_* or -errno.
 */
static int next_line(struct reader *r, char **line, size_t *len)
{
	size_t scanned = 0, n;
	char *nl;
	int err;

	for (;;) {
		n = r->end - r->start;
		nl = memchr(r->buf + r->start + scanned, '\n', n - scanned);
		if (nl)
			n = (size_t)(nl - (r->buf + r->start));
		*line = r->buf + r->start;
		*len = n;
		if (n > BW_LINE_MAX)
			return LINE_TOO_LONG;
		if (nl || (r->eof && n)) {
			(*line)[n] = '\0';
			r->start += n + (nl != NULL);
			return LINE_OK;
		}
		if (r->eof)
			return LINE_EOF;
		scanned = n;
		err = fill(r);
		if (err)
			return err;
	}
}

/* Drops the rest of a line found too long, up to its newline. */
static int skip_rest(struct reader *r)
{
	char *nl;
	int err;

	for (;;) {
		nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (nl) {
			r->start = (size_t)(nl - r->buf) + 1;
			return 0;
		}
		r->start = r->end = 0;
		if (r->eof)
			return 0;
		err = fill(r);
		if (err)
			return err;
	}
}

/*
 * A bad line: skipped under skip_invalid (the first few said one by one),
 * else the error that ends the read.
 */
static int bad_line(struct bw_list *l, struct reader *r, const char *why,
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
static int load_line(struct bw_list *l, struct reader *r, char *line,
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
	ret = bw_list_parse_line(l, line, &o, err, sizeof(err));
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
static int load_too_long(struct bw_list *l, struct reader *r, const char *line,
			 const struct bw_list_opts *opts)
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
	ret = skip_rest(r);
	if (ret)
		warn_unreadable(r->name, ret);
	return ret;
}

int bw_list_load_fd(struct bw_list *l, int fd, const char *name,
		    const struct bw_list_opts *opts)
{
	struct reader r = { .fd = fd, .name = name, .tap = opts->tap };
	size_t len;
	char *line;
	int ret;

	r.buf = malloc(READ_CHUNK + 1);
	if (!r.buf) {
		warn_unreadable(name, -ENOMEM);
		return -ENOMEM;
	}
	for (;;) {
		ret = next_line(&r, &line, &len);
		if (ret == LINE_EOF) {
			ret = 0;
			break;
		}
		if (ret < 0) {
			warn_unreadable(name, ret);
			break;
		}
		r.lineno++;
		if (ret == LINE_TOO_LONG)
			ret = load_too_long(l, &r, line, opts);
		else
			ret = load_line(l, &r, line, len, opts);
		if (ret < 0)
			break;
	}
	if (!ret && r.skipped > BW_SKIP_SHOWN)
		pr_warn("%s: %zu more bad %s skipped\n", name,
			r.skipped - BW_SKIP_SHOWN,
			bw_plural(r.skipped - BW_SKIP_SHOWN, "line", "lines"));
	if (r.tap)
		r.tap->lines = r.lineno;
	free(r.buf);
	return ret;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISSOCK(mode))
		return "socket";
	return "unknown file type";
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
		path, file_kind(st->st_mode));
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
