// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The record area after a filter's regions (user/filter/records.c): what is
 * written reads back the same, a filter with or without an area passes
 * bw_filter_check, and a truncated or hostile area is refused (-EINVAL)
 * without reading past the map, whatever its lengths say.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

void *bw_test_small_filter(__u32 extra, __u32 *tail)
{
	struct bw_build_opts o = { .fpr = 0.001,
				   .seed = 7,
				   .flags = BW_F_MATCH_SRC };
	struct bw_list_opts lo = {};
	char err[BW_ERRLEN];
	struct bw_plan plan;
	struct bw_list l;
	void *mem = NULL;

	*tail = 0;
	bw_list_init(&l);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "2001:db8::/48", &lo, err, sizeof(err));
	bw_list_finish(&l);
	if (!bw_plan_filter(&l, &o, &plan)) {
		mem = calloc(plan.nblocks + extra, BW_BLOCK_BYTES);
		if (mem)
			bw_fill_filter(mem, &plan, &l);
		*tail = plan.nblocks;
	}
	bw_list_free(&l);
	return mem;
}

struct bw_prefix bw_test_prefix(const char *s)
{
	char err[BW_ERRLEN];
	struct bw_prefix p;

	memset(&p, 0, sizeof(p));
	bw_parse_prefix(s, &p, err, sizeof(err));
	return p;
}

static const char *const entries[] = { "10.0.0.9",    "10.1.0.0/16",
				       "2001:db8::5", "2001:db8:1::/48",
				       "0.0.0.0/0",   "::/0" };
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* Every kind of record, an unknown type among them. */
static void sample(struct bw_records *r)
{
	static const char *const lists[] = { "/etc/bloomwall/a.txt",
					     "/srv/lists/spamhaus-drop.txt" };
	/* Type 99, 5 bytes of body padded to 8: what a later bloomwall adds. */
	static const __u8 unknown[16] = { 99, 0,   0,	0,   5,	  0,  0,
					  0,  'h', 'e', 'l', 'l', 'o' };
	double fpr = 1e-12;
	size_t i;

	bw_records_init(r);
	for (i = 0; i < NENTRIES; i++) {
		struct bw_prefix p = bw_test_prefix(entries[i]);

		bw_records_add(r, bw_key_prefix(&p));
	}
	r->have_build = true;
	memcpy(&r->build.fpr_bits, &fpr, sizeof(fpr));
	r->build.flags = BW_F_MATCH_DST | BW_F_VERIFY;
	r->build.max_lengths[BW_V4] = 2;
	r->build.opts = BW_REC_OPT_SKIP_INVALID;
	bw_records_set_lists(r, lists, 2);
	r->other = malloc(sizeof(unknown));
	memcpy(r->other, unknown, sizeof(unknown));
	r->other_len = r->other_cap = sizeof(unknown);
	r->nother = 1;
}

