// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Provenance (user/filter/provenance.c): a list's size, lines, entries and
 * XXH3-128 hash taken in the pass that reads it; sources and origin kept
 * in the record area (read back, older BW_REC_LIST records still read);
 * a recorded list compared with its file now; the builder's records.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "test_helpers.h"
#include "unit.h"

static char dir[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

/* The test files go when the unit tests end. */
__attribute__((destructor)) static void prov_cleanup(void)
{
	if (dir[0])
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A file in a fresh temporary directory, holding text; its path. */
static const char *tmp_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	if (!dir[0]) {
		strcpy(dir, "/tmp/bwtest-prov-XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

/*
 * tmp_file into the caller's buffer (tmp_file's own is reused): false, the
 * test failed and stops, when the file could not be made.
 */
static bool tmp_path(char *buf, size_t len, const char *name, const char *text)
{
	const char *path = tmp_file(name, text);

	if (!ASSERT_OK_PTR(path, name))
		return false;
	snprintf(buf, len, "%s", path);
	return true;
}

static const char list_text[] = "# a comment\n"
				"10.0.0.1\n"
				"10.1.0.0/16 ; SBL1\n"
				"\n"
				"192.0.2.0-192.0.2.3\n"
				"2001:db8::/32"; /* no newline: still a line */

/*
 * XXH3-128 vectors published by xxHash itself: XSUM_XXH128_testdata[] in
 * cli/xsum_sanity_check.c (github.com/Cyan4973/xxHash, v0.8.x), seed 0,
 * of the first len bytes of XSUM_fillTestBuffer()'s buffer, one length per
 * code path of XXH3 (xxHash's comments, shortened: "overlap", the last
 * stripe overlaps the one before). xxHash gives them as
 * { low64, high64 }; the canonical form, which xxhsum -H2 prints and
 * bw_prov_hex() must too, is high64 then low64, each big-endian: the
 * 64-bit halves below swapped. Each one also checked with Debian's xxhsum
 * 0.8.1 (xxhsum -H2 of the same bytes).
 */
static const struct {
	size_t len;
	const char *hex;
} xxh128_vectors[] = {
	{ 0, "99aa06d3014798d86001c324468d497f" },    /* empty string */
	{ 1, "a6cd5e9392000f6ac44bdff4074eecdb" },    /*  1 -  3 */
	{ 6, "082afe0b8162d12a3e7039bdda43cfc6" },    /*  4 -  8 */
	{ 12, "6e3efd8fc7802b18061a192713f69ad9" },   /*  9 - 16 */
	{ 24, "0ce966e4678d37611e7044d28b1b901d" },   /* 17 - 32 */
	{ 48, "a002ac4e5478227ef942219aed80f67b" },   /* 33 - 64 */
	{ 81, "4952f58181ab00425e8bafb9f95fb803" },   /* 65 - 96 */
	{ 222, "337e09641b948717f1aebd597cec6b3a" },  /* 129-240 */
	{ 403, "1b6de21e332dd73dcdeb804d65c6dea4" },  /* 1 block, overlap */
	{ 2048, "f736557fd47073a5dd59e2c3a5f038e0" }, /* 2 blocks exactly */
	{ 2367, "e89c0f6ff369b427cb37aeb9e5d361ed" }, /* 3 blocks, overlap */
};

#define XXH_SANITY_LEN 2367

/* xxHash's XSUM_fillTestBuffer(): the top byte of PRIME32 * PRIME64^i. */
static void xxh_sanity_buffer(__u8 *buf, size_t len)
{
	__u64 gen = 2654435761U; /* PRIME32 */
	size_t i;

	for (i = 0; i < len; i++) {
		buf[i] = (__u8)(gen >> 56);
		gen *= 11400714785074694797ULL; /* PRIME64 */
	}
}

BW_TEST(test_prov_hash_canonical)
{
	static __u8 buf[XXH_SANITY_LEN];
	struct bw_prov_stream st;
	struct bw_rec_source src;
	char hex[BW_PROV_HEX], name[32];
	__u8 h[16];
	size_t i, n;

	xxh_sanity_buffer(buf, sizeof(buf));
	for (i = 0; i < sizeof(xxh128_vectors) / sizeof(xxh128_vectors[0]);
	     i++) {
		n = xxh128_vectors[i].len;
		snprintf(name, sizeof(name), "XXH3-128 of %zu bytes", n);
		bw_prov_hash(buf, n, h);
		ASSERT_STREQ(bw_prov_hex(h, hex), xxh128_vectors[i].hex, name);
		/* The hash of a list as it streams past: the same. */
		if (!ASSERT_OK(bw_prov_stream_init(&st, false), "stream"))
			continue;
		bw_prov_stream_feed(&st, buf, n / 3);
		bw_prov_stream_feed(&st, buf + n / 3, n - n / 3);
		bw_prov_stream_end(&st, &src); /* frees st */
		snprintf(name, sizeof(name), "streamed, %zu bytes", n);
		ASSERT_STREQ(bw_prov_hex(src.hash, hex), xxh128_vectors[i].hex,
			     name);
	}
}

BW_TEST(test_prov_load_source)
{
	const char *path = tmp_file("a.txt", list_text);
	struct bw_list_opts lo = {};
	struct bw_rec_source s;
	struct bw_list l;
	__u8 h[16];

	if (!ASSERT_OK_PTR(path, "temp file"))
		return;
	bw_list_init(&l);
	if (!ASSERT_OK(bw_prov_load(&l, path, &lo, &s), "load"))
		goto out;
	bw_prov_hash(list_text, strlen(list_text), h);
	ASSERT_EQ(s.size, strlen(list_text), "bytes read");
	ASSERT_EQ(s.lines, 6, "lines, the last without its newline too");
	/* 1 + 1 + the range as 192.0.2.0/30 + 1 */
	ASSERT_EQ(s.entries, 4, "entries the list gave");
	ASSERT_EQ(s.entries, l.n4 + l.n6, "what the list holds");
	ASSERT_TRUE(!memcmp(s.hash, h, 16), "the hash of the bytes");
	ASSERT_TRUE(s.mtime_ns > 0, "the file's mtime");
out:
	bw_list_free(&l);
}

/* Entries counted per file, though they go into one list. */
BW_TEST(test_prov_entries_per_file)
{
	struct bw_list_opts lo = {};
	struct bw_rec_source a, b;
	struct bw_list l;
	char pa[128], pb[128];

	if (!tmp_path(pa, sizeof(pa), "one.txt", "10.0.0.1\n10.0.0.2\n") ||
	    !tmp_path(pb, sizeof(pb), "two.txt", "10.0.0.3\n"))
		return;
	bw_list_init(&l);
	if (!ASSERT_OK(bw_prov_load(&l, pa, &lo, &a), "first") ||
	    !ASSERT_OK(bw_prov_load(&l, pb, &lo, &b), "second"))
		goto out;
	ASSERT_EQ(a.entries, 2, "first file");
	ASSERT_EQ(b.entries, 1, "second file");
	ASSERT_EQ(b.lines, 1, "second file's lines");
out:
	bw_list_free(&l);
}

/* The shared small filter, *nblocks its whole size with `extra`. */
static void *small_filter(__u32 extra, __u32 *nblocks)
{
	void *mem = bw_test_small_filter(extra, nblocks);

	*nblocks += extra;
	return mem;
}

BW_TEST(test_prov_records_round_trip)
{
	static const char *const lists[] = { "/srv/a.txt", "/srv/old.txt",
					     "-" };
	struct bw_rec_source s = { .size = 123,
				   .mtime_ns = 1700000000123456789ULL,
				   .lines = 9,
				   .entries = 7 };
	struct bw_records r, back;
	__u32 nblocks;
	void *mem = small_filter(8, &nblocks);
	static const __u8 ih[16] = { 1, 2, 3 };

	if (!ASSERT_OK_PTR(mem, "filter"))
		return;
	memset(s.hash, 0xab, sizeof(s.hash));
	bw_records_init(&r);
	if (!ASSERT_OK(bw_records_set_lists(&r, lists, 3), "lists"))
		goto out;
	bw_records_set_source(&r, 0, &s);
	bw_records_set_source(&r, 2, &s);
	r.have_origin = true;
	bw_prov_origin(&r.origin, BW_ORIGIN_LOAD, ih);
	if (!ASSERT_OK(bw_records_write(mem, nblocks, &r), "write") ||
	    !ASSERT_OK(bw_records_read(mem, nblocks, &back), "read"))
		goto out;
	ASSERT_EQ(back.nlists, 3, "three lists, in order");
	ASSERT_STREQ(back.lists[1], "/srv/old.txt", "a path alone");
	ASSERT_FALSE(back.src[1].known, "written as BW_REC_LIST: unknown");
	ASSERT_TRUE(back.src[0].known && back.src[2].known, "sources known");
	ASSERT_TRUE(!memcmp(&back.src[0].s, &s, sizeof(s)), "source 0");
	ASSERT_STREQ(back.lists[2], "-", "standard input");
	ASSERT_TRUE(back.have_origin, "origin");
	ASSERT_TRUE(!memcmp(&back.origin, &r.origin, sizeof(r.origin)),
		    "origin as written");
	ASSERT_EQ(back.origin.how, BW_ORIGIN_LOAD, "how");
	ASSERT_TRUE(back.origin.time_ns > 1600000000ULL * 1000000000ULL,
		    "a time of now");
	bw_records_free(&back);
out:
	bw_records_free(&r);
	free(mem);
}

/* A BW_REC_SOURCE whose body is no longer than the struct: no path. */
BW_TEST(test_prov_records_hostile)
{
	struct bw_records r;
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION,
				 .nrecords = 1 };
	struct bw_rec_head h = { .type = BW_REC_SOURCE,
				 .len = sizeof(struct bw_rec_source) };
	__u32 nblocks, start;
	__u8 *mem = small_filter(4, &nblocks), *p;

	if (!ASSERT_OK_PTR(mem, "filter"))
		return;
	start = bw_records_start(mem);
	p = mem + (size_t)start * BW_BLOCK_BYTES;
	a.records_len = sizeof(h) + sizeof(struct bw_rec_source);
	memcpy(p, &a, sizeof(a));
	memcpy(p + BW_BLOCK_BYTES, &h, sizeof(h));
	ASSERT_EQ(bw_records_read(mem, nblocks, &r), -EINVAL, "no path");
	h.type = BW_REC_ORIGIN;
	h.len = 8;
	a.records_len = sizeof(h) + 8;
	memcpy(p, &a, sizeof(a));
	memcpy(p + BW_BLOCK_BYTES, &h, sizeof(h));
	ASSERT_EQ(bw_records_read(mem, nblocks, &r), -EINVAL, "short origin");
	free(mem);
}

BW_TEST(test_prov_compare)
{
	struct bw_list_opts lo = {};
	struct bw_rec_src src = { .known = true };
	struct bw_rec_src unknown = { .known = false };
	struct bw_list l;
	char path[128];

	if (!tmp_path(path, sizeof(path), "c.txt", "10.0.0.1\n10.0.0.2\n"))
		return;
	bw_list_init(&l);
	if (!ASSERT_OK(bw_prov_load(&l, path, &lo, &src.s), "load")) {
		bw_list_free(&l);
		return;
	}
	bw_list_free(&l);
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_UNCHANGED, "as read");
	ASSERT_EQ(bw_prov_compare(path, &unknown), BW_PROV_UNKNOWN,
		  "nothing recorded");
	if (!ASSERT_OK_PTR(tmp_file("c.txt", "10.0.0.1\n10.0.0.3\n"),
			   "same size")) /* other bytes */
		return;
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_CHANGED,
		  "same size, other bytes: the hash tells");
	if (!ASSERT_OK_PTR(tmp_file("c.txt", "10.0.0.1\n"), "shorter"))
		return;
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_CHANGED, "shorter");
	unlink(path);
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_MISSING, "deleted");
	ASSERT_EQ(bw_prov_compare("-", &src), BW_PROV_STDIN, "stdin");
	ASSERT_EQ(bw_prov_compare("/", &src), BW_PROV_UNREADABLE,
		  "a directory");
	ASSERT_STREQ(bw_prov_state_name(BW_PROV_CHANGED), "changed", "name");
}

