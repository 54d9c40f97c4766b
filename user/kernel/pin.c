// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pins under the state directory (the directory itself and its bpf
 * filesystem: state_dir.c; the lock: lock.c).
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
#include "base/run_dir.h"
#include "kernel/pin.h"
#include "kernel/prog.h"
#include "kernel/state_dir.h"

int bw_pin_path(char *buf, size_t len, const char *iface, const char *name)
{
	int n;

	if (name)
		n = snprintf(buf, len, "%s/%s/%s", BW_PIN_ROOT, iface, name);
	else
		n = snprintf(buf, len, "%s/%s", BW_PIN_ROOT, iface);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
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
	return root < 0 ? root : bw_state_open_dir(root, iface, path);
}

/*
 * bpf_obj_get() and bpf_obj_pin() take a path, and resolve it from "/"
 * (libbpf 1.1 has no path_fd, and BPF_F_PATH_FD needs kernel 6.5).
 * "/proc/self/fd/N/name" resolves to the directory we checked, whatever
 * was renamed since. The kernel follows a final symlink, so a caller
 * checks name with bw_state_check_entry() first; as only root can write in the
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
	      bw_state_check_entry(dirfd, name, path, false);
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

/* bw_pin_remove() in the checked directory dirfd. */
static int remove_at(int dirfd, const char *iface, const char *name)
{
	char path[256];
	int err;

	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: bw_state_check_entry(dirfd, name, path, false);
	if (!err && unlinkat(dirfd, name, 0))
		err = -errno;
	if (err == -ENOENT)
		return 0;
	return err ?: 1;
}

/* Unlinks name in dirfd if it is ours; a missing one is fine. */
static int unpin_at(int dirfd, const char *iface, const char *name)
{
	int err = remove_at(dirfd, iface, name);

	return err < 0 ? err : 0;
}

/* Whether name in dirfd already pins the object fd (id: its, 0: read). */
static bool pins_already(int fd, __u32 id, int dirfd, const char *iface,
			 const char *name)
{
	int old = pin_get(dirfd, iface, name);
	bool same;

	if (old < 0)
		return false;
	id = id ?: bw_obj_id(fd);
	same = id && bw_obj_id(old) == id;
	close(old);
	return same;
}

/* bw_pin_replace() in the checked directory dirfd; id: fd's (0: read). */
static int replace_at(int dirfd, int fd, __u32 id, const char *iface,
		      const char *name)
{
	char tmp[64], path[256];
	int err;

	/* bpffs refuses dots in names: "prog_new", not "prog.new". */
	if (snprintf(tmp, sizeof(tmp), "%s_new", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (pins_already(fd, id, dirfd, iface, name))
		return 0;
	err = unpin_at(dirfd, iface, tmp) ?: pin_at(fd, dirfd, iface, tmp);
	if (err)
		return err;
	/* Refuse to replace a name that is not ours (it is not removed). */
	err = bw_pin_path(path, sizeof(path), iface, name)
		      ?: bw_state_check_entry(dirfd, name, path, false);
	if (err == -ENOENT)
		err = 0;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err ?: 1;
}

int bw_pin_replace(int fd, const char *iface, const char *name)
{
	int dirfd, err;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd;
	err = replace_at(dirfd, fd, 0, iface, name);
	close(dirfd);
	return err;
}

int bw_pin_remove(const char *iface, const char *name)
{
	int dirfd, err;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd == -ENOENT ? 0 : dirfd;
	err = remove_at(dirfd, iface, name);
	close(dirfd);
	return err;
}

int bw_pins_set(const char *iface, const struct bw_pin_set *p, size_t n)
{
	int dirfd, ret, changed = 0;
	size_t i;

	dirfd = open_iface(iface);
	if (dirfd < 0)
		return dirfd;
	for (i = 0; i < n; i++) {
		ret = p[i].fd < 0 ? remove_at(dirfd, iface, p[i].name)
				  : replace_at(dirfd, p[i].fd, p[i].id, iface,
					       p[i].name);
		if (ret < 0) {
			changed = ret;
			break;
		}
		changed += ret;
	}
	close(dirfd);
	return changed;
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
		/* watch:IFACE is a watch's lock (lock.h), no interface. */
		if (de->d_name[0] == '.' || de->d_type != DT_DIR ||
		    strchr(de->d_name, ':'))
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
