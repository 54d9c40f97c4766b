// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A list checked as its bytes arrive (list_stream.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lists/list_stream.h"

int bw_list_stream_init(struct bw_list_stream *s, const char *name,
			const struct bw_list_opts *o)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->o = *o;
	s->o.tap = NULL;
	bw_fmt_init(&s->fmt);
	bw_list_init(&s->l);
	s->line = malloc(BW_LINE_MAX + 2);
	return s->line ? 0 : -ENOMEM;
}

void bw_list_stream_free(struct bw_list_stream *s)
{
	bw_list_free(&s->l);
	free(s->line);
	s->line = NULL;
}

static int bad(struct bw_list_stream *s, const char *why)
{
	if (s->o.skip_invalid) {
		s->skipped++;
		return 0;
	}
	snprintf(s->err, sizeof(s->err), "%s:%zu: %s", s->name, s->lineno, why);
	return -EINVAL;
}

/* The line in s->line (s->n bytes) is whole. */
static int line(struct bw_list_stream *s)
{
	char err[BW_ERRLEN], *p = s->line;
	size_t len = s->n;
	int ret;

	s->lineno++;
	s->n = 0;
	if (s->too_long) {
		s->too_long = false;
		return bad(s, "line too long");
	}
	p[len] = '\0';
	if (s->lineno == 1 && len >= 3 && !strncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	ret = bw_fmt_line(&s->fmt, &s->l, p, s->lineno, &s->o, err,
			  sizeof(err));
	s->entries += s->l.n4 + s->l.n6 + s->l.ndom;
	/* Counted: the entries themselves are not needed. */
	s->l.n4 = s->l.n6 = s->l.ndom = s->l.names_len = 0;
	if (ret == -EINVAL)
		return bad(s, err);
	if (ret)
		snprintf(s->err, sizeof(s->err), "%s:%zu: %s", s->name,
			 s->lineno, strerror(-ret));
	return ret;
}

int bw_list_stream_feed(struct bw_list_stream *s, const char *buf, size_t len)
{
	const char *nl;
	size_t take, room;
	int ret;

	if (memchr(buf, '\0', len)) {
		snprintf(s->err, sizeof(s->err),
			 "%s:%zu: NUL byte: not a text list", s->name,
			 s->lineno + 1);
		return -EINVAL;
	}
	while (len) {
		nl = memchr(buf, '\n', len);
		take = nl ? (size_t)(nl - buf) : len;
		room = BW_LINE_MAX + 1 - s->n;
		if (take > room) {
			s->too_long = true;
			memcpy(s->line + s->n, buf, room);
			s->n += room;
		} else {
			memcpy(s->line + s->n, buf, take);
			s->n += take;
		}
		if (s->n > BW_LINE_MAX)
			s->too_long = true;
		if (!nl)
			return 0;
		ret = line(s);
		if (ret)
			return ret;
		buf = nl + 1;
		len -= take + 1;
	}
	return 0;
}

int bw_list_stream_end(struct bw_list_stream *s)
{
	char err[BW_ERRLEN];
	int ret = 0;

	if (s->n || s->too_long)
		ret = line(s);
	if (!ret && bw_fmt_end(&s->fmt, err, sizeof(err))) {
		snprintf(s->err, sizeof(s->err), "%s:%zu: %s", s->name,
			 s->lineno, err);
		ret = -EINVAL;
	}
	return ret;
}
