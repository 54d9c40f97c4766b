// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The state directory, its pins and the bpf filesystem (the lock: lock.c).
 *
 * A bpffs mounted without options is world-writable (1777): any user may
 * make BW_PIN_ROOT first, or plant a symlink in it, and wait for root to
 * follow it. So BW_PIN_ROOT must be root's (or ours) and 0700, and it is
 * kept once made: then nobody else can create, rename or remove anything
 * under it, or open it to hold its lock. Every path under it is reached
 * from the descriptor of a directory checked when opened (O_NOFOLLOW, then
 * its owner from fstat), never by resolving the path again from "/", so a
 * directory renamed or swapped afterwards cannot redirect us.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include <bpf/bpf.h>

#include "base/log.h"
#include "kernel/pin.h"
#include "kernel/prog.h"

#define BPFFS_MNT "/sys/fs/bpf"
/* BW_PIN_ROOT's own name in BPFFS_MNT: what follows "/sys/fs/bpf/". */
#define ROOT_NAME "bloomwall"
_Static_assert(sizeof(BW_PIN_ROOT) == sizeof(BPFFS_MNT "/" ROOT_NAME),
	       "BW_PIN_ROOT is BPFFS_MNT/ROOT_NAME");
#define REMOVE_IT "(remove it, as root, after checking who made it)"

/* The checked state directory, open for the life of the process. */
static int root_fd = -1;

int bw_pin_path(char *buf, size_t len, const char *iface, const char *name)
{
	int n;

	if (name)
		n = snprintf(buf, len, "%s/%s/%s", BW_PIN_ROOT, iface, name);
	else
		n = snprintf(buf, len, "%s/%s", BW_PIN_ROOT, iface);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

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

/* 0, -ENOENT, or a refusal of name in dirfd, seen without following it. */
static int check_entry(int dirfd, const char *name, const char *path, bool dir)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return check_stat(&st, path, dir);
}

