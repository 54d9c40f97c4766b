// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Provenance (user/provenance.c): a list's size, lines, entries and
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

static const char list_text[] = "# a comment\n"
				"10.0.0.1\n"
				"10.1.0.0/16 ; SBL1\n"
				"\n"
				"192.0.2.0-192.0.2.3\n"
				"2001:db8::/32"; /* no newline: still a line */

BW_TEST(test_prov_hash_canonical)
{
	/* XXH3-128 of nothing, canonical: as xxhsum -H2 prints it. */
	char hex[BW_PROV_HEX];
	__u8 h[16];

	bw_prov_hash("", 0, h);
	ASSERT_STREQ(bw_prov_hex(h, hex), "99aa06d3014798d86001c324468d497f",
		     "empty input");
}

BW_TEST(test_prov_load_source)
{
	const char *path = tmp_file("a.txt", list_text);
	struct bw_list_opts lo = { .allow_cidr = true };
	struct bw_rec_source s;
	struct bw_list l;
	__u8 h[16];

	ASSERT_OK_PTR(path, "temp file");
	bw_list_init(&l);
	ASSERT_OK(bw_prov_load(&l, path, &lo, &s), "load");
	bw_prov_hash(list_text, strlen(list_text), h);
	ASSERT_EQ(s.size, strlen(list_text), "bytes read");
	ASSERT_EQ(s.lines, 6, "lines, the last without its newline too");
	/* 1 + 1 + the range as 192.0.2.0/30 + 1 */
	ASSERT_EQ(s.entries, 4, "entries the list gave");
	ASSERT_EQ(s.entries, l.n4 + l.n6, "what the list holds");
	ASSERT_TRUE(!memcmp(s.hash, h, 16), "the hash of the bytes");
	ASSERT_TRUE(s.mtime_ns > 0, "the file's mtime");
	bw_list_free(&l);
}

/* Entries counted per file, though they go into one list. */
BW_TEST(test_prov_entries_per_file)
{
	struct bw_list_opts lo = { .allow_cidr = true };
	struct bw_rec_source a, b;
	struct bw_list l;
	char pa[128];

	strcpy(pa, tmp_file("one.txt", "10.0.0.1\n10.0.0.2\n"));
	bw_list_init(&l);
	ASSERT_OK(bw_prov_load(&l, pa, &lo, &a), "first");
	ASSERT_OK(bw_prov_load(&l, tmp_file("two.txt", "10.0.0.3\n"), &lo, &b),
		  "second");
	ASSERT_EQ(a.entries, 2, "first file");
	ASSERT_EQ(b.entries, 1, "second file");
	ASSERT_EQ(b.lines, 1, "second file's lines");
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

	ASSERT_OK_PTR(mem, "filter");
	memset(s.hash, 0xab, sizeof(s.hash));
	bw_records_init(&r);
	ASSERT_OK(bw_records_set_lists(&r, lists, 3), "lists");
	bw_records_set_source(&r, 0, &s);
	bw_records_set_source(&r, 2, &s);
	r.have_origin = true;
	bw_prov_origin(&r.origin, BW_ORIGIN_LOAD, ih);
	ASSERT_OK(bw_records_write(mem, nblocks, &r), "write");
	ASSERT_OK(bw_records_read(mem, nblocks, &back), "read");
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

	ASSERT_OK_PTR(mem, "filter");
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
	struct bw_list_opts lo = { .allow_cidr = true };
	struct bw_rec_src src = { .known = true };
	struct bw_rec_src unknown = { .known = false };
	struct bw_list l;
	char path[128];

	strcpy(path, tmp_file("c.txt", "10.0.0.1\n10.0.0.2\n"));
	bw_list_init(&l);
	ASSERT_OK(bw_prov_load(&l, path, &lo, &src.s), "load");
	bw_list_free(&l);
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_UNCHANGED, "as read");
	ASSERT_EQ(bw_prov_compare(path, &unknown), BW_PROV_UNKNOWN,
		  "nothing recorded");
	tmp_file("c.txt", "10.0.0.1\n10.0.0.3\n"); /* same size */
	ASSERT_EQ(bw_prov_compare(path, &src), BW_PROV_CHANGED,
		  "same size, other bytes: the hash tells");
	tmp_file("c.txt", "10.0.0.1\n");
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

	strcpy(a, tmp_file("ba.txt", "10.0.0.1\n10.0.0.2\n10.0.0.0/8\n"));
	strcpy(b, tmp_file("bb.txt", "# b\n2001:db8::1\n"));
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 2;
	req.opts.seed = 1;
	ASSERT_OK(bw_build_plan(&req, &bd), "build");
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
	ASSERT_OK(bw_build_plan(&req, &bd), "build an image");
	ASSERT_FALSE(bd.rec.have_origin, "no origin in an image");
	ASSERT_EQ(bd.rec.src[0].s.mtime_ns, 0, "no mtime in an image");
	ASSERT_EQ(bd.rec.src[0].s.entries, 3, "but the entries");
	bw_build_free(&bd);
}

/* A real list: lines and entries as the reader counts them. */
BW_TEST(test_prov_real_list)
{
	const char *dir = bw_test_data_dir();
	struct bw_list_opts lo = { .allow_cidr = true };
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
	ASSERT_OK_PTR(f, "drop.txt");
	if (!f)
		return;
	buf = malloc(1 << 22);
	len = fread(buf, 1, 1 << 22, f);
	fclose(f);
	for (i = 0; i < len; i++)
		nl += buf[i] == '\n';
	bw_prov_hash(buf, len, h);
	bw_list_init(&l);
	ASSERT_OK(bw_prov_load(&l, path, &lo, &s), "load");
	ASSERT_EQ(s.size, len, "bytes");
	ASSERT_EQ(s.lines, nl + (len && buf[len - 1] != '\n'), "lines");
	ASSERT_EQ(s.entries, l.n4, "entries");
	ASSERT_TRUE(s.entries > 500, "a real list");
	ASSERT_TRUE(!memcmp(h, s.hash, 16), "hash");
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

	strcpy(a, tmp_file("sa.txt", "10.0.0.1\n10.0.0.2\n2001:db8::/32\n"));
	strcpy(al, tmp_file("sal.txt", "# ok\n10.0.0.2\nok.example\n"));
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
