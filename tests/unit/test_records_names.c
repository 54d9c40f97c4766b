// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Added names' expiries and marks (user/filter/rec_names.c, records.c,
 * records_edit.c, records_gone.c; the BW_REC_ADDED_NAME_EXPIRES record and
 * BW_REC_NAME_GONE): they read back as written, kept parallel to the names
 * by every edit; an older bloomwall's view (the record unknown) has every
 * name, as permanent; an expiry naming no added name is ignored; a hostile
 * record is refused; a name marked in place reads as gone and is left out
 * when written back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/build_records.h"
#include "filter/build_req.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "test_helpers.h"
#include "unit.h"

#define SUB BW_DOM_SUBTREE
#define T1 1700000000ULL
#define T2 1800000000ULL

/*
 * Four names: a.example, b.example (ends T1), *.b.example (ends T2: the
 * same text, another entry), *.c.example; and one address.
 */
static void sample(struct bw_records *r)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32, .lo = 0x0a000001 };

	bw_records_init(r);
	bw_records_add(r, bw_key_prefix(&p));
	bw_records_add(r, bw_key_name("a.example", 9, 0));
	bw_records_add_until(r, bw_key_name("b.example", 9, 0), T1);
	bw_records_add_until(r, bw_key_name("b.example", 9, SUB), T2);
	bw_records_add(r, bw_key_name("c.example", 9, SUB));
}

struct area {
	void *mem;
	__u32 tail, nblocks;
	struct bw_rec_area *a;
	__u8 *recs;
};

static bool area_write(struct area *h, const struct bw_records *w)
{
	__u32 n = bw_records_blocks(w);

	free(h->mem);
	h->mem = bw_test_small_filter(n, &h->tail);
	if (!h->mem)
		return false;
	h->nblocks = h->tail + n;
	h->a = (void *)((char *)h->mem + (size_t)h->tail * BW_BLOCK_BYTES);
	h->recs = (__u8 *)h->a + BW_BLOCK_BYTES;
	return !bw_records_write(h->mem, h->nblocks, w);
}

static struct bw_rec_head *find_rec(const struct area *h, __u16 type)
{
	struct bw_rec_head *r;
	__u64 off = 0;
	__u32 i;

	for (i = 0; i < h->a->nrecords; i++) {
		r = (void *)(h->recs + off);
		if (r->type == type)
			return r;
		off += sizeof(*r) + bw_rec_padded(r->len);
	}
	return NULL;
}

static int read_status(const struct area *h)
{
	struct bw_records r;
	int err = bw_records_read(h->mem, h->nblocks, &r);

	bw_records_free(&r);
	return err;
}

static long find(const struct bw_records *r, const char *name, __u8 flags)
{
	return bw_records_find(r, bw_key_name(name, strlen(name), flags));
}

/* name's expiry in r, or -1 when r does not hold it. */
static long long expiry(const struct bw_records *r, const char *name,
			__u8 flags)
{
	long k = find(r, name, flags);

	return k < 0 ? -1 : (long long)r->added.v[k].expires;
}

