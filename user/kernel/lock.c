// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The lock that keeps two mutating commands from interleaving, and what a
 * command that must wait for it says about its holder.
 *
 * It is a flock on the state directory itself, not on a file elsewhere:
 * bpffs holds no regular files, the directory is root's and 0700 (another
 * user cannot open it, so cannot hold the lock), and the lock is then
 * exactly as wide as the state it guards: one per bpffs, so private
 * namespaces with their own bpffs (containers, the e2e runner) do not wait
 * for each other, and two that share one do. The holder is not written
 * down anywhere: the kernel keeps it, in /proc/locks (pid) and
 * /proc/PID/cmdline (verb and arguments), which cannot go stale when a
 * holder is killed.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/log.h"
#include "base/run_dir.h"
#include "kernel/lock.h"
#include "kernel/pin.h"

pid_t bw_locks_holder(FILE *f, dev_t dev, ino_t ino)
{
	unsigned int maj, min;
	char type[16], line[256];
	unsigned long i;
	int pid;

	while (fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 27052 fe:00:10953649 0 EOF"; a
		 * waiter's line has "->" where the type is. */
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &pid,
			   &maj, &min, &i) == 5 &&
		    !strcmp(type, "FLOCK") && makedev(maj, min) == dev &&
		    i == ino)
			return pid > 0 ? pid : 0;
	}
	return 0;
}

void bw_cmdline_text(char *buf, size_t len, const char *raw, size_t n)
{
	size_t i, o = 0, start = 0;
	char c[5];
	const char *slash;

	/* argv[0] without its directory: "bloomwall", not a build path. */
	slash = memrchr(raw, '/', strnlen(raw, n));
	if (slash)
		start = slash + 1 - raw;
	while (n && !raw[n - 1])
		n--;
	for (i = start; i < n && len; i++) {
		if (!raw[i])
			snprintf(c, sizeof(c), " ");
		else if (isprint((unsigned char)raw[i]))
			snprintf(c, sizeof(c), "%c", raw[i]);
		else
			snprintf(c, sizeof(c), "\\x%02x",
				 (unsigned char)raw[i]);
		if (o + strlen(c) >= len)
			break;
		memcpy(buf + o, c, strlen(c));
		o += strlen(c);
	}
	if (len)
		buf[o] = '\0';
}

/* The pid holding the flock on fd's directory, or 0 if none is visible. */
static pid_t lock_holder(int fd)
{
	struct stat st;
	pid_t pid = 0;
	FILE *f;

	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	if (!fstat(fd, &st))
		pid = bw_locks_holder(f, st.st_dev, st.st_ino);
	fclose(f);
	return pid;
}

/* The holder's command line as one printable line, "?" if unreadable. */
static void holder_cmdline(pid_t pid, char *text, size_t len)
{
	char path[64], raw[512];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw));
		close(fd);
	}
	bw_cmdline_text(text, len, raw, n > 0 ? n : 0);
	if (!*text)
		snprintf(text, len, "?");
}

/* The lock this process holds, for bw_lock_held(). */
static int held_fd = -1;

int bw_lock_held(void)
{
	return held_fd;
}

