/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Spamhaus' DROP lists as JSON lines (drop_v4.json, drop_v6.json), read
 * a line at a time into a list's addresses (list.h):
 *
 *   {"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}
 *   ...
 *   {"type":"metadata","timestamp":1700000000,"size":1234,"records":2,...}
 *
 * Each record's "cidr" is the entry (its other fields are not needed);
 * the closing metadata line's "records" must be the count of records
 * read, so a download cut at a line's end is refused at the end of the
 * file, not taken for a shorter list. A file without that line is
 * refused the same way. asndrop.json lists AS numbers, not addresses:
 * its records are bad lines that say what would be needed instead.
 */
#ifndef __BW_DROPJSON_H
#define __BW_DROPJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

struct bw_dropjson {
	size_t records; /* "cidr" records read */
	long long meta; /* the metadata line's "records", -1: none yet */
	size_t meta_line;
};

/* Whether a line is a JSON object's: '{' and '"' its first bytes but blanks. */
bool bw_dropjson_detect(const char *line, size_t len);

/* One line (NUL-terminated). 0, -EINVAL with the reason in err, -ENOMEM. */
int bw_dropjson_line(struct bw_dropjson *d, struct bw_list *l, const char *line,
		     size_t len, size_t lineno, const struct bw_list_opts *opts,
		     char *err, size_t errlen);

/* At the end: -EINVAL when the metadata line is missing or disagrees. */
int bw_dropjson_end(const struct bw_dropjson *d, char *err, size_t errlen);

void bw_dropjson_note(const struct bw_dropjson *d, char *buf, size_t len);

#endif /* __BW_DROPJSON_H */