/* The builder records each list's source and when and how. */
BW_TEST(test_prov_builder_records)
{
	char a[128], b[128];
	const char *lists[2] = { a, b };
	struct bw_build_req req;
	struct bw_build bd;

	if (!tmp_path(a, sizeof(a), "ba.txt",
		      "10.0.0.1\n10.0.0.2\n10.0.0.0/8\n") ||
	    !tmp_path(b, sizeof(b), "bb.txt", "# b\n2001:db8::1\n"))
		return;
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 2;
	req.opts.seed = 1;
	if (!ASSERT_OK(bw_build_plan(&req, &bd), "build"))
		return;
	ASSERT_EQ(bd.rec.nlists, 2, "lists");
	ASSERT_TRUE(bd.rec.src[0].known && bd.rec.src[1].known, "sources");
	ASSERT_EQ(bd.rec.src[0].s.entries, 3, "entries before merging");
	ASSERT_EQ(bd.rec.src[1].s.lines, 2, "lines");
	ASSERT_TRUE(bd.rec.src[0].s.mtime_ns > 0, "mtime");
	ASSERT_TRUE(bd.rec.have_origin, "origin");
	ASSERT_EQ(bd.rec.origin.how, BW_ORIGIN_ATTACH, "attach by default");
	bw_build_free(&bd);
	/* An image: the same lists give the same bytes, no time, no mtime. */
	req.origin = 0;
	if (!ASSERT_OK(bw_build_plan(&req, &bd), "build an image"))
		return;
	ASSERT_FALSE(bd.rec.have_origin, "no origin in an image");
	ASSERT_EQ(bd.rec.src[0].s.mtime_ns, 0, "no mtime in an image");
	ASSERT_EQ(bd.rec.src[0].s.entries, 3, "but the entries");
	bw_build_free(&bd);
}

