/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The cache of list sources given by URL: each source's last good copy,
 * unpacked, in STATE/lists/ (the state directory, --state-dir, default
 * /var/lib/bloomwall), named by the URL's hash and its last path part
 * ("3f2a9c0d1e2b4a5c-drop_v4.json"). That file IS the list the filter is
 * built from: a watch watches it as any list file, and a new copy moved
 * into place rebuilds as an edited list does. Beside it, NAME.meta (JSON)
 * says where it came from and how to ask again: the URL, the ETag and
 * Last-Modified of the answer that gave it, when it came, when the
 * server last confirmed it, its bytes and entries. Both are written to a
 * temporary file, fsync'd, renamed into place, the directory fsync'd:
 * a crash leaves the old copy or the new one.
 */
#ifndef __BW_SRC_CACHE_H
#define __BW_SRC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define BW_SRC_STATE_DIR "/var/lib/bloomwall"

struct bw_src_meta {
	char url[2048];
	char etag[256];
	__s64 last_modified; /* of the answer that gave the copy; -1: none */
	__s64 fetched;	     /* when the copy came (Unix s); 0: no copy */
	__s64 checked;	     /* when a server last confirmed it (304 too) */
	__u64 bytes;	     /* the copy's, unpacked */
	__u64 entries;	     /* what it holds, as the lists' reader counts */
	char pack[8];	     /* how it came: plain, gzip, xz, bzip2 */
};

/* Whether s names a source by URL (http:// or https://). */
bool bw_src_is_url(const char *s);

/*
 * The copy's path for url in state_dir (NULL: BW_SRC_STATE_DIR) into
 * buf: 0, or -ENAMETOOLONG.
 */
int bw_src_path(const char *state_dir, const char *url, char *buf, size_t len);

/* Makes STATE and STATE/lists when missing (base/file.h's bw_own_dir). */
int bw_src_dir_make(const char *state_dir);

/* The meta of the copy at path: 0, -ENOENT (none), -EINVAL (unreadable). */
int bw_src_meta_read(const char *path, struct bw_src_meta *m);

/* Writes it atomically beside the copy at path: 0 or -errno. */
int bw_src_meta_write(const char *path, const struct bw_src_meta *m);

/*
 * A temporary file untouched this long (seconds) is a killed fetch's:
 * twice the longest --timeout a fetch can be given (86400 s).
 */
#define BW_SRC_TMP_STALE (2 * 86400)

/*
 * A new temporary file beside path, PATH.tmp.XXXXXX (its name into tmp,
 * room for 4096 bytes), opened read-write, 0644: an fd or -errno. Each
 * its own: two fetches of one source (two watches sharing a state dir)
 * never write into, nor rename, the other's; a name planted there is
 * never opened.
 */
int bw_src_tmp_open(const char *path, char *tmp, size_t len);

/*
 * Removes the temporary files of the copy at path and of its meta
 * (PATH.tmp.XXXXXX, PATH.meta.tmp.XXXXXX) that a killed fetch left: those
 * not written to for BW_SRC_TMP_STALE seconds, so that no live fetch
 * loses its file. Regular files of those names only; best effort (what
 * cannot be removed stays for the next fetch). Each fetch begins with it,
 * whatever the answer.
 */
void bw_src_sweep(const char *path);

/* Renames tmp to path, both fsync'd with their directory: 0 or -errno. */
int bw_src_commit(const char *tmp, const char *path);

/*
 * The URL a list file is the copy of (a file of a cache, with its meta),
 * into url: false for any other file. Provenance names the URL with it.
 */
bool bw_src_url_of(const char *path, char *url, size_t len);

#endif /* __BW_SRC_CACHE_H */
