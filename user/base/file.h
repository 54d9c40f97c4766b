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

#include <stdbool.h>
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

/*
 * Files the CLI trusts (the trusted public keys, a secret key, an API
 * key): OpenSSH's rule (safe_path() in its misc.c). The file, and every
 * directory of its canonical path up to /, must be owned by root or the
 * caller and writable by neither group nor others: otherwise another user
 * could change what the file holds, or put another file in its place. One
 * exception to ssh's rule: a directory of root's with the sticky bit
 * (/tmp), in which only root and an entry's owner may rename or remove
 * the entry, and that entry is checked itself. A secret file must not be
 * readable by group or others either.
 *
 * fd is the file opened from path (what: "public key file" ...). 0, or
 * -EPERM with why saying which path is wrong and the command that fixes
 * it ("chmod go-w /etc/bloomwall"); -errno when path cannot be resolved.
 */
int bw_file_trusted(int fd, const char *path, const char *what, bool secret,
		    char *why, size_t len);

/* Writes all of buf to fd (again after EINTR): 0 or -errno. */
int bw_write_all(int fd, const void *buf, size_t len);

/* The directory path is in (for a temporary file beside it and its
 * fsync), malloc()ed; NULL without memory. */
char *bw_dir_of(const char *path);

/* fsync()s the directory dir, so that a rename into it lasts: 0 or -errno. */
int bw_fsync_dir(const char *dir);

/*
 * A directory of ours (a state directory): made with mode when missing,
 * and refused when it is a symlink, not a directory (-ENOTDIR), or
 * another user's or writable by others (-EPERM). 0 or -errno.
 */
int bw_own_dir(const char *path, mode_t mode);

#endif /* __BW_FILE_H */
