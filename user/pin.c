// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Pin paths, the bpf filesystem and the lock on the pin root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include <bpf/bpf.h>

#include "cli.h"
#include "log.h"
#include "lpm.h"
#include "pin.h"

#define BPFFS_MNT "/sys/fs/bpf"

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

		pr_warn("bloomwall: no bpf filesystem at %s and mounting one failed: %s. Mount it with 'mount -t bpf bpf %s'.\n",
			BPFFS_MNT, strerror(-err), BPFFS_MNT);
		return err;
	}
	/* Under 'ip netns exec' this mount, and the pins, end with the command. */
	pr_warn("note: mounted a bpf filesystem at %s; bloomwall's pins live as long as this mount\n",
		BPFFS_MNT);
	return 0;
}

/* True when fd is still the directory at BW_PIN_ROOT (not a removed one). */
static bool lock_is_current(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(BW_PIN_ROOT, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int bw_lock_acquire(void)
{
	int fd, err, tries;

	err = bw_bpffs_ensure();
	if (err)
		return err;
	/* The last release removes an empty root: retry if we locked that one. */
	for (tries = 0; tries < 10; tries++) {
		if (mkdir(BW_PIN_ROOT, 0700) && errno != EEXIST)
			goto fail;
		fd = open(BW_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			goto fail;
		}
		if (flock(fd, LOCK_EX)) {
			close(fd);
			goto fail;
		}
		if (lock_is_current(fd))
			return fd;
		close(fd);
	}
	errno = EAGAIN;
fail:
	err = -errno;
	pr_warn("bloomwall: cannot lock %s: %s\n", BW_PIN_ROOT, strerror(-err));
	return err;
}

void bw_lock_release(int fd)
{
	if (fd < 0)
		return;
	/* Fails with ENOTEMPTY while any interface is attached: fine. */
	rmdir(BW_PIN_ROOT);
	close(fd);
}

bool bw_pin_dir_exists(const char *iface)
{
	char path[256];
	struct stat st;

	if (bw_pin_path(path, sizeof(path), iface, NULL))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool bw_pin_exists(const char *iface, const char *name)
{
	char path[256];

	return !bw_pin_path(path, sizeof(path), iface, name) &&
	       !access(path, F_OK);
}

int bw_pin_dir_create(const char *iface)
{
	char path[256];
	int err;

	err = bw_pin_path(path, sizeof(path), iface, NULL);
	if (err)
		return err;
	if (mkdir(path, 0700))
		return -errno;
	return 0;
}

int bw_pin_open(const char *iface, const char *name)
{
	char path[256];
	int fd, err;

	err = bw_pin_path(path, sizeof(path), iface, name);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	if (fd < 0 && errno == ENOENT && !strcmp(name ?: "", BW_PIN_FILTER_ID))
		return bw_pin_open(iface, BW_PIN_FILTER_ID_OLD);
	if (fd < 0)
		return -errno;
	/* Tries of an older key layout would silently never match. */
	err = name ? bw_lpm_pin_check(fd, iface, name) : 0;
	if (err)
		close(fd);
	return err ?: fd;
}

int bw_pin_fd(int fd, const char *iface, const char *name)
{
	char path[256];
	int err;

	err = bw_pin_path(path, sizeof(path), iface, name);
	if (err)
		return err;
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		pr_warn("bloomwall: cannot pin %s: %s\n", path, strerror(-err));
		return err;
	}
	return 0;
}

int bw_unpin_all(const char *iface)
{
	char dir[256], path[512];
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (bw_pin_path(dir, sizeof(dir), iface, NULL))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	if (err)
		pr_warn("bloomwall: cannot remove the pins in %s: %s\n", dir,
			strerror(-err));
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
	int n = 0;
	DIR *d;

	*names = NULL;
	d = opendir(BW_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
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