/* A real list: lines and entries as the reader counts them. */
BW_TEST(test_prov_real_list)
{
	const char *dir = bw_test_data_dir();
	struct bw_list_opts lo = {};
	struct bw_rec_source s;
	struct bw_list l;
	char path[512], *buf;
	size_t len, i, nl = 0;
	FILE *f;
	__u8 h[16];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/spamhaus/drop.txt", dir);
	f = fopen(path, "r");
	if (!ASSERT_OK_PTR(f, "drop.txt"))
		return;
	buf = malloc(1 << 22);
	if (!ASSERT_OK_PTR(buf, "4 MiB buffer")) {
		fclose(f);
		return;
	}
	len = fread(buf, 1, 1 << 22, f);
	fclose(f);
	for (i = 0; i < len; i++)
		nl += buf[i] == '\n';
	bw_prov_hash(buf, len, h);
	bw_list_init(&l);
	if (!ASSERT_OK(bw_prov_load(&l, path, &lo, &s), "load"))
		goto out;
	ASSERT_EQ(s.size, len, "bytes");
	ASSERT_EQ(s.lines, nl + (len && buf[len - 1] != '\n'), "lines");
	ASSERT_EQ(s.entries, l.n4, "entries");
	ASSERT_TRUE(s.entries > 500, "a real list");
	ASSERT_TRUE(!memcmp(h, s.hash, 16), "hash");
out:
	bw_list_free(&l);
	free(buf);
}