BW_TEST(test_records_round_trip)
{
	struct bw_records w, r, again;
	__u32 tail = 0, n;
	void *mem, *copy;
	double fpr;
	size_t i;

	sample(&w);
	n = bw_records_blocks(&w);
	mem = bw_test_small_filter(n, &tail);
	if (!ASSERT_OK_PTR(mem, "filter"))
		goto out;
	ASSERT_OK(bw_records_write(mem, tail + n, &w), "write");
	ASSERT_EQ(bw_records_start(mem), tail,
		  "the area starts after the regions");
	ASSERT_OK(bw_filter_check(mem, tail + n), "a filter with an area");
	ASSERT_OK(bw_records_read(mem, tail + n, &r), "read");
	ASSERT_TRUE(bw_records_same_added(&w, &r), "added entries read back");
	ASSERT_EQ(r.added.n, NENTRIES, "added count");
	ASSERT_TRUE(r.have_build, "build record");
	memcpy(&fpr, &r.build.fpr_bits, sizeof(fpr));
	ASSERT_TRUE(fpr == 1e-12, "fpr exactly");
	ASSERT_EQ(r.build.flags, BW_F_MATCH_DST | BW_F_VERIFY, "flags");
	ASSERT_EQ(r.build.max_lengths[BW_V4], 2, "max lengths");
	ASSERT_EQ(r.build.opts, BW_REC_OPT_SKIP_INVALID, "opts");
	ASSERT_EQ(r.nlists, 2, "lists");
	for (i = 0; i < 2 && (int)i < r.nlists; i++)
		ASSERT_STREQ(r.lists[i], w.lists[i], "list path");
	ASSERT_EQ(r.nother, 1, "unknown record kept");
	ASSERT_EQ(r.other_len, 16, "unknown record's bytes");
	/* Written again (as add does), the area is the same bytes. */
	copy = calloc(tail + n, BW_BLOCK_BYTES);
	if (ASSERT_OK_PTR(copy, "copy")) {
		memcpy(copy, mem, (size_t)tail * BW_BLOCK_BYTES);
		ASSERT_OK(bw_records_write(copy, tail + n, &r), "write again");
		ASSERT_EQ(
			memcmp(copy, mem, (size_t)(tail + n) * BW_BLOCK_BYTES),
			0, "the same bytes");
		free(copy);
	}
	/* No room: refused, nothing read past the end. */
	ASSERT_EQ(bw_records_write(mem, tail + n - 1, &w), -E2BIG, "no room");
	/* An empty set writes zeros: no area, as a filter without one. */
	bw_records_init(&again);
	ASSERT_OK(bw_records_write(mem, tail + n, &again), "write nothing");
	ASSERT_OK(bw_records_read(mem, tail + n, &again), "read zeros");
	ASSERT_EQ(again.added.n + again.nlists + again.have_build, 0, "empty");
	bw_records_free(&r);
	free(mem);
out:
	bw_records_free(&w);
}

BW_TEST(test_records_none)
{
	struct bw_records r;
	__u32 tail = 0;
	void *mem = bw_test_small_filter(3, &tail);

	if (!ASSERT_OK_PTR(mem, "filter"))
		return;
	ASSERT_OK(bw_filter_check(mem, tail), "a filter without an area");
	ASSERT_OK(bw_records_read(mem, tail, &r), "no area: nothing kept");
	ASSERT_EQ(r.added.n, 0, "no adds");
	ASSERT_OK(bw_records_read(mem, tail + 3, &r), "zero blocks: no area");
	ASSERT_EQ(r.added.n + r.nlists, 0, "nothing");
	free(mem);
}

BW_TEST(test_records_add_drop)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.1"),
			 b = bw_test_prefix("10.0.0.0/24");
	struct bw_records r, s;

	bw_records_init(&r);
	bw_records_init(&s);
	ASSERT_EQ(bw_records_add(&r, bw_key_prefix(&a)), 1, "new");
	ASSERT_EQ(bw_records_add(&r, bw_key_prefix(&a)), 0, "no duplicate");
	ASSERT_EQ(bw_records_add(&r, bw_key_prefix(&b)), 1,
		  "a prefix is another entry");
	ASSERT_EQ(bw_records_find(&r, bw_key_prefix(&b)), 1, "found");
	bw_records_add(&s, bw_key_prefix(&a));
	ASSERT_FALSE(bw_records_same_added(&r, &s), "differ");
	bw_records_drop(&r, 1);
	ASSERT_EQ(bw_records_find(&r, bw_key_prefix(&b)), -1, "dropped");
	ASSERT_TRUE(bw_records_same_added(&r, &s), "same");
	bw_records_free(&r);
	bw_records_free(&s);
}

/* The area's header and first record head of a filter written by sample(). */
struct hostile {
	void *mem;
	__u32 tail, nblocks;
	struct bw_rec_area *area;
	__u8 *recs;
};

