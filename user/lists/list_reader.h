/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A list file read a line at a time in bounded memory (list_load.c reads
 * lists with it): chunks of BW_READ_CHUNK bytes, each fed to the tap, each
 * line handed out NUL-terminated in place.
 */
#ifndef __BW_LIST_READER_H
#define __BW_LIST_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lists/list.h"
#include "lists/list_format.h"

/* Reads at most this much a read(2): a few lines' worth of BW_LINE_MAX. */
#define BW_READ_CHUNK (16 * BW_LINE_MAX)

/*
 * A list file read a line at a time, in bounded memory. stdio's getline()
 * grows its buffer to the longest line, and its end of file and its errors
 * (ENOMEM among them) look alike: a read error taken as the end would
 * swap in the part of the list read before it.
 */
struct bw_reader {
	int fd;
	bool pread; /* read with pread(2) from pos (the half's thread) */
	off_t pos;  /* file offset of the next read: buf[end] */
	const char *name;
	char *buf; /* BW_READ_CHUNK bytes, and a byte for a last line's NUL */
	size_t start, end; /* the bytes not handed out yet */
	bool eof;
	size_t lineno;
	size_t skipped; /* bad lines of this file, skipped */
	bool noted;	/* an IPv4-mapped entry was noted in this file */
	struct bw_list_tap *tap; /* provenance: the bytes read */
	struct bw_fmt fmt;	 /* the loader's: the file's format */
};

/* More bytes into the buffer. 0, or -errno: never an end taken for an error. */
int bw_reader_fill(struct bw_reader *r);

enum { BW_LINE_OK, BW_LINE_EOF, BW_LINE_TOO_LONG };

/*
 * The next line, NUL-terminated in place, in *line and *len. A line longer
 * than BW_LINE_MAX is BW_LINE_TOO_LONG: *line then holds its first
 * BW_LINE_MAX + 1 bytes (not terminated), the rest is still unread.
 * Returns BW_LINE_* or -errno.
 */
int bw_reader_next(struct bw_reader *r, char **line, size_t *len);

/* Drops the rest of a line found too long, up to its newline. */
int bw_reader_skip_rest(struct bw_reader *r);

/* Where the next line starts in the file. */
off_t bw_reader_offset(const struct bw_reader *r);

#endif /* __BW_LIST_READER_H */
