// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The state directory BW_PIN_ROOT and the bpf filesystem it is on: made,
 * checked (root's or ours, 0700, no symlink followed) and kept open; why
 * so strict: pin.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "bloomwall.h"
#include "base/log.h"
#include "kernel/state_dir.h"

#define BPFFS_MNT "/sys/fs/bpf"
/* BW_PIN_ROOT's own name in BPFFS_MNT: what follows "/sys/fs/bpf/". */
#define ROOT_NAME "bloomwall"
_Static_assert(sizeof(BW_PIN_ROOT) == sizeof(BPFFS_MNT "/" ROOT_NAME),
	       "BW_PIN_ROOT is BPFFS_MNT/ROOT_NAME");
#define REMOVE_IT "(remove it, as root, after checking who made it)"

/* The checked state directory, open for the life of the process. */
static int root_fd = -1;

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int bw_bpffs_ensure(void)
{
	if (is_bpffs(BPFFS_MNT))
		return 0;
	if (mount("bpf", BPFFS_MNT, "bpf", 0, "mode=0700")) {
		int err = -errno;

		pr_warn("bloomwall: no bpf filesystem at %s and mounting one failed: %s. Mount it with 'mount -t bpf -o mode=0700 bpf %s'.\n",
			BPFFS_MNT, strerror(-err), BPFFS_MNT);
		return err;
	}
	/* Under 'ip netns exec' this mount, and the pins, end with the command. */
	pr_warn("note: mounted a bpf filesystem at %s; bloomwall's pins live as long as this mount\n",
		BPFFS_MNT);
	return 0;
}

/* Says why path is refused, once per path: verbs look at a pin many times. */
static int refuse(const char *path, const char *fmt, ...)
{
	static char said[8][256];
	static unsigned int nsaid;
	char why[192];
	unsigned int i;
	va_list ap;

	for (i = 0; i < nsaid && i < 8; i++)
		if (!strcmp(said[i], path))
			return -BW_EUNSAFE;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_warn("bloomwall: %s %s\n", path, why);
	snprintf(said[nsaid++ % 8], sizeof(said[0]), "%s", path);
	return -BW_EUNSAFE;
}

bool bw_uid_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* 0 when st, of path, is a directory (dir) or a pin that we may use. */
static int check_stat(const struct stat *st, const char *path, bool dir)
{
	if (S_ISLNK(st->st_mode))
		return refuse(path,
			      "is a symlink; refusing to follow it " REMOVE_IT);
	if (!bw_uid_trusted(st->st_uid))
		return refuse(
			path,
			"is owned by uid %u, not root; refusing to use it " REMOVE_IT,
			st->st_uid);
	/* A pin on bpffs is a regular inode. */
	if (dir != !!S_ISDIR(st->st_mode) || (!dir && !S_ISREG(st->st_mode)))
		return refuse(path,
			      "is not a %s; refusing to use it " REMOVE_IT,
			      dir ? "directory" : "bpf pin");
	return 0;
}

int bw_state_check_entry(int dirfd, const char *name, const char *path,
			 bool dir)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return check_stat(&st, path, dir);
}

int bw_state_open_dir(int dirfd, const char *name, const char *path)
{
	struct stat st;
	int fd, err;

	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		/* ELOOP: a symlink, ENOTDIR: not a directory; say which. */
		if (err == -ELOOP || err == -ENOTDIR)
			return bw_state_check_entry(dirfd, name, path, true)
				       ?: err;
		return err;
	}
	err = fstat(fd, &st) ? -errno : check_stat(&st, path, true);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Only root (or we) may enter the state directory: make it 0700. */
static int tighten_root(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!(st.st_mode & 077))
		return 0;
	if (st.st_uid != geteuid() || fchmod(fd, 0700))
		return refuse(
			BW_PIN_ROOT,
			"is mode %04o, open to other users; refusing to use it (make it 0700 as root, after checking what is in it)",
			st.st_mode & 07777);
	pr_warn("note: %s was mode %04o, open to other users; made it 0700\n",
		BW_PIN_ROOT, st.st_mode & 07777);
	return 0;
}

/* Pins are reached through /proc/self/fd (see fd_path()): is it there? */
static int check_proc(int fd)
{
	char at[64];
	int err;

	snprintf(at, sizeof(at), "/proc/self/fd/%d/", fd);
	if (!access(at, F_OK))
		return 0;
	err = -errno;
	pr_warn("bloomwall: cannot reach %s through %s: %s (is /proc mounted?)\n",
		BW_PIN_ROOT, at, strerror(-err));
	return err;
}

int bw_state_dir_fd(bool create)
{
	int mnt, fd, err;

	if (root_fd >= 0)
		return root_fd;
	if (create) {
		err = bw_bpffs_ensure();
		if (err)
			return err;
	}
	mnt = open(BPFFS_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		return -errno;
	/* Made 0700 from the start: never open to others, not even briefly. */
	if (create && mkdirat(mnt, ROOT_NAME, 0700) && errno != EEXIST) {
		err = -errno;
		close(mnt);
		pr_warn("bloomwall: cannot create %s: %s\n", BW_PIN_ROOT,
			bw_errno_hint(err));
		return err;
	}
	fd = bw_state_open_dir(mnt, ROOT_NAME, BW_PIN_ROOT);
	close(mnt);
	if (fd < 0)
		return fd;
	err = tighten_root(fd) ?: check_proc(fd);
	if (err) {
		close(fd);
		return err;
	}
	root_fd = fd;
	return fd;
}