/*
 * The builder records the allowlist files (read for the record when the
 * caller had not), or keeps the running filter's; a change (remove) keeps
 * the build origin and records itself; the keys the regions were sized
 * for are recorded exactly, and read back with bw_prov_sized.
 */
BW_TEST(test_prov_builder_allow_change_sized)
{
	char a[128], al[128];
	const char *lists[1] = { a }, *allow[1] = { al };
	struct bw_build_req req;
	struct bw_build bd, bd2;
	struct bw_records prev;
	__u64 entries = 0, names = 1;
	void *mem;

	if (!tmp_path(a, sizeof(a), "sa.txt",
		      "10.0.0.1\n10.0.0.2\n2001:db8::/32\n") ||
	    !tmp_path(al, sizeof(al), "sal.txt",
		      "# ok\n10.0.0.2\nok.example\n"))
		return;
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.seed = 1;
	req.allow_files = allow;
	req.nallow_files = 1;
	if (!ASSERT_OK(bw_build_plan(&req, &bd), "build"))
		return;
	ASSERT_EQ(bd.rec.nallow, 1, "the allowlist file recorded");
	ASSERT_STREQ(bd.rec.allow[0], al, "by its path");
	ASSERT_EQ(bd.rec.allow_src[0].s.entries, 2, "its entries");
	ASSERT_EQ(bd.rec.allow_src[0].s.lines, 3, "its lines");
	ASSERT_EQ(bw_prov_compare(al, &bd.rec.allow_src[0]), BW_PROV_UNCHANGED,
		  "its hash");
	ASSERT_TRUE(bd.rec.have_sized, "sized recorded");
	ASSERT_EQ(bd.rec.sized.entries, bd.plan.info.entries,
		  "sized for the keys the plan holds");
	ASSERT_FALSE(bd.rec.have_change, "a build is no change");
	mem = calloc(bw_build_blocks(&bd), BW_BLOCK_BYTES);
	if (ASSERT_OK_PTR(mem, "filter")) {
		bw_build_fill(&bd, mem);
		ASSERT_OK(bw_prov_sized(mem, bw_build_blocks(&bd), &entries,
					&names),
			  "sized read");
		ASSERT_EQ(entries, bd.plan.info.entries, "sized entries");
		ASSERT_EQ(names, 0, "no name keys");
		free(mem);
	}
	/* A remove: built again from the lists, the allowlist kept. */
	prev = bd.rec;
	prev.origin.time_ns = 42;
	req.allow_files = NULL;
	req.nallow_files = 0;
	req.keep_allow = &prev;
	req.change = BW_CHANGE_REMOVE;
	req.prev = &prev;
	req.origin = BW_ORIGIN_RELOAD;
	if (ASSERT_OK(bw_build_plan(&req, &bd2), "rebuild")) {
		ASSERT_EQ(bd2.rec.nallow, 1, "the allowlist file kept");
		ASSERT_TRUE(!memcmp(&bd2.rec.allow_src[0], &prev.allow_src[0],
				    sizeof(prev.allow_src[0])),
			    "as it was recorded");
		ASSERT_EQ(bd2.rec.origin.how, BW_ORIGIN_ATTACH,
			  "the build origin stays");
		ASSERT_EQ(bd2.rec.origin.time_ns, 42, "and its time");
		ASSERT_TRUE(bd2.rec.have_change, "the change");
		ASSERT_EQ(bd2.rec.change.verb, BW_CHANGE_REMOVE, "by remove");
		ASSERT_EQ(bd2.rec.change.how, BW_ORIGIN_CHANGE, "a change");
		ASSERT_EQ(bd2.rec.change.changes, 1, "the first");
		ASSERT_TRUE(bd2.rec.change.time_ns >
				    1600000000ULL * 1000000000ULL,
			    "stamped now");
		bw_build_free(&bd2);
	}
	bw_build_free(&bd);
}

