// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The watched files (watch_files.h).
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "base/log.h"
#include "base/output.h"
#include "daemon/watch_files.h"

/*
 * What a change of a file in a watched directory looks like; IN_MODIFY
 * without IN_CLOSE_WRITE yet is a file still being written.
 */
#define WATCH_MASK                                                  \
	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | \
	 IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_MODIFY)

/* A directory went or came: the watches are checked again. */
#define REARM_MASK (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW)
#define DIR_MASK (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)

/* Ends a writing: the writer closed it, or it was renamed or removed. */
#define DONE_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)

static char *parent_of(const char *path)
{
	char *copy = strdup(path), *up;

	if (!copy)
		return NULL;
	up = strdup(dirname(copy));
	free(copy);
	return up;
}

/* The nearest directory at or above dir that exists (stat in st), or NULL. */
static char *nearest_dir(const char *dir, struct stat *st)
{
	char *p = strdup(dir), *up;

	while (p) {
		if (!stat(p, st) && S_ISDIR(st->st_mode))
			return p;
		if (!strcmp(p, "/") || !strcmp(p, ".")) {
			free(p);
			return NULL;
		}
		up = parent_of(p);
		free(p);
		p = up;
	}
	return NULL;
}

static bool wd_in_use(const struct bw_watch_files *fs, int wd)
{
	int i;

	for (i = 0; i < fs->n; i++)
		if (fs->f[i].wd == wd)
			return true;
	return false;
}

static void say_armed(const struct bw_watch_files *fs,
		      const struct bw_watch_file *f, const char *at, bool again)
{
	if (strcmp(at, f->dir))
		printf("%s: the directory %s is not there; watching %s until it is\n",
		       fs->iface, f->dir, at);
	else if (again)
		printf("%s: the directory %s is there again; watching it\n",
		       fs->iface, f->dir);
}

/*
 * Watches f's directory, or its nearest parent while it is not there;
 * true if the watch moved (the file may have changed unseen meanwhile).
 */
static bool rearm_file(struct bw_watch_files *fs, struct bw_watch_file *f)
{
	struct stat st;
	char *at = nearest_dir(f->dir, &st);
	int wd, old = f->wd;
	bool again = f->armed != NULL;

	if (!at)
		return false;
	if (old >= 0 && f->armed && !strcmp(at, f->armed) &&
	    st.st_dev == f->armed_dev && st.st_ino == f->armed_ino) {
		free(at);
		return false;
	}
	wd = inotify_add_watch(fs->ifd, at, WATCH_MASK);
	if (wd < 0) {
		pr_warn("%s: cannot watch the directory %s: %s\n", fs->iface,
			at, strerror(errno));
		free(at);
		return false;
	}
	if (again || strcmp(at, f->dir))
		say_armed(fs, f, at, again);
	free(f->armed);
	f->armed = at;
	f->armed_dev = st.st_dev;
	f->armed_ino = st.st_ino;
	f->wd = wd;
	f->writing = false;
	/* The old directory (moved away) is not this file's any more. */
	if (old >= 0 && old != wd && !wd_in_use(fs, old))
		inotify_rm_watch(fs->ifd, old);
	return true;
}

int bw_watch_files_rearm(struct bw_watch_files *fs)
{
	int i, n = 0;

	for (i = 0; i < fs->n; i++)
		n += rearm_file(fs, &fs->f[i]);
	return n;
}

static int add_file(struct bw_watch_files *fs, const char *path)
{
	struct bw_watch_file *f = &fs->f[fs->n];
	char *copy;

	if (!strcmp(path, "-")) {
		pr_warn("bloomwall watch: standard input ('-') cannot be watched; give list files\n");
		return -BW_EUSAGE;
	}
	f->wd = -1;
	f->path = path;
	f->dir = parent_of(path);
	copy = strdup(path);
	f->base = copy ? strdup(basename(copy)) : NULL;
	free(copy);
	fs->n++;
	if (!f->dir || !f->base)
		return -ENOMEM;
	rearm_file(fs, f);
	if (f->wd < 0)
		return -EIO;
	return 0;
}

