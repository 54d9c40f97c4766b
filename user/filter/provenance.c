// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Provenance: list sources noted while they are read, the filter's origin,
 * and the comparison of a recorded list with its file now (provenance.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/log.h"
#include "filter/provenance.h"
#include "filter/records_write.h"
#include "lists/list_load.h"
#include "filter/records_read.h"

int bw_prov_stream_init(struct bw_prov_stream *s, bool count_lines)
{
	memset(s, 0, sizeof(*s));
	s->count_lines = count_lines;
	s->state = XXH3_createState();
	if (!s->state)
		return -ENOMEM;
	XXH3_128bits_reset(s->state);
	return 0;
}

void bw_prov_stream_feed(struct bw_prov_stream *s, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len, *nl;

	if (!len)
		return;
	XXH3_128bits_update(s->state, buf, len);
	s->size += len;
	if (!s->count_lines)
		return;
	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		s->lines++;
		p = nl + 1;
	}
	s->open_line = end[-1] != '\n';
}

void bw_prov_stream_free(struct bw_prov_stream *s)
{
	XXH3_freeState(s->state);
	s->state = NULL;
}

void bw_prov_stream_end(struct bw_prov_stream *s, struct bw_rec_source *out)
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s->state));
	memcpy(out->hash, c.digest, sizeof(out->hash));
	out->size = s->size;
	/* A last line without its newline is a line, as the reader says. */
	out->lines = s->lines + s->open_line;
	bw_prov_stream_free(s);
}

void bw_prov_hash(const void *buf, size_t len, __u8 out[16])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits(buf, len));
	memcpy(out, c.digest, 16);
}

const char *bw_prov_hex(const __u8 h[16], char *buf)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", h[i]);
	return buf;
}

static void tap_bytes(void *ctx, const void *buf, size_t len)
{
	bw_prov_stream_feed(ctx, buf, len);
}

static size_t list_entries(const struct bw_list *l)
{
	return l->n4 + l->n6 + l->ndom;
}

int bw_prov_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts, struct bw_rec_source *src)
{
	struct bw_prov_stream s;
	struct bw_list_tap tap = { .bytes = tap_bytes, .ctx = &s };
	struct bw_list_opts o = *opts;
	size_t before = list_entries(l);
	struct stat st;
	int err;

	memset(src, 0, sizeof(*src));
	/* The mtime is for the operator's eyes; the hash decides "changed". */
	if (strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode))
		src->mtime_ns = (__u64)st.st_mtim.tv_sec * 1000000000ULL +
				(__u64)st.st_mtim.tv_nsec;
	/* The reader counts the lines: the stream only hashes. */
	err = bw_prov_stream_init(&s, false);
	if (err) {
		pr_warn("%s: out of memory while reading the list\n", path);
		return err;
	}
	o.tap = &tap;
	err = bw_list_load(l, path, &o);
	if (err) {
		bw_prov_stream_free(&s);
		return err;
	}
	bw_prov_stream_end(&s, src);
	src->lines = tap.lines;
	src->entries = list_entries(l) - before;
	return 0;
}

void bw_prov_origin(struct bw_rec_origin *o, enum bw_origin how,
		    const __u8 *image_hash)
{
	struct timespec ts;

	memset(o, 0, sizeof(*o));
	clock_gettime(CLOCK_REALTIME, &ts);
	o->time_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	o->how = (__u8)how;
	if (image_hash)
		memcpy(o->image_hash, image_hash, sizeof(o->image_hash));
}

const char *bw_prov_how_name(__u8 how)
{
	switch (how) {
	case BW_ORIGIN_ATTACH:
		return "attach";
	case BW_ORIGIN_RELOAD:
		return "reload";
	case BW_ORIGIN_LOAD:
		return "load";
	case BW_ORIGIN_WATCH:
		return "watch";
	case BW_ORIGIN_CHANGE:
		return "change";
	default:
		return "unknown";
	}
}

