/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A list checked as its bytes arrive in pieces (a download), with what
 * list_load.h's reader does to each line: its format told from its first
 * meaningful line (list_format.h), a byte order mark skipped, a NUL byte
 * refused (not a text list), a line over BW_LINE_MAX bad. It keeps no
 * entry, only their count (entries of the lines, duplicates counted), so
 * its memory is bounded whatever the list's size, and each piece costs
 * time in proportion to its bytes: a caller's loop is never held longer
 * than a piece takes.
 */
#ifndef __BW_LIST_STREAM_H
#define __BW_LIST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/list.h"
#include "lists/list_format.h"

struct bw_list_stream {
	const char *name; /* for the messages: "name:line: reason" */
	struct bw_list_opts o;
	struct bw_fmt fmt;
	struct bw_list l; /* each line's entries, counted then dropped */
	char *line;	  /* BW_LINE_MAX + 1 bytes and a NUL */
	size_t n;	  /* bytes of the line so far */
	bool too_long;	  /* the line is past the bound */
	size_t lineno;
	__u64 entries;
	__u64 skipped;		  /* bad lines, under skip_invalid */
	char err[BW_ERRLEN + 64]; /* why it is no list */
};

/* 0 or -ENOMEM; bw_list_stream_free whatever the return. */
int bw_list_stream_init(struct bw_list_stream *s, const char *name,
			const struct bw_list_opts *o);

/* More bytes. 0, -EINVAL (s->err says why: no list), -ENOMEM. */
int bw_list_stream_feed(struct bw_list_stream *s, const char *buf, size_t len);

/* The bytes ended: the last line, the format's end. As feed. */
int bw_list_stream_end(struct bw_list_stream *s);

void bw_list_stream_free(struct bw_list_stream *s);

#endif /* __BW_LIST_STREAM_H */