static bool hostile_init(struct hostile *h)
{
	struct bw_records w;
	__u32 n;

	sample(&w);
	n = bw_records_blocks(&w);
	h->mem = bw_test_small_filter(n, &h->tail);
	h->nblocks = h->tail + n;
	if (h->mem)
		bw_records_write(h->mem, h->nblocks, &w);
	bw_records_free(&w);
	if (!h->mem)
		return false;
	h->area = (void *)((char *)h->mem + (size_t)h->tail * BW_BLOCK_BYTES);
	h->recs = (__u8 *)h->area + BW_BLOCK_BYTES;
	return true;
}

static int read_status(const struct hostile *h, __u32 nblocks)
{
	struct bw_records r;
	int err = bw_records_read(h->mem, nblocks, &r);

	bw_records_free(&r);
	return err;
}

/* Cut short anywhere (the map, or the records' length): refused. */
BW_TEST(test_records_truncated)
{
	struct hostile h;
	__u64 len, cut;
	__u32 n;
	int bad = 0;

	if (!ASSERT_TRUE(hostile_init(&h), "filter"))
		return;
	ASSERT_OK(read_status(&h, h.nblocks), "whole");
	for (n = h.tail + 1; n < h.nblocks; n++)
		bad += read_status(&h, n) != -EINVAL;
	ASSERT_EQ(bad, 0, "maps cut short that read");
	len = h.area->records_len;
	for (cut = 0; cut < len; cut += BW_REC_ALIGN) {
		h.area->records_len = cut;
		bad += read_status(&h, h.nblocks) != -EINVAL;
	}
	h.area->records_len = len;
	ASSERT_EQ(bad, 0, "records cut short that read");
	free(h.mem);
}

/* One field set to a hostile value: refused, and the area is left as it is. */
static void refuse(struct hostile *h, void *field, const void *val, size_t size,
		   const char *name)
{
	__u8 saved[16];

	memcpy(saved, field, size);
	memcpy(field, val, size);
	ASSERT_EQ(read_status(h, h->nblocks), -EINVAL, name);
	memcpy(field, saved, size);
}

BW_TEST(test_records_hostile)
{
	const __u64 huge64 = ~0ULL;
	const __u32 huge = ~0U, three = 3, odd = 23;
	const __u16 one = 1, v9 = 9;
	const __u8 plen33 = 33, fam7 = 7;
	struct bw_rec_prefix *p;
	struct hostile h;

	if (!ASSERT_TRUE(hostile_init(&h), "filter"))
		return;
	/* sample() writes the added entries first, the /32 first of them. */
	p = (void *)(h.recs + sizeof(struct bw_rec_head));
	refuse(&h, &h.area->magic, &huge, 4, "magic");
	refuse(&h, &h.area->version, &v9, 2, "version");
	refuse(&h, &h.area->records_len, &huge64, 8,
	       "records_len past the map");
	refuse(&h, &h.area->nrecords, &huge, 4, "nrecords past the records");
	refuse(&h, &h.area->nrecords, &three, 4, "nrecords short");
	refuse(&h, h.recs + 2, &one, 2, "flags set");
	refuse(&h, h.recs + 4, &huge, 4, "a record's len past the area");
	refuse(&h, h.recs + 4, &odd, 4, "added entries of a partial size");
	refuse(&h, &p->plen, &plen33, 1, "an IPv4 /33");
	refuse(&h, &p->family, &fam7, 1, "family 7");
	/* The second: 10.1.0.0/16. */
	refuse(&h, &p[1].addr[3], &fam7, 1, "host bits set");
	ASSERT_OK(read_status(&h, h.nblocks), "restored");
	free(h.mem);
}

