// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading a list file a line at a time in bounded memory (list_reader.h).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "lists/list_reader.h"

/* More bytes into the buffer. 0, or -errno: never an end taken for an error. */
int bw_reader_fill(struct bw_reader *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;

	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	for (;;) {
		n = r->pread ? pread(r->fd, r->buf + r->end,
				     BW_READ_CHUNK - r->end, r->pos)
			     : read(r->fd, r->buf + r->end,
				    BW_READ_CHUNK - r->end);
		if (n > 0) {
			if (r->tap)
				r->tap->bytes(r->tap->ctx, r->buf + r->end,
					      (size_t)n);
			r->end += (size_t)n;
			r->pos += n;
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

/*
 * The next line, NUL-terminated in place, in *line and *len. A line longer
 * than BW_LINE_MAX is BW_LINE_TOO_LONG: *line then holds its first
 * BW_LINE_MAX + 1 bytes (not terminated), the rest is still unread.
 * Returns LINE_* or -errno.
 */
int bw_reader_next(struct bw_reader *r, char **line, size_t *len)
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
			return BW_LINE_TOO_LONG;
		if (nl || (r->eof && n)) {
			(*line)[n] = '\0';
			r->start += n + (nl != NULL);
			return BW_LINE_OK;
		}
		if (r->eof)
			return BW_LINE_EOF;
		scanned = n;
		err = bw_reader_fill(r);
		if (err)
			return err;
	}
}

/* Drops the rest of a line found too long, up to its newline. */
int bw_reader_skip_rest(struct bw_reader *r)
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
		err = bw_reader_fill(r);
		if (err)
			return err;
	}
}

/* Where the next line starts in the file. */
off_t bw_reader_offset(const struct bw_reader *r)
{
	return r->pos - (off_t)(r->end - r->start);
}