const char *bw_prov_verb_name(__u8 verb)
{
	switch (verb) {
	case BW_CHANGE_ADD:
		return "add";
	case BW_CHANGE_REMOVE:
		return "remove";
	case BW_CHANGE_ALLOW:
		return "allow";
	case BW_CHANGE_UNALLOW:
		return "unallow";
	default:
		return "unknown";
	}
}

void bw_prov_change(struct bw_records *r, __u8 verb)
{
	struct bw_rec_origin now;
	__u32 n = r->have_change ? r->change.changes : 0;

	bw_prov_origin(&now, BW_ORIGIN_CHANGE, NULL);
	memset(&r->change, 0, sizeof(r->change));
	r->have_change = true;
	r->change.time_ns = now.time_ns;
	r->change.how = BW_ORIGIN_CHANGE;
	r->change.verb = verb;
	r->change.changes = n == 0xffffffffU ? n : n + 1;
}

int bw_prov_change_edit(void *mem, __u32 nblocks, void *ctx)
{
	return bw_records_write(mem, nblocks, ctx);
}

int bw_prov_sized(const void *mem, __u32 nblocks, __u64 *entries, __u64 *names)
{
	struct bw_records r;
	int err = bw_records_read(mem, nblocks, &r);

	if (err)
		return err;
	if (!r.have_sized) {
		bw_records_free(&r);
		return -ENOENT;
	}
	if (entries)
		*entries = r.sized.entries;
	if (names)
		*names = r.sized.name_entries;
	bw_records_free(&r);
	return 0;
}

const char *bw_prov_state_name(enum bw_prov_state st)
{
	static const char *const names[] = {
		[BW_PROV_UNCHANGED] = "unchanged",
		[BW_PROV_CHANGED] = "changed",
		[BW_PROV_MISSING] = "missing",
		[BW_PROV_UNREADABLE] = "unreadable",
		[BW_PROV_UNKNOWN] = "unknown",
		[BW_PROV_STDIN] = "stdin",
	};

	return names[st];
}

/* The file's hash, read in big chunks; -errno when it cannot be read. */
static int hash_file(int fd, struct bw_rec_source *now)
{
	static char buf[1 << 20];
	struct bw_prov_stream s;
	ssize_t n;

	if (bw_prov_stream_init(&s, false))
		return -ENOMEM;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			bw_prov_stream_free(&s);
			return -errno;
		}
		bw_prov_stream_feed(&s, buf, (size_t)n);
	}
	bw_prov_stream_end(&s, now);
	return 0;
}

enum bw_prov_state bw_prov_compare(const char *path,
				   const struct bw_rec_src *src)
{
	struct bw_rec_source now;
	struct stat st;
	int fd, err;

	if (!strcmp(path, "-"))
		return BW_PROV_STDIN;
	if (stat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? BW_PROV_MISSING
							   : BW_PROV_UNREADABLE;
	if (!S_ISREG(st.st_mode))
		return BW_PROV_UNREADABLE;
	if (!src || !src->known)
		return BW_PROV_UNKNOWN;
	if ((__u64)st.st_size != src->s.size)
		return BW_PROV_CHANGED;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return BW_PROV_UNREADABLE;
	err = hash_file(fd, &now);
	close(fd);
	if (err)
		return BW_PROV_UNREADABLE;
	return memcmp(now.hash, src->s.hash, sizeof(now.hash))
		       ? BW_PROV_CHANGED
		       : BW_PROV_UNCHANGED;
}

/* ---- images -------------------------------------------------------------- */

int bw_prov_image_records(const char *path, const void *mem, __u32 nblocks,
			  enum bw_origin how, const __u8 image_hash[16],
			  struct bw_records *rec, __u32 *need)
{
	int err = bw_records_read(mem, nblocks, rec);

	if (err) {
		pr_warn("%s: the image's record area is malformed: %s\n", path,
			strerror(-err));
		return err;
	}
	rec->have_origin = true;
	bw_prov_origin(&rec->origin, how, image_hash);
	*need = bw_records_end(mem, rec);
	if (*need > BW_MAX_BLOCKS) {
		bw_records_free(rec);
		pr_warn("%s: no room for the filter's records\n", path);
		return -E2BIG;
	}
	return 0;
}