/* Random areas under a valid header: read or refused, never past the map. */
BW_TEST(test_records_random)
{
	__u32 tail = 0, i, j, nblocks = 0, ok = 0;
	struct bw_rec_area *a;
	struct bw_records r;
	__u8 *blk;
	void *mem;
	int err, odd = 0;

	mem = bw_test_small_filter(16, &tail);
	if (!ASSERT_OK_PTR(mem, "filter"))
		return;
	srand(1);
	blk = (__u8 *)mem + (size_t)tail * BW_BLOCK_BYTES;
	a = (void *)blk;
	for (i = 0; i < 20000; i++) {
		nblocks = tail + 1 + (__u32)rand() % 16;
		for (j = 0; j < 16 * BW_BLOCK_BYTES; j++)
			blk[j] = (__u8)rand();
		a->magic = BW_REC_MAGIC;
		a->version = BW_REC_VERSION;
		a->records_len =
			(__u64)(rand() % (16 * BW_BLOCK_BYTES)) & ~7ULL;
		a->nrecords = (__u32)rand() % 8;
		/* Mostly small types and lengths: deeper into the parser. */
		for (j = 0; j < 4; j++) {
			__u8 *hd = blk + BW_BLOCK_BYTES + 32 * j;

			hd[0] = (__u8)(1 + rand() % 4);
			hd[1] = hd[2] = hd[3] = hd[6] = hd[7] = 0;
			hd[4] = (__u8)(rand() % 32);
			hd[5] = 0;
		}
		err = bw_records_read(mem, nblocks, &r);
		if (!err)
			ok++;
		else if (err != -EINVAL)
			odd++;
		if (!err && r.added.n * sizeof(struct bw_rec_prefix) >
				    (nblocks - tail) * (size_t)BW_BLOCK_BYTES)
			odd++;
		bw_records_free(&r);
	}
	ASSERT_EQ(odd, 0, "reads other than ok or -EINVAL, or beyond the map");
	printf("  random areas: %u of 20000 read as valid\n", ok);
	free(mem);
}

/*
 * The provenance records of issue 13's leftovers: allowlist files
 * (BW_REC_ALLOW_SOURCE), the last change (BW_REC_CHANGE) beside the build
 * origin, the keys the build sized for (BW_REC_SIZED). They read back as
 * written, survive a rewrite (an add), and an area without them (an older
 * bloomwall's) reads with none of them.
 */
BW_TEST(test_records_provenance)
{
	static const char *const allow[] = { "/etc/bloomwall/allow.txt",
					     "/srv/allow-2.txt" };
	struct bw_rec_source s[2] = { { .size = 10, .lines = 3, .entries = 2 },
				      { .size = 7, .lines = 1, .entries = 1 } };
	struct bw_records w, r, old, copy;
	__u32 tail = 0, n;
	void *mem = NULL;

	sample(&w);
	memset(s[0].hash, 0x5a, sizeof(s[0].hash));
	ASSERT_OK(bw_records_set_allow(&w, allow, s, 2), "allow files");
	w.have_origin = true;
	w.origin.how = BW_ORIGIN_ATTACH;
	w.origin.time_ns = 1000;
	w.have_change = true;
	w.change = (struct bw_rec_change){ .time_ns = 2000,
					   .how = BW_ORIGIN_CHANGE,
					   .verb = BW_CHANGE_UNALLOW,
					   .changes = 3 };
	w.have_sized = true;
	w.sized.entries = 12345;
	w.sized.name_entries = 77;
	w.sized.region_entries[1] = 12000;
	w.sized.name_region_entries[BW_NAME_SUBTREE] = 70;
	n = bw_records_blocks(&w);
	mem = bw_test_small_filter(n, &tail);
	if (!ASSERT_OK_PTR(mem, "filter"))
		goto out;
	ASSERT_OK(bw_records_write(mem, tail + n, &w), "write");
	ASSERT_OK(bw_records_read(mem, tail + n, &r), "read");
	ASSERT_EQ(r.nallow, 2, "two allowlist files");
	ASSERT_EQ(r.nlists, 2, "the block lists apart");
	ASSERT_STREQ(r.allow[1], allow[1], "allow path");
	ASSERT_TRUE(r.allow_src[0].known && r.allow_src[1].known, "known");
	ASSERT_TRUE(!memcmp(&r.allow_src[0].s, &s[0], sizeof(s[0])),
		    "what the file was");
	ASSERT_TRUE(r.have_origin && r.origin.how == BW_ORIGIN_ATTACH,
		    "the build origin stays");
	ASSERT_TRUE(r.have_change, "the change");
	ASSERT_TRUE(!memcmp(&r.change, &w.change, sizeof(w.change)),
		    "change as written");
	ASSERT_TRUE(r.have_sized, "sized");
	ASSERT_TRUE(!memcmp(&r.sized, &w.sized, sizeof(w.sized)),
		    "sized as written");
	/* A rebuild keeping the allowlist copies the files' records. */
	bw_records_init(&copy);
	ASSERT_OK(bw_records_copy_allow(&copy, &r), "copy");
	ASSERT_EQ(copy.nallow, 2, "copied");
	ASSERT_STREQ(copy.allow[0], allow[0], "copied path");
	ASSERT_TRUE(!memcmp(&copy.allow_src[0].s, &s[0], sizeof(s[0])),
		    "copied source");
	bw_records_free(&copy);
	bw_records_free(&r);
	/* An older bloomwall's area: none of them, and that is no error. */
	sample(&old);
	ASSERT_OK(bw_records_write(mem, tail + n, &old), "write an old area");
	ASSERT_OK(bw_records_read(mem, tail + n, &r), "read it");
	ASSERT_EQ(r.nallow + r.have_change + r.have_sized, 0,
		  "no allowlist files, change or sized recorded");
	ASSERT_EQ(r.nlists, 2, "its lists");
	bw_records_free(&r);
	bw_records_free(&old);
	free(mem);
out:
	bw_records_free(&w);
}