/* Says who holds the lock; refuses to wait for a holder we do not trust. */
static int say_holder(pid_t pid)
{
	char path[64], text[128];
	struct stat st;

	if (!pid) {
		pr_warn("bloomwall: waiting for the lock on %s, held by a process not visible here\n",
			BW_PIN_ROOT);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d", pid);
	/* /proc/PID is owned by the process's effective uid. */
	if (!stat(path, &st) && !bw_uid_trusted(st.st_uid)) {
		pr_warn("bloomwall: the lock on %s is held by pid %d (uid %u), not root; refusing to wait for it (it was opened while %s was open to other users; end that process)\n",
			BW_PIN_ROOT, pid, st.st_uid, BW_PIN_ROOT);
		return -BW_EUNSAFE;
	}
	holder_cmdline(pid, text, sizeof(text));
	pr_warn("bloomwall: waiting for the lock held by pid %d (%s)\n", pid,
		text);
	return 0;
}

int bw_lock_acquire(void)
{
	int root, fd, err, tries;
	pid_t pid;

	root = bw_state_dir_fd(true);
	if (root < 0)
		return root;
	/* Its own open file: a flock belongs to one, and root_fd stays. */
	fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	/* No holder in /proc/locks: it may have just let go; try again. */
	for (tries = 0;; tries++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return held_fd = fd;
		if (errno != EWOULDBLOCK)
			goto fail;
		pid = lock_holder(fd);
		if (pid || tries == 3)
			break;
	}
	err = say_holder(pid);
	if (err) {
		close(fd);
		return err;
	}
	if (!flock(fd, LOCK_EX))
		return held_fd = fd;
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	pr_warn("bloomwall: cannot lock %s: %s\n", BW_PIN_ROOT, strerror(-err));
	return err;
}

int bw_lock_try(void)
{
	int root, fd, err;

	root = bw_state_dir_fd(true);
	if (root < 0)
		return root;
	fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return held_fd = fd;
	err = errno == EWOULDBLOCK ? -EAGAIN : -errno;
	close(fd);
	return err;
}

/* The directory stays: it holds the lock, and made anew it could be anyone's. */
void bw_lock_release(int fd)
{
	if (fd >= 0 && fd == held_fd)
		held_fd = -1;
	if (fd >= 0)
		close(fd);
}

/* BW_PIN_ROOT/iface, checked; made when missing (a program may run unpinned). */
static int open_iface_dir(const char *iface)
{
	char path[256];
	int root, fd, err;

	root = bw_state_dir_fd(true);
	if (root < 0)
		return root;
	err = bw_pin_path(path, sizeof(path), iface, NULL);
	if (err)
		return err;
	fd = bw_state_open_dir(root, iface, path);
	if (fd != -ENOENT)
		return fd;
	err = bw_pin_dir_create(iface);
	if (err && err != -EEXIST)
		return err;
	return bw_state_open_dir(root, iface, path);
}

/*
 * The exclusive flock on fd, not waiting: 0, or -EALREADY with the
 * holder named in who (its pid and command line), or another -errno.
 */
static int try_flock(int fd, char *who, size_t len)
{
	char text[128];
	pid_t pid = 0;
	int err, tries;

	/* No holder in /proc/locks: it may have just let go; try again. */
	for (tries = 0; !pid && tries < 3; tries++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		err = -errno;
		if (err != -EWOULDBLOCK)
			return err;
		pid = lock_holder(fd);
	}
	if (pid) {
		holder_cmdline(pid, text, sizeof(text));
		snprintf(who, len, "pid %d (%.100s)", pid, text);
	} else {
		snprintf(who, len, "a process not visible here");
	}
	return -EALREADY;
}

/* What a lock of one interface's is for, in its messages. */
struct lock_role {
	const char *busy; /* "IFACE: BUSY, WHO HOLDS IT..." */
	const char *why;  /* what follows the holder */
	const char *what; /* "cannot WHAT (PATH): ..." */
};

/* fd (path's, or -errno) flocked: fd, or -errno with it closed and said. */
static int lock_dir(const char *iface, int fd, const char *path,
		    const struct lock_role *role)
{
	char who[160];
	int err = fd < 0 ? fd : try_flock(fd, who, sizeof(who));

	if (!err)
		return fd;
	if (fd >= 0)
		close(fd);
	if (err == -EALREADY)
		pr_warn("%s: %s, %s%s\n", iface, role->busy, who, role->why);
	else if (err != -BW_EUNSAFE)
		pr_warn("%s: cannot %s (%s): %s\n", iface, role->what, path,
			strerror(-err));
	return err;
}

int bw_lock_log_reader(const char *iface)
{
	static const struct lock_role role = {
		.busy = "the drop log already has a reader",
		.why = "; a ring buffer has one reader (two would garble each other's events): end that one first",
		.what = "lock the drop log for its reader",
	};
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", BW_PIN_ROOT, iface);
	return lock_dir(iface, open_iface_dir(iface), path, &role);
}

/*
 * BW_PIN_ROOT/watch:IFACE, made when missing (no interface name holds a
 * ':', and detach, which removes IFACE's directory, leaves it); removed by
 * whoever holds its lock, when it lets go (bw_lock_watch_release) or finds
 * it stale (bw_lock_watch_clear).
 */
static int open_watch_dir(const char *iface, char *name, size_t len, int *root)
{
	char path[320];

	*root = bw_state_dir_fd(true);
	if (*root < 0)
		return *root;
	if (!bw_iface_name_ok(iface))
		return -EINVAL;
	snprintf(name, len, "watch:%s", iface);
	snprintf(path, sizeof(path), "%s/%s", BW_PIN_ROOT, name);
	if (mkdirat(*root, name, 0700) && errno != EEXIST)
		return -errno;
	return bw_state_open_dir(*root, name, path);
}

/*
 * Whether fd is still the directory name names in root: one removed by
 * the holder that let go before our flock came through is no lock (a
 * watch starting beside us would take the new one).
 */
static bool still_named(int root, const char *name, int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) &&
	       !fstatat(root, name, &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int bw_lock_watch_holder(const char *iface)
{
	char name[64], path[320];
	int root, fd;
	pid_t pid;

	root = bw_state_dir_fd(false);
	if (root < 0)
		return root == -ENOENT ? 0 : root;
	if (!bw_iface_name_ok(iface))
		return -EINVAL;
	snprintf(name, sizeof(name), "watch:%s", iface);
	snprintf(path, sizeof(path), "%s/%s", BW_PIN_ROOT, name);
	fd = bw_state_open_dir(root, name, path);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	pid = lock_holder(fd);
	close(fd);
	return (int)pid;
}

int bw_lock_watch(const char *iface)
{
	static const struct lock_role role = {
		.busy = "another watch keeps its filter",
		.why = ": one watch an interface (two would each swap in their own lists)",
		.what = "take the watch's lock",
	};
	char name[64], path[320];
	int fd, root, tries;

	snprintf(path, sizeof(path), "%s/watch:%s", BW_PIN_ROOT, iface);
	/* A directory removed under our flock is taken again, made anew. */
	for (tries = 0; tries < 8; tries++) {
		fd = lock_dir(iface,
			      open_watch_dir(iface, name, sizeof(name), &root),
			      path, &role);
		if (fd < 0 || still_named(root, name, fd))
			return fd;
		close(fd);
	}
	pr_warn("%s: cannot %s (%s): it keeps being removed\n", iface,
		role.what, path);
	return -EAGAIN;
}

/* Removes the watch directory fd (its lock held) names, then lets go. */
static void remove_locked(const char *iface, int root, const char *name, int fd)
{
	if (still_named(root, name, fd) && unlinkat(root, name, AT_REMOVEDIR) &&
	    errno != ENOENT && errno != ENOTEMPTY)
		pr_warn("%s: cannot remove %s/%s: %s\n", iface, BW_PIN_ROOT,
			name, strerror(errno));
	close(fd);
}

void bw_lock_watch_release(const char *iface, int fd)
{
	char name[64];
	int root;

	if (fd < 0)
		return;
	root = bw_state_dir_fd(false);
	snprintf(name, sizeof(name), "watch:%s", iface);
	if (root < 0) {
		close(fd);
		return;
	}
	remove_locked(iface, root, name, fd);
}

void bw_lock_watch_clear(const char *iface)
{
	char name[64], path[320];
	int root, fd;

	root = bw_state_dir_fd(false);
	if (root < 0 || !bw_iface_name_ok(iface))
		return;
	snprintf(name, sizeof(name), "watch:%s", iface);
	snprintf(path, sizeof(path), "%s/%s", BW_PIN_ROOT, name);
	fd = bw_state_open_dir(root, name, path);
	if (fd < 0) {
		/* No directory, no watch: what one left in BW_STATE_DIR goes. */
		if (fd == -ENOENT)
			bw_run_clear(iface);
		return;
	}
	/* A watch holds it (ours too, through another open): it stays. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return;
	}
	bw_run_clear(iface);
	remove_locked(iface, root, name, fd);
}
