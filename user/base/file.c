// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Regular files only, for reading whole and for replacing (file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
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

/* Who, besides the owner, may write a file of mode. */
static const char *writers(mode_t mode)
{
	if ((mode & 022) == 022)
		return "group and others";
	return mode & 020 ? "its group" : "others";
}

/* The owner of a path that is neither root nor the caller: -EPERM, why. */
static int bad_owner(const char *p, const char *what, const struct stat *st,
		     bool is_file, char *why, size_t len)
{
	uid_t me = geteuid();
	char fix[32];

	snprintf(fix, sizeof(fix), me ? "chown %u" : "chown root",
		 (unsigned int)me);
	if (is_file)
		snprintf(
			why, len,
			"the %s is owned by uid %u, not by root or the caller: that user could change it (%s %s)",
			what, (unsigned int)st->st_uid, fix, p);
	else
		snprintf(
			why, len,
			"the directory %s above it is owned by uid %u, not by root or the caller: that user could replace the %s (%s %s)",
			p, (unsigned int)st->st_uid, what, fix, p);
	return -EPERM;
}

/*
 * Whether st, of path p (the file itself, or a directory above it), lets
 * only root and the caller change what the file is: 0, or -EPERM, why.
 */
static int judge_trusted(const char *p, const char *what, const struct stat *st,
			 bool is_file, bool secret, char *why, size_t len)
{
	mode_t m = st->st_mode & 07777;

	if (st->st_uid != 0 && st->st_uid != geteuid())
		return bad_owner(p, what, st, is_file, why, len);
	if (is_file && secret && (m & 077)) {
		snprintf(
			why, len,
			"the %s is open to group or others (mode %04o): chmod 600 %s",
			what, (unsigned int)m, p);
		return -EPERM;
	}
	if (!(m & 022) || (!is_file && !st->st_uid && (m & S_ISVTX)))
		return 0;
	if (is_file)
		snprintf(
			why, len,
			"the %s is writable by %s (mode %04o): another user could change it (chmod go-w %s)",
			what, writers(m), (unsigned int)m, p);
	else
		snprintf(
			why, len,
			"the directory %s above it is writable by %s (mode %04o): another user could replace the %s (chmod go-w %s)",
			p, writers(m), (unsigned int)m, what, p);
	return -EPERM;
}

int bw_file_trusted(int fd, const char *path, const char *what, bool secret,
		    char *why, size_t len)
{
	struct stat fst, st;
	char *real, *slash;
	int err;

	real = realpath(path, NULL);
	if (!real || fstat(fd, &fst) || stat(real, &st)) {
		err = -errno;
		snprintf(why, len, "cannot resolve its path: %s",
			 strerror(-err));
		free(real);
		return err;
	}
	/* What is checked is what was opened, not what the path is now. */
	if (st.st_dev != fst.st_dev || st.st_ino != fst.st_ino) {
		snprintf(why, len,
			 "%s was replaced while it was read: try again", real);
		free(real);
		return -EPERM;
	}
	err = judge_trusted(path, what, &fst, true, secret, why, len);
	/* Each directory of the canonical path, walking up to /. */
	while (!err && (slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';
		if (stat(real, &st)) {
			err = -errno;
			snprintf(why, len, "cannot check %s: %s", real,
				 strerror(-err));
		} else {
			err = judge_trusted(real, what, &st, false, false, why,
					    len);
		}
		if (!strcmp(real, "/"))
			break;
	}
	free(real);
	return err;
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

int bw_own_dir(const char *path, mode_t mode)
{
	struct stat st;

	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

int bw_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}