BW_TEST(test_name_expiry_round_trip)
{
	struct bw_records w, r;
	struct bw_rec_head *e;
	struct area h = {};
	void *copy;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	e = find_rec(&h, BW_REC_ADDED_NAME_EXPIRES);
	if (ASSERT_OK_PTR(e, "the record"))
		ASSERT_EQ(e->len, 2 * (2 + 9 + 8), "two entries");
	if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
		goto out;
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 4, "every name");
	ASSERT_TRUE(bw_records_same_added(&w, &r), "names and expiries");
	ASSERT_EQ(expiry(&r, "a.example", 0), 0, "a never expires");
	ASSERT_EQ(expiry(&r, "b.example", 0), T1, "b's end");
	ASSERT_EQ(expiry(&r, "b.example", SUB), T2, "*.b's end");
	ASSERT_EQ(expiry(&r, "c.example", SUB), 0, "*.c never expires");
	ASSERT_EQ(find(&r, "b.example", 0), 2,
		  "in the order added, after the address");
	ASSERT_EQ(r.nother, 0, "a known record");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 2,
		  "two names expire");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_PREFIX), 0,
		  "no address expires");
	ASSERT_EQ_U64(bw_records_next_expiry(&r), T1, "the next");
	copy = calloc(h.nblocks, BW_BLOCK_BYTES);
	if (ASSERT_OK_PTR(copy, "copy")) {
		memcpy(copy, h.mem, (size_t)h.tail * BW_BLOCK_BYTES);
		ASSERT_OK(bw_records_write(copy, h.nblocks, &r), "again");
		ASSERT_EQ(
			memcmp(copy, h.mem, (size_t)h.nblocks * BW_BLOCK_BYTES),
			0, "the same bytes");
		free(copy);
	}
	bw_records_free(&r);
	/* Made permanent: no record at all, as an older bloomwall wrote. */
	bw_records_add_until(&w, bw_key_name("b.example", 9, 0), 0);
	bw_records_add_until(&w, bw_key_name("b.example", 9, SUB), 0);
	if (ASSERT_TRUE(area_write(&h, &w), "write permanent"))
		ASSERT_TRUE(!find_rec(&h, BW_REC_ADDED_NAME_EXPIRES),
			    "no record");
out:
	free(h.mem);
	bw_records_free(&w);
}

/* The record unknown (an older bloomwall), or naming no added name. */
BW_TEST(test_name_expiry_older_reader)
{
	struct bw_rec_head *e, *names;
	struct bw_records w, r;
	struct area h = {};
	__u8 *body;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	e = find_rec(&h, BW_REC_ADDED_NAME_EXPIRES);
	names = find_rec(&h, BW_REC_ADDED_NAMES);
	if (!ASSERT_OK_PTR(e, "expiries") || !ASSERT_OK_PTR(names, "names"))
		goto out;
	ASSERT_EQ(names->len, 4 * (2 + 9), "every name where an older reads");
	e->type = 99;
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "unknown type")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 4,
			  "the names");
		ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 0,
			  "none expires");
		ASSERT_EQ(r.nother, 1, "the record carried over");
	}
	bw_records_free(&r);
	e->type = BW_REC_ADDED_NAME_EXPIRES;
	/* The second name (b.example) became x.example: its expiry is moot. */
	body = (__u8 *)(names + 1);
	ASSERT_EQ(body[11 + 2], 'b', "b.example's first byte");
	body[11 + 2] = 'x';
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "an orphan")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 4,
			  "names");
		ASSERT_EQ(expiry(&r, "x.example", 0), 0, "permanent");
		ASSERT_EQ(expiry(&r, "b.example", SUB), T2, "*.b's holds");
		ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 1,
			  "one expires");
	}
	bw_records_free(&r);
out:
	free(h.mem);
	bw_records_free(&w);
}