/* The directory name in dirfd, checked: its fd or -errno. */
static int open_dir(int dirfd, const char *name, const char *path)
{
	struct stat st;
	int fd, err;

	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		/* ELOOP: a symlink, ENOTDIR: not a directory; say which. */
		if (err == -ELOOP || err == -ENOTDIR)
			return check_entry(dirfd, name, path, true) ?: err;
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
	fd = open_dir(mnt, ROOT_NAME, BW_PIN_ROOT);
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

bool bw_iface_name_ok(const char *name)
{
	return *name && strlen(name) < IFNAMSIZ && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* BW_PIN_ROOT/iface, checked: its fd or -errno. */
static int open_iface(const char *iface)
{
	char path[256];
	int root, err;

	/* One directory name: never a way out of the state directory. */
	if (!bw_iface_name_ok(iface))
		return -EINVAL;
	err = bw_pin_path(path, sizeof(path), iface, NULL);
	if (err)
		return err;
	root = bw_state_dir_fd(false);
	return root < 0 ? root : open_dir(root, iface, path);
}

/*
 * bpf_obj_get() and bpf_obj_pin() take a path, and resolve it from "/"
 * (libbpf 1.1 has no path_fd, and BPF_F_PATH_FD needs kernel 6.5).
 * "/proc/self/fd/N/name" resolves to the directory we checked, whatever
 * was renamed since. The kernel follows a final symlink, so a caller
 * checks name with check_entry() first; as only root can write in the
 * checked directory, name cannot change between that check and the use.
 */
static int fd_path(char *buf, size_t len, int dirfd, const char *name)
{
	int n = snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool bw_pin_dir_exists(const char *iface)
{
	int fd = open_iface(iface);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int bw_pin_dir_create(const char *iface)
{
	int root = bw_state_dir_fd(true);

	if (root < 0)
		return root;
	if (!bw_iface_name_ok(iface))
		return -EINVAL;
	return mkdirat(root, iface, 0700) ? -errno : 0;
}

static int pin_get(int dirfd, const char *iface, const char *name)
{
	char path[256], at[320];
	int fd, err;

	err = bw_pin_path(path, sizeof(path), iface, name) ?:
	      fd_path(at, sizeof(at), dirfd, name) ?:
	      check_entry(dirfd, name, path, false);
	if (err)
		return err;
	fd = bpf_obj_get(at);
	return fd < 0 ? -errno : fd;
}

int bw_pin_open(const char *iface, const char *name)
{
	int dirfd, fd;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd;
	fd = pin_get(dirfd, iface, name);
	close(dirfd);
	return fd;
}

/* Pins fd as name in dirfd (which must not have it); prints on failure. */
static int pin_at(int fd, int dirfd, const char *iface, const char *name)
{
	char path[256], at[320];
	int err;

	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: fd_path(at, sizeof(at), dirfd, name);
	if (!err && bpf_obj_pin(fd, at))
		err = -errno;
	if (err)
		pr_warn("bloomwall: cannot pin %s/%s/%s: %s\n", BW_PIN_ROOT,
			iface, name, strerror(-err));
	return err;
}

/* Unlinks name in dirfd if it is ours; a missing one is fine. */
static int unpin_at(int dirfd, const char *iface, const char *name)
{
	char path[256];
	int err;

	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: check_entry(dirfd, name, path, false);
	if (!err && unlinkat(dirfd, name, 0))
		err = -errno;
	return err == -ENOENT ? 0 : err;
}

/* Whether name in dirfd already pins the object fd. */
static bool pins_already(int fd, int dirfd, const char *iface, const char *name)
{
	int old = pin_get(dirfd, iface, name);
	bool same;

	if (old < 0)
		return false;
	same = bw_obj_id(old) && bw_obj_id(old) == bw_obj_id(fd);
	close(old);
	return same;
}

int bw_pin_replace(int fd, const char *iface, const char *name)
{
	char tmp[64], path[256];
	int dirfd, err;

	/* bpffs refuses dots in names: "prog_new", not "prog.new". */
	if (snprintf(tmp, sizeof(tmp), "%s_new", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd;
	if (pins_already(fd, dirfd, iface, name)) {
		close(dirfd);
		return 0;
	}
	err = unpin_at(dirfd, iface, tmp) ?: pin_at(fd, dirfd, iface, tmp);
	if (err)
		goto out;
	/* Refuse to replace a name that is not ours (it is not removed). */
	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: check_entry(dirfd, name, path, false);
	if (err == -ENOENT)
		err = 0;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
out:
	close(dirfd);
	return err ?: 1;
}

int bw_pin_remove(const char *iface, const char *name)
{
	char path[256];
	int dirfd, err;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: check_entry(dirfd, name, path, false);
	if (!err && unlinkat(dirfd, name, 0))
		err = -errno;
	close(dirfd);
	if (err == -ENOENT)
		return 0;
	return err ?: 1;
}

/*
 * A directory stream of dirfd's directory on an open file of its own, so
 * that readdir does not move dirfd's offset; NULL with errno set.
 */
static DIR *dir_stream(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	int e = errno;

	if (!d && fd >= 0) {
		close(fd);
		errno = e;
	}
	return d;
}

int bw_unpin_all(const char *iface)
{
	int dirfd, root, err = 0, e;
	struct dirent *de;
	DIR *d;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	d = dir_stream(dirfd);
	if (!d) {
		err = -errno;
		goto out;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		e = unpin_at(dirfd, iface, de->d_name);
		if (e && !err)
			err = e;
	}
	closedir(d);
	/* What is left, refused above, keeps the directory. */
	root = bw_state_dir_fd(false);
	if (!err && root >= 0 && unlinkat(root, iface, AT_REMOVEDIR))
		err = -errno;
out:
	close(dirfd);
	if (err && err != -BW_EUNSAFE)
		pr_warn("bloomwall: cannot remove the pins in %s/%s: %s\n",
			BW_PIN_ROOT, iface, strerror(-err));
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the interface directories under the root, sorted. */
static int list_pinned(char ***names)
{
	struct dirent *de;
	char **v = NULL, **nv;
	int root, n = 0;
	DIR *d;

	*names = NULL;
	root = bw_state_dir_fd(false);
	if (root < 0)
		return root == -ENOENT ? 0 : root;
	d = dir_stream(root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ?: v;
			break;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	return n;
}

int bw_for_each_pinned(int (*fn)(const char *iface, void *ctx), void *ctx)
{
	char **names;
	int i, n, err = 0;

	n = list_pinned(&names);
	for (i = 0; i < n; i++) {
		if (!err)
			err = fn(names[i], ctx);
		free(names[i]);
	}
	free(names);
	return err < 0 ? err : n;
}
