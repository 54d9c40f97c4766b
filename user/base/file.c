// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Regular files only, for reading whole and for replacing (file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"

const char *bw_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "regular file";
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISFIFO(mode))
		return "FIFO";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISLNK(mode))
		return "symbolic link";
	return "unknown file type";
}

static int refuse_kind(const char *path, const char *what, mode_t mode)
{
	pr_warn("%s: not a regular file (a %s): the %s must be one\n", path,
		bw_file_kind(mode), what);
	return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

int bw_open_regular(const char *path, const char *what, struct stat *st)
{
	int fd, err;

	if (stat(path, st)) {
		err = -errno;
		pr_warn("%s: cannot open the %s: %s\n", path, what,
			strerror(-err));
		return err;
	}
	if (!S_ISREG(st->st_mode))
		return refuse_kind(path, what, st->st_mode);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot open the %s: %s\n", path, what,
			strerror(-err));
		return err;
	}
	if (fstat(fd, st)) {
		err = -errno;
		pr_warn("%s: cannot open the %s: %s\n", path, what,
			strerror(-err));
		close(fd);
		return err;
	}
	if (!S_ISREG(st->st_mode)) {
		err = refuse_kind(path, what, st->st_mode);
		close(fd);
		return err;
	}
	return fd;
}

int bw_check_replaceable(const char *path, const char *what)
{
	struct stat st;

	/* Nothing there, or a dangling link: the write that follows says. */
	if (stat(path, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return 0;
	pr_warn("%s: is a %s, not a regular file: refusing to replace it with the %s\n",
		path, bw_file_kind(st.st_mode), what);
	return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
}

int bw_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *bw_dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}