BW_TEST(test_name_expiry_hostile)
{
	const __u64 zero = 0, late = BW_REC_EXPIRES_MAX + 1, t1 = T1;
	struct bw_rec_head *e;
	struct bw_records w;
	struct area h = {};
	__u64 len, cut;
	__u8 *v, one[19];
	int bad = 0;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	e = find_rec(&h, BW_REC_ADDED_NAME_EXPIRES);
	if (!ASSERT_OK_PTR(e, "expiries"))
		goto out;
	v = (__u8 *)(e + 1); /* kind, len, "b.example", expiry; twice */
	ASSERT_OK(read_status(&h), "as written");
	memcpy(v + 11, &zero, 8);
	ASSERT_EQ(read_status(&h), -EINVAL, "an expiry of 0");
	memcpy(v + 11, &late, 8);
	ASSERT_EQ(read_status(&h), -EINVAL, "past year 9999");
	memcpy(v + 11, &t1, 8);
	ASSERT_OK(read_status(&h), "restored");
	v[0] = 2;
	ASSERT_EQ(read_status(&h), -EINVAL, "an unknown kind");
	v[0] = BW_NAME_EXACT | BW_REC_NAME_GONE;
	ASSERT_EQ(read_status(&h), -EINVAL, "a gone mark: not here");
	v[0] = BW_NAME_EXACT;
	v[2] = 'B';
	ASSERT_EQ(read_status(&h), -EINVAL, "a name not folded");
	v[2] = '.';
	ASSERT_EQ(read_status(&h), -EINVAL, "not a name");
	v[2] = 'b';
	v[1] = 0;
	ASSERT_EQ(read_status(&h), -EINVAL, "an empty name");
	v[1] = 200;
	ASSERT_EQ(read_status(&h), -EINVAL, "a name past the record");
	v[1] = 9;
	ASSERT_OK(read_status(&h), "restored");
	memcpy(one, v + 19, sizeof(one));
	memcpy(v + 19, v, sizeof(one));
	ASSERT_EQ(read_status(&h), -EINVAL, "one name's expiry twice");
	memcpy(v + 19, one, sizeof(one));
	e->len = 37;
	ASSERT_EQ(read_status(&h), -EINVAL, "a partial entry");
	e->len = 20;
	ASSERT_EQ(read_status(&h), -EINVAL, "a partial second entry");
	e->len = ~0U;
	ASSERT_EQ(read_status(&h), -EINVAL, "a length past the area");
	e->len = 38;
	ASSERT_OK(read_status(&h), "restored");
	len = h.a->records_len;
	for (cut = 0; cut < len; cut += BW_REC_ALIGN) {
		h.a->records_len = cut;
		bad += read_status(&h) != -EINVAL;
	}
	h.a->records_len = len;
	ASSERT_EQ(bad, 0, "records cut short that read");
out:
	free(h.mem);
	bw_records_free(&w);
}

/* Every edit keeps the expiries with their names. */
BW_TEST(test_name_expiry_edits)
{
	struct bw_records r, s;

	bw_records_init(&r);
	bw_records_init(&s);
	ASSERT_EQ(bw_records_add_until(&r, bw_key_name("a.example", 9, 0), 100),
		  1, "new, expiring");
	ASSERT_EQ(bw_records_add(&r, bw_key_name("a.example", 9, SUB)), 1,
		  "the subtree: another, permanent");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_name("c.example", 9, 0), 300),
		  1, "new, expiring");
	ASSERT_EQ(bw_records_add(&r, bw_key_name("a.example", 9, 0)), 0,
		  "there");
	ASSERT_EQ(expiry(&r, "a.example", 0), 100, "add keeps the expiry");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_name("a.example", 9, 0), 200),
		  0, "again");
	ASSERT_EQ(expiry(&r, "a.example", 0), 200, "the new timeout replaces");
	ASSERT_EQ(expiry(&r, "a.example", SUB), 0, "the subtree's stays");
	ASSERT_EQ_U64(bw_records_next_expiry(&r), 200, "the next");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_NAME, 199), 0,
		  "none past yet");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_NAME, 200), 1,
		  "at its end, past");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_NAME, 1000), 2, "both");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_PREFIX, 1000), 0,
		  "addresses: none");
	bw_records_add(&s, bw_key_name("a.example", 9, 0));
	bw_records_add(&s, bw_key_name("a.example", 9, SUB));
	bw_records_add(&s, bw_key_name("c.example", 9, 0));
	ASSERT_FALSE(bw_records_same_added(&r, &s), "expiries differ");
	bw_records_add_until(&s, bw_key_name("a.example", 9, 0), 200);
	bw_records_add_until(&s, bw_key_name("c.example", 9, 0), 300);
	ASSERT_TRUE(bw_records_same_added(&r, &s), "the same");
	bw_records_drop(&r, 0);
	ASSERT_EQ_U64(r.added.v[0].expires, 0, "*.a moved down, permanent");
	ASSERT_EQ_U64(r.added.v[1].expires, 300, "c's with it");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_name("c.example", 9, 0), 0),
		  0, "made permanent");
	ASSERT_EQ_U64(bw_records_next_expiry(&r), 0, "none expires");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 0, "none expiring");
	bw_records_free(&r);
	bw_records_free(&s);
}