/* Each change counts one more and says which command made it. */
BW_TEST(test_prov_change_stamp)
{
	struct bw_records r;
	__u32 nblocks;
	void *mem = small_filter(4, &nblocks);

	bw_records_init(&r);
	bw_prov_change(&r, BW_CHANGE_ADD);
	bw_prov_change(&r, BW_CHANGE_ALLOW);
	ASSERT_EQ(r.change.changes, 2, "two changes");
	ASSERT_STREQ(bw_prov_verb_name(r.change.verb), "allow", "the last");
	ASSERT_STREQ(bw_prov_verb_name(BW_CHANGE_UNALLOW), "unallow", "name");
	ASSERT_STREQ(bw_prov_how_name(BW_ORIGIN_WATCH), "watch", "watch");
	ASSERT_FALSE(r.have_origin, "a change makes no origin");
	if (ASSERT_OK_PTR(mem, "filter")) {
		ASSERT_EQ(bw_prov_sized(mem, nblocks, NULL, NULL), -ENOENT,
			  "an older filter: nothing recorded");
		ASSERT_OK(bw_prov_change_edit(mem, nblocks, &r), "write");
		ASSERT_EQ(bw_prov_sized(mem, nblocks, NULL, NULL), -ENOENT,
			  "still no sized record");
		free(mem);
	}
	bw_records_free(&r);
}
