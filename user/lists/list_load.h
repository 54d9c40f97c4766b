/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Reading list files into a list, line by line (list_parse.h).
 */
#ifndef __BW_LIST_LOAD_H
#define __BW_LIST_LOAD_H

#include "lists/list.h"

/*
 * Reads a whole file ("-" is standard input) into l. A bad line fails with
 * -EINVAL after printing "path:line: reason", unless opts->skip_invalid
 * (then the first BW_SKIP_SHOWN bad lines are printed, and a count of the
 * others at the end). A line over BW_LINE_MAX bytes is a bad line, read no
 * further than the bound. Fails closed: a missing or unreadable file, one
 * that is not a regular file or a pipe (a device, a directory, a socket),
 * a read error at any point, a NUL byte (not a text list) or no memory for
 * the entries prints what and why and returns -errno, whatever was read
 * before it. A FIFO is read like a pipe: opening one blocks until it has a
 * writer. One note per file for IPv4-mapped addresses.
 */
int bw_list_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts);

/*
 * The same from an open descriptor (not closed), named name in messages:
 * what bw_list_load() does once the file is open.
 */
int bw_list_load_fd(struct bw_list *l, int fd, const char *name,
		    const struct bw_list_opts *opts);

#endif /* __BW_LIST_LOAD_H */