/* drop_expired: names past their end go, with addresses; others stay. */
BW_TEST(test_name_drop_expired)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32, .lo = 0x0a000001 };
	struct bw_records r;

	sample(&r);
	bw_records_add_until(&r, bw_key_prefix(&p),
			     T1 + 5); /* re-added, now expiring */
	bw_records_add_until(&r, bw_key_name("d.example", 9, 0), T1 + 10);
	ASSERT_EQ(bw_records_drop_expired(&r, T1 - 1), 0, "none yet");
	ASSERT_EQ(bw_records_drop_expired(&r, T1 + 5), 2,
		  "b.example and the address");
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_PREFIX), 0,
		  "the address gone");
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 4,
		  "four names left");
	ASSERT_EQ(find(&r, "b.example", 0), -1, "b.example dropped");
	ASSERT_EQ(expiry(&r, "a.example", 0), 0, "a stays, permanent");
	ASSERT_EQ(expiry(&r, "b.example", SUB), T2, "*.b stays, with its end");
	ASSERT_EQ(expiry(&r, "c.example", SUB), 0, "*.c stays");
	ASSERT_EQ(expiry(&r, "d.example", 0), T1 + 10, "d stays, its end");
	ASSERT_EQ(find(&r, "d.example", 0), 3, "the order kept");
	ASSERT_EQ(bw_records_drop_expired(&r, T2), 2, "d and *.b at T2");
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 2,
		  "the permanent ones");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 0, "none expiring");
	bw_records_free(&r);
}

/*
 * Names marked in place: the kind byte, one store; the reader lists the
 * name among the gone ones, not the added; an exact name and the subtree
 * of the same text are two entries; the marks count moves once a mark;
 * written back, the name is left out, and its expiry with it.
 */
BW_TEST(test_name_gone_mark)
{
	struct bw_records w, r;
	struct bw_rec_head *names;
	struct area h = {};
	__u8 byte;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("d.example", 9, 0)),
		  0, "a name the area does not hold");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("a.example", 9, SUB)),
		  0, "*.a is not added, a is");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 0, "no mark");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("b.example", 9, SUB)),
		  1, "marked");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 1, "one mark");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("b.example", 9, SUB)),
		  0, "marked already: not again");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 1, "still one mark");
	names = find_rec(&h, BW_REC_ADDED_NAMES);
	if (ASSERT_OK_PTR(names, "names"))
		ASSERT_EQ(((__u8 *)(names + 1))[22],
			  BW_NAME_SUBTREE | BW_REC_NAME_GONE, "the kind byte");
	if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
		goto out;
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 3,
		  "three names left");
	ASSERT_EQ(find(&r, "b.example", SUB), -1, "*.b is not added");
	ASSERT_EQ(expiry(&r, "b.example", 0), T1, "b is, with its end");
	ASSERT_EQ(r.gone.n, 1, "one gone");
	ASSERT_TRUE(r.gone.n == 1 && bw_entry_is_name(&r.gone.v[0]) &&
			    r.gone.v[0].d.flags == SUB &&
			    r.gone.v[0].d.len == 9 &&
			    !memcmp(bw_entry_name(&r.gone, &r.gone.v[0]),
				    "b.example", 9),
		    "the gone one is *.b.example");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 1,
		  "its expiry is moot");
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_PREFIX), 1,
		  "the address stays");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("b.example", 9, 0)),
		  1, "the exact one too");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 2, "two marks");
	/* Written back: left out, no mark, no expiry for them. */
	if (ASSERT_TRUE(area_write(&h, &r), "write back")) {
		bw_records_free(&r);
		ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read back");
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 3,
			  "b.example is added: this r's");
		ASSERT_EQ(r.gone.n, 0, "none gone");
		ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 0, "no mark");
		ASSERT_EQ(find(&r, "b.example", SUB), -1, "*.b left out");
		ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 1,
			  "b's end only");
	}
	bw_records_free(&r);
	/* A hostile area is refused, nothing written. */
	h.a->records_len += BW_BLOCK_BYTES * 1000;
	byte = h.recs[sizeof(struct bw_rec_head)];
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("a.example", 9, 0)),
		  -EINVAL, "a malformed area");
	ASSERT_EQ(h.recs[sizeof(struct bw_rec_head)], byte, "nothing written");
