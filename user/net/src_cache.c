// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The list sources' cache (src_cache.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "base/file.h"
#include "net/src_cache.h"
#include "net/url.h"

#define META_MAX (16U << 10)

bool bw_src_is_url(const char *s)
{
	return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

/* FNV-1a, 64 bits: a name, not a secret. */
static __u64 fnv(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The URL's last path part, query and fragment cut, kept to [A-Za-z0-9._-]. */
static void last_part(const char *url, char *out, size_t cap)
{
	const char *p = strstr(url, "://"), *end, *b;
	size_t n = 0;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	for (b = end; b > p && b[-1] != '/'; b--)
		;
	/* No path, or one that ends in '/': a name of its own. */
	if (b == p || b == end) {
		b = "list";
		end = b + 4;
	}
	for (; b < end && n + 1 < cap; b++) {
		char c = *b;
		bool ok = strchr("._-", c) || (c >= 'a' && c <= 'z') ||
			  (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

		out[n++] = ok && c ? c : '_';
	}
	out[n] = '\0';
}

int bw_src_path(const char *state_dir, const char *url, char *buf, size_t len)
{
	char name[48], shown[2048];

	/* A copy's name holds no credential, not even hashed. */
	url = bw_url_redacted(url, shown, sizeof(shown));
	last_part(url, name, sizeof(name));
	if (snprintf(buf, len, "%s/lists/%016llx-%s",
		     state_dir ?: BW_SRC_STATE_DIR,
		     (unsigned long long)fnv(url), name) >= (int)len - 8)
		return -ENAMETOOLONG;
	return 0;
}

int bw_src_dir_make(const char *state_dir)
{
	char dir[4096];
	int err;

	state_dir = state_dir ?: BW_SRC_STATE_DIR;
	if (snprintf(dir, sizeof(dir), "%s/lists", state_dir) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	err = bw_own_dir(state_dir, 0755);
	return err ?: bw_own_dir(dir, 0755);
}

static void str_field(struct json_object *o, const char *k, char *dst,
		      size_t cap)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, k, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(dst, cap, "%s", json_object_get_string(v));
}

static __s64 int_field(struct json_object *o, const char *k, __s64 def)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, k, &v) &&
	    json_object_is_type(v, json_type_int))
		return json_object_get_int64(v);
	return def;
}

int bw_src_meta_read(const char *path, struct bw_src_meta *m)
{
	char mp[4096], buf[META_MAX];
	struct json_object *o;
	ssize_t n;
	int fd;

	memset(m, 0, sizeof(*m));
	m->last_modified = -1;
	snprintf(mp, sizeof(mp), "%s.meta", path);
	fd = open(mp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	o = json_tokener_parse(buf);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	str_field(o, "url", m->url, sizeof(m->url));
	str_field(o, "etag", m->etag, sizeof(m->etag));
	str_field(o, "pack", m->pack, sizeof(m->pack));
	m->last_modified = int_field(o, "last_modified", -1);
	m->fetched = int_field(o, "fetched", 0);
	m->checked = int_field(o, "checked", m->fetched);
	m->bytes = (__u64)int_field(o, "bytes", 0);
	m->entries = (__u64)int_field(o, "entries", 0);
	json_object_put(o);
	return m->url[0] ? 0 : -EINVAL;
}

/* 1 if name is mkostemp's from prefix: the prefix and six characters. */
static bool tmp_of(const char *name, const char *prefix)
{
	size_t plen = strlen(prefix);

	return !strncmp(name, prefix, plen) && strlen(name) == plen + 6;
}

void bw_src_sweep(const char *path)
{
	const char *base = strrchr(path, '/');
	char *dir = bw_dir_of(path), copy[4096], meta[4096];
	time_t now = time(NULL);
	struct dirent *e;
	struct stat st;
	DIR *d;

	base = base ? base + 1 : path;
	if (!dir ||
	    snprintf(copy, sizeof(copy), "%s.tmp.", base) >=
		    (int)sizeof(copy) ||
	    snprintf(meta, sizeof(meta), "%s.meta.tmp.", base) >=
		    (int)sizeof(meta)) {
		free(dir);
		return;
	}
	d = opendir(dir);
	free(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!tmp_of(e->d_name, copy) && !tmp_of(e->d_name, meta))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) ||
		    st.st_mtime > now - BW_SRC_TMP_STALE)
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int bw_src_tmp_open(const char *path, char *tmp, size_t len)
{
	int fd;

	if (snprintf(tmp, len, "%s.tmp.XXXXXX", path) >= (int)len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644)) {
		int err = -errno;

		close(fd);
		unlink(tmp);
		return err;
	}
	return fd;
}

static int fsync_dir_of(const char *path)
{
	char *dir = bw_dir_of(path);
	int err;

	if (!dir)
		return -ENOMEM;
	err = bw_fsync_dir(dir);
	free(dir);
	return err;
}

int bw_src_commit(const char *tmp, const char *path)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	return fsync_dir_of(path);
}

int bw_src_meta_write(const char *path, const struct bw_src_meta *m)
{
	char mp[4096], tmp[4112];
	struct json_object *o = json_object_new_object();
	const char *s;
	int fd, err;

	if (!o)
		return -ENOMEM;
	snprintf(mp, sizeof(mp), "%s.meta", path);
	json_object_object_add(o, "url", json_object_new_string(m->url));
	json_object_object_add(o, "etag", json_object_new_string(m->etag));
	json_object_object_add(o, "last_modified",
			       json_object_new_int64(m->last_modified));
	json_object_object_add(o, "fetched", json_object_new_int64(m->fetched));
	json_object_object_add(o, "checked", json_object_new_int64(m->checked));
	json_object_object_add(o, "bytes",
			       json_object_new_int64((int64_t)m->bytes));
	json_object_object_add(o, "entries",
			       json_object_new_int64((int64_t)m->entries));
	json_object_object_add(o, "pack", json_object_new_string(m->pack));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	fd = bw_src_tmp_open(mp, tmp, sizeof(tmp));
	err = fd < 0 ? fd : bw_write_all(fd, s, strlen(s));
	if (fd >= 0)
		close(fd);
	json_object_put(o);
	if (err) {
		if (fd >= 0)
			unlink(tmp);
		return err;
	}
	return bw_src_commit(tmp, mp);
}

bool bw_src_url_of(const char *path, char *url, size_t len)
{
	struct bw_src_meta m;
	char want[4096];

	/* Its name must be what the URL in its meta names: no other file. */
	if (bw_src_meta_read(path, &m) || !bw_src_is_url(m.url))
		return false;
	if (bw_src_path(NULL, m.url, want, sizeof(want)))
		return false;
	{
		const char *a = strrchr(want, '/'), *b = strrchr(path, '/');

		if (!a || strcmp(a + 1, b ? b + 1 : path))
			return false;
	}
	snprintf(url, len, "%s", m.url);
	return true;
}
