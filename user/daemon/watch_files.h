/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The files a watch keeps its filter built from, seen through inotify on
 * their directories (watch.h says why the directories): which changed
 * since the last rebuild, which are still being written, and the watches
 * re-armed when a directory goes away or comes back.
 */
#ifndef __BW_WATCH_FILES_H
#define __BW_WATCH_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct bw_watch_file {
	const char *path;
	char *dir;   /* the directory it is in, */
	char *base;  /* and its name there */
	char *armed; /* the directory watched: dir, or its nearest parent */
	dev_t armed_dev;
	ino_t armed_ino;
	int wd;		/* -1: none */
	struct stat st; /* as of the last rebuild; st_ino 0: none */
	bool writing;	/* written to, not closed yet */
};

struct bw_watch_files {
	const char *iface; /* for the messages */
	struct bw_watch_file *f;
	int n;
	int ifd; /* inotify, non-blocking */
};

/*
 * Watches the directories of paths[n] ('-' refused). 0 or -errno (said);
 * free with bw_watch_files_free() whatever the return.
 */
int bw_watch_files_init(struct bw_watch_files *fs, const char *iface,
			const char *const *paths, int n);
void bw_watch_files_free(struct bw_watch_files *fs);

/*
 * Reads the pending events (a bounded number): notes the files written to
 * and closed, and re-arms the watches of directories that went away or
 * came back (said). 1 if an event may have changed a file, else 0.
 */
int bw_watch_files_events(struct bw_watch_files *fs);

/*
 * Re-arms what needs it, as an event would (the tick calls it): how many
 * watches moved (a file may have changed unseen meanwhile).
 */
int bw_watch_files_rearm(struct bw_watch_files *fs);

/* The first file written to and not closed yet, or NULL. */
const char *bw_watch_files_writing(const struct bw_watch_files *fs);

/*
 * The files that changed since the last bw_watch_files_remember(), named
 * in what ("change of a, b"); how many.
 */
int bw_watch_files_changed(const struct bw_watch_files *fs, char *what,
			   size_t len);

/* Takes the files' identities (through symlinks) as they are now. */
void bw_watch_files_remember(struct bw_watch_files *fs);

/* Forgets them: every file counts as changed (a rebuild to try again). */
void bw_watch_files_forget(struct bw_watch_files *fs);

#endif /* __BW_WATCH_FILES_H */