out:
	free(h.mem);
	bw_records_free(&w);
}

/*
 * An area listing a name twice (hostile: add never does) with an expiry:
 * the first holds it; many names read back in their order (the reader
 * indexes them, O(n), rather than scanning for each).
 */
BW_TEST(test_name_twice_and_many)
{
	struct bw_records w, r;
	struct area h = {};
	char name[32];
	size_t i, n = 20000, same = 0;
	int len;

	bw_records_init(&w);
	bw_entries_push(&w.added, bw_key_name("a.example", 9, 0), 0);
	bw_entries_push(&w.added, bw_key_name("b.example", 9, 0), 0);
	bw_entries_push(&w.added, bw_key_name("a.example", 9, 0), 0);
	w.added.v[0].expires = T1;
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 2,
			  "once each");
		ASSERT_EQ(find(&r, "b.example", 0), 1, "the order");
		ASSERT_EQ(expiry(&r, "a.example", 0), T1, "the first's end");
	}
	bw_records_free(&r);
	bw_records_free(&w);
	bw_records_init(&w);
	for (i = 0; i < n; i++) {
		len = snprintf(name, sizeof(name), "n%zu.example", n - i);
		bw_records_add_until(
			&w, bw_key_name(name, (size_t)len, i % 2 ? SUB : 0),
			i % 3 ? T1 + i : 0);
	}
	if (!ASSERT_TRUE(area_write(&h, &w), "write many"))
		goto out;
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read many")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), n, "all");
		for (i = 0;
		     i < n && i < bw_entries_count(&r.added, BW_ENTRY_NAME);
		     i++)
			same += r.added.v[i].d.len == w.added.v[i].d.len &&
				r.added.v[i].expires == w.added.v[i].expires;
		ASSERT_EQ(same, n, "in order, each with its end");
		ASSERT_TRUE(bw_records_same_added(&w, &r), "the same");
	}
	bw_records_free(&r);
out:
	free(h.mem);
	bw_records_free(&w);
}

/* A build records the kept names with their ends (build_req.h). */
BW_TEST(test_name_build_records)
{
	struct bw_build_req req;
	struct bw_records r;
	struct bw_entries l;

	bw_entries_init(&l);
	bw_entries_push(&l, bw_key_name("a.example", 9, 0), 0);
	bw_entries_push(&l, bw_key_name("b.example", 9, SUB), T2);
	bw_build_req_init(&req, "test");
	req.added = &l;
	if (ASSERT_OK(bw_build_records(&req, NULL, &r), "build records")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 2,
			  "both names");
		ASSERT_EQ(expiry(&r, "a.example", 0), 0, "a permanent");
		ASSERT_EQ(expiry(&r, "b.example", SUB), T2, "*.b ends");
	}
	bw_records_free(&r);
	l.v[1].expires = 0;
	if (ASSERT_OK(bw_build_records(&req, NULL, &r), "no expiries")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 2,
			  "both names");
		ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_NAME), 0,
			  "none expires");
	}
	bw_records_free(&r);
	bw_entries_free(&l);
}
