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

#include "log.h"
#include "output.h"
#include "provenance.h"
#include "running.h"
#include "status_view.h"

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

int bw_prov_change_prepare(const struct bw_running *r, __u8 verb,
			   struct bw_records *rec, __u32 *extra)
{
	__u32 need;
	int err;

	err = bw_running_records(r, rec);
	if (err)
		return err;
	bw_prov_change(rec, verb);
	need = bw_records_start(r->filter.mem) + bw_records_blocks(rec);
	*extra = need > r->filter.nblocks ? need - r->filter.nblocks : 0;
	return 0;
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

/* ---- status -------------------------------------------------------------- */

/* "2026-12-01 14:02:03 UTC" */
static const char *time_str(__u64 ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

static const char *state_note(enum bw_prov_state st)
{
	switch (st) {
	case BW_PROV_UNCHANGED:
		return "unchanged since";
	case BW_PROV_CHANGED:
		return "CHANGED since (hash differs; reload to apply)";
	case BW_PROV_MISSING:
		return "MISSING now";
	case BW_PROV_UNREADABLE:
		return "UNREADABLE now";
	case BW_PROV_STDIN:
		return "read from standard input";
	default:
		return "not recorded by the bloomwall that built it";
	}
}

static void out_origin(const struct bw_records *r)
{
	const struct bw_rec_origin *o = &r->origin;
	static const __u8 zero[16];
	char t[64], hex[BW_PROV_HEX];
	bool image = memcmp(o->image_hash, zero, sizeof(zero));

	if (!r->have_origin) {
		bw_kv("built",
		      "not recorded (an image not loaded yet, or an older bloomwall built it)");
		bw_out_null("built", NULL);
		return;
	}
	bw_kv("built", "%s by %s%s%s", time_str(o->time_ns, t, sizeof(t)),
	      bw_prov_how_name(o->how), image ? " of image " : "",
	      image ? bw_prov_hex(o->image_hash, hex) : "");
	bw_out_u64("built_ns", NULL, o->time_ns);
	bw_out_string("built", NULL, t);
	bw_out_string("how", NULL, bw_prov_how_name(o->how));
	if (image)
		bw_out_string("image_hash", NULL, hex);
	else
		bw_out_null("image_hash", NULL);
}

/* "changed": the last change since the build, when there was one. */
static void out_change(const struct bw_records *r)
{
	const struct bw_rec_change *c = &r->change;
	char t[64];

	if (!r->have_change) {
		bw_out_null("changed", NULL);
		return;
	}
	bw_kv("changed", "%s by %s (%'u %s since the build)",
	      time_str(c->time_ns, t, sizeof(t)), bw_prov_verb_name(c->verb),
	      c->changes, bw_plural(c->changes, "change", "changes"));
	bw_out_open_object("changed");
	bw_out_u64("time_ns", NULL, c->time_ns);
	bw_out_string("time", NULL, t);
	bw_out_string("by", NULL, bw_prov_verb_name(c->verb));
	bw_out_u64("changes", NULL, c->changes);
	bw_out_close_object();
}

/* "sized for": the keys the build sized the regions for. */
static void out_sized(const struct bw_records *r)
{
	const struct bw_rec_sized *z = &r->sized;

	if (!r->have_sized) {
		bw_out_null("sized_entries", NULL);
		bw_out_null("sized_name_entries", NULL);
		return;
	}
	bw_kv("sized for", "%'llu address %s, %'llu name %s (at the build)",
	      (unsigned long long)z->entries,
	      bw_plural(z->entries, "key", "keys"),
	      (unsigned long long)z->name_entries,
	      bw_plural(z->name_entries, "key", "keys"));
	bw_out_u64("sized_entries", NULL, z->entries);
	bw_out_u64("sized_name_entries", NULL, z->name_entries);
}

/* One recorded file: key "list" or "allow file" in the text. */
static void out_list(const char *key, const char *path,
		     const struct bw_rec_src *src)
{
	enum bw_prov_state st = bw_prov_compare(path, src);
	char hex[BW_PROV_HEX], t[64];

	bw_out_open_object(NULL);
	bw_out_string("path", NULL, path);
	bw_out_string("state", NULL, bw_prov_state_name(st));
	if (!src || !src->known) {
		bw_kv(key, "%s: %s", path, state_note(st));
		bw_out_close_object();
		return;
	}
	bw_kv(key, "%s: %'llu %s from %'llu %s (%'llu bytes%s%s), %s", path,
	      (unsigned long long)src->s.entries,
	      bw_plural(src->s.entries, "entry", "entries"),
	      (unsigned long long)src->s.lines,
	      bw_plural(src->s.lines, "line", "lines"),
	      (unsigned long long)src->s.size,
	      src->s.mtime_ns ? ", mtime " : "",
	      src->s.mtime_ns ? time_str(src->s.mtime_ns, t, sizeof(t)) : "",
	      state_note(st));
	bw_out_u64("entries", NULL, src->s.entries);
	bw_out_u64("lines", NULL, src->s.lines);
	bw_out_u64("bytes", NULL, src->s.size);
	bw_out_u64("mtime_ns", NULL, src->s.mtime_ns);
	bw_out_string("hash", NULL, bw_prov_hex(src->s.hash, hex));
	bw_out_close_object();
}

void bw_prov_out(const struct bw_records *r)
{
	int i;

	bw_out_text("  Provenance\n");
	bw_out_open_object("provenance");
	out_origin(r);
	out_change(r);
	out_sized(r);
	bw_out_open_array("lists");
	for (i = 0; i < r->nlists; i++)
		out_list("list", r->lists[i], r->src ? &r->src[i] : NULL);
	bw_out_close_array();
	if (!r->nlists)
		bw_kv("lists", "none recorded");
	/* The allowlist files the running allowlist was read from. */
	bw_out_open_array("allow_lists");
	for (i = 0; i < r->nallow; i++)
		out_list("allow file", r->allow[i], &r->allow_src[i]);
	bw_out_close_array();
	bw_out_close_object();
}

void bw_prov_out_iface(const char *iface, int ifindex)
{
	struct bw_running rn = BW_RUNNING_INIT;
	struct bw_records rec;

	if (!ifindex ||
	    bw_running_open(iface, ifindex, BW_RUN_QUIET | BW_RUN_OLD_OK, &rn))
		return;
	bw_records_init(&rec);
	if (!rn.filter_err && !bw_running_records(&rn, &rec))
		bw_prov_out(&rec);
	bw_records_free(&rec);
	bw_running_close(&rn);
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
	*need = bw_records_start(mem) + bw_records_blocks(rec);
	if (*need > BW_MAX_BLOCKS) {
		bw_records_free(rec);
		pr_warn("%s: no room for the filter's records\n", path);
		return -E2BIG;
	}
	return 0;
}