/* The new records' bodies are checked as the others are. */
BW_TEST(test_records_provenance_hostile)
{
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION,
				 .nrecords = 1 };
	struct bw_rec_head h = { 0 };
	struct bw_records r;
	__u32 tail = 0, start;
	__u8 *mem = bw_test_small_filter(4, &tail), *p;
	static const struct {
		__u16 type;
		__u32 len;
		const char *what;
	} bad[] = {
		{ BW_REC_CHANGE, 8, "a short change" },
		{ BW_REC_SIZED, sizeof(struct bw_rec_sized) + 8,
		  "a long sized" },
		{ BW_REC_ALLOW_SOURCE, sizeof(struct bw_rec_source),
		  "an allowlist file without a path" },
	};
	size_t i;

	if (!ASSERT_OK_PTR(mem, "filter"))
		return;
	start = bw_records_start(mem);
	p = mem + (size_t)start * BW_BLOCK_BYTES;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(p, 0, 2 * BW_BLOCK_BYTES);
		h.type = bad[i].type;
		h.len = bad[i].len;
		a.records_len = sizeof(h) + ((bad[i].len + 7) & ~7U);
		memcpy(p, &a, sizeof(a));
		memcpy(p + BW_BLOCK_BYTES, &h, sizeof(h));
		ASSERT_EQ(bw_records_read(mem, tail + 4, &r), -EINVAL,
			  bad[i].what);
	}
	/* Two changes: one is all an area holds. */
	memset(p, 0, 2 * BW_BLOCK_BYTES);
	a.nrecords = 2;
	a.records_len = 2 * (sizeof(h) + sizeof(struct bw_rec_change));
	h.type = BW_REC_CHANGE;
	h.len = sizeof(struct bw_rec_change);
	memcpy(p, &a, sizeof(a));
	memcpy(p + BW_BLOCK_BYTES, &h, sizeof(h));
	memcpy(p + BW_BLOCK_BYTES + sizeof(h) + sizeof(struct bw_rec_change),
	       &h, sizeof(h));
	ASSERT_EQ(bw_records_read(mem, tail + 4, &r), -EINVAL, "two changes");
	free(mem);
}
