/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Files the CLI reads whole or replaces (images, the metrics file): only
 * regular ones. A FIFO would block open() until a writer comes, a device
 * can be endless or act on open, and replacing a FIFO or a device node by
 * renaming a new file over it (as an atomic write does) destroys what the
 * host had there: /dev/null, as root.
 */
#ifndef __BW_FILE_H
#define __BW_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/* "FIFO", "character device", "directory" ...: what a message calls it. */
const char *bw_file_kind(mode_t mode);

/*
 * Opens path for reading if it is a regular file, checked before the open
 * (no FIFO or device is opened) and again on what was opened, which is
 * opened without blocking should the path change in between. The fd (st
 * its fstat), or -errno after saying, naming path and what ("image"):
 * -EINVAL for another kind of file, -EISDIR for a directory.
 */
int bw_open_regular(const char *path, const char *what, struct stat *st);

/*
 * Whether a new file may be renamed over path: yes (0) when nothing is
 * there or a regular file is (a symlink is followed: one to a regular file
 * is replaced by the new file, the link itself, not its target). Anything
 * else is refused, saying what it is: -EEXIST (-EISDIR for a directory).
 */
int bw_check_replaceable(const char *path, const char *what);

/* Writes all of buf to fd (again after EINTR): 0 or -errno. */
int bw_write_all(int fd, const void *buf, size_t len);

/* The directory path is in (for a temporary file beside it and its
 * fsync), malloc()ed; NULL without memory. */
char *bw_dir_of(const char *path);

#endif /* __BW_FILE_H */