int bw_watch_files_init(struct bw_watch_files *fs, const char *iface,
			const char *const *paths, int n)
{
	int i, err = 0;

	memset(fs, 0, sizeof(*fs));
	fs->iface = iface;
	fs->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fs->ifd < 0) {
		err = -errno;
		pr_warn("bloomwall watch: inotify: %s\n", strerror(errno));
		return err;
	}
	fs->f = calloc(n, sizeof(*fs->f));
	if (!fs->f)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++)
		err = add_file(fs, paths[i]);
	return err;
}

void bw_watch_files_free(struct bw_watch_files *fs)
{
	int i;

	for (i = 0; i < fs->n; i++) {
		free(fs->f[i].dir);
		free(fs->f[i].base);
		free(fs->f[i].armed);
	}
	free(fs->f);
	if (fs->ifd >= 0)
		close(fs->ifd);
	fs->f = NULL;
	fs->n = 0;
	fs->ifd = -1;
}

/* A created regular file is open for writing by its creator. */
static bool created_regular(const struct bw_watch_file *f)
{
	struct stat st;

	return !lstat(f->path, &st) && S_ISREG(st.st_mode);
}

/* Notes what ev says of the files; whether it may change one of them. */
static bool on_event(struct bw_watch_files *fs, const struct inotify_event *ev,
		     bool *rearm)
{
	struct bw_watch_file *f;
	bool named = false;
	int i;

	if (ev->mask & REARM_MASK ||
	    (ev->mask & IN_ISDIR && ev->mask & DIR_MASK))
		*rearm = true;
	for (i = 0; ev->len && i < fs->n; i++) {
		f = &fs->f[i];
		if (f->wd != ev->wd || strcmp(f->armed, f->dir) ||
		    strcmp(ev->name, f->base))
			continue;
		named = true;
		if (ev->mask & IN_MODIFY)
			f->writing = true;
		if (ev->mask & IN_CREATE)
			f->writing = created_regular(f);
		if (ev->mask & DONE_MASK)
			f->writing = false;
	}
	/*
	 * Writes to other files of the directory (a log beside the list) are
	 * no change; a rename or a link (a volume's ..data swap) may be.
	 */
	return named || ev->mask != IN_MODIFY;
}

/* Reads at a time: a directory written to without end must not hold us. */
#define EVENT_READS 64

int bw_watch_files_events(struct bw_watch_files *fs)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	bool rearm = false;
	ssize_t n, off;
	int any = 0, reads;

	for (reads = 0; reads < EVENT_READS; reads++) {
		n = read(fs->ifd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (off = 0; off + (ssize_t)sizeof(*ev) <= n;
		     off += sizeof(*ev) + ev->len) {
			ev = (const void *)(buf + off);
			if (on_event(fs, ev, &rearm))
				any = 1;
		}
	}
	if (rearm && bw_watch_files_rearm(fs))
		any = 1;
	return any;
}

const char *bw_watch_files_writing(const struct bw_watch_files *fs)
{
	int i;

	for (i = 0; i < fs->n; i++)
		if (fs->f[i].writing)
			return fs->f[i].path;
	return NULL;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Through symlinks: a volume's ..data swap changes what they reach. */
static void identity(const char *path, struct stat *st)
{
	if (stat(path, st))
		memset(st, 0, sizeof(*st));
}

int bw_watch_files_changed(const struct bw_watch_files *fs, char *what,
			   size_t len)
{
	struct stat st;
	size_t n = 0;
	int i, count = 0;

	for (i = 0; i < fs->n; i++) {
		identity(fs->f[i].path, &st);
		if (same_file(&st, &fs->f[i].st))
			continue;
		if (n < len)
			n += snprintf(what + n, len - n, "%s%s",
				      count ? ", " : "change of ",
				      fs->f[i].path);
		count++;
	}
	return count;
}

void bw_watch_files_forget(struct bw_watch_files *fs)
{
	int i;

	for (i = 0; i < fs->n; i++)
		memset(&fs->f[i].st, 0, sizeof(fs->f[i].st));
}

void bw_watch_files_remember(struct bw_watch_files *fs)
{
	int i;

	for (i = 0; i < fs->n; i++)
		identity(fs->f[i].path, &fs->f[i].st);
}
