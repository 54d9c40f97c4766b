// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Expiries of added entries (user/filter/rec_prefix.c, records_edit.c, the
 * BW_REC_ADDED_EXPIRES record): they read back as written, kept parallel
 * to the entries by every edit; an older bloomwall's view (the record
 * unknown) still has every entry, as permanent; an expiry naming no entry
 * is ignored; a hostile record is refused (-EINVAL), never read past.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

/* Four entries, the second and the fourth expiring. */
static void sample(struct bw_records *r)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.9"),
			 b = bw_test_prefix("10.1.0.0/16"),
			 c = bw_test_prefix("2001:db8::5"),
			 d = bw_test_prefix("2001:db8:1::/48");

	bw_records_init(r);
	bw_records_add(r, bw_key_prefix(&a));
	bw_records_add_until(r, bw_key_prefix(&b), 1700000000);
	bw_records_add(r, bw_key_prefix(&c));
	bw_records_add_until(r, bw_key_prefix(&d), 1800000000);
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

	h->mem = bw_test_small_filter(n, &h->tail);
	if (!h->mem)
		return false;
	h->nblocks = h->tail + n;
	h->a = (void *)((char *)h->mem + (size_t)h->tail * BW_BLOCK_BYTES);
	h->recs = (__u8 *)h->a + BW_BLOCK_BYTES;
	return !bw_records_write(h->mem, h->nblocks, w);
}

/* The record of the type, or NULL: walks the area as a reader does. */
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

BW_TEST(test_expiry_round_trip)
{
	struct bw_records w, r;
	struct area h = {};
	void *copy;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read");
	ASSERT_EQ(r.added.n, 4, "every entry");
	ASSERT_TRUE(bw_records_same_added(&w, &r), "entries and expiries");
	ASSERT_EQ_U64(r.added.v[0].expires, 0, "the first never expires");
	ASSERT_EQ_U64(r.added.v[1].expires, 1700000000, "the second's end");
	ASSERT_EQ_U64(r.added.v[3].expires, 1800000000, "the fourth's end");
	ASSERT_EQ(r.nother, 0, "a known record, not carried as unknown");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_PREFIX), 2, "two expire");
	/* Written again, the same bytes. */
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
	/* Nothing expiring: no such record, as an older bloomwall wrote. */
	free(h.mem);
	bw_records_free(&w);
	bw_records_init(&w);
	bw_records_add(&w, bw_key_prefix(&(struct bw_prefix){ .family = BW_V4,
							      .plen = 32 }));
	if (ASSERT_TRUE(area_write(&h, &w), "write permanent"))
		ASSERT_TRUE(!find_rec(&h, BW_REC_ADDED_EXPIRES), "no record");
out:
	free(h.mem);
	bw_records_free(&w);
}

/*
 * What an older bloomwall sees (the type unknown to it): every entry in
 * BW_REC_ADDED, the expiries a record it skips and carries over.
 */
BW_TEST(test_expiry_older_reader)
{
	struct bw_rec_head *e, *added;
	struct bw_records w, r;
	struct bw_prefix x = bw_test_prefix("192.0.2.0/24");
	struct area h = {};

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	added = find_rec(&h, BW_REC_ADDED);
	e = find_rec(&h, BW_REC_ADDED_EXPIRES);
	if (!ASSERT_OK_PTR(added, "added") || !ASSERT_OK_PTR(e, "expiries"))
		goto out;
	ASSERT_EQ(added->len, 4 * sizeof(struct bw_rec_prefix),
		  "all four entries where an older reader reads them");
	ASSERT_EQ(e->len, 2 * sizeof(struct bw_rec_expiry), "two expiries");
	/* As unknown: read, permanent, the record kept as it is. */
	e->type = 99;
	ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "unknown type");
	ASSERT_EQ(r.added.n, 4, "the entries");
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_PREFIX), 0, "none expires");
	ASSERT_EQ(r.nother, 1, "the record carried over");
	bw_records_free(&r);
	e->type = BW_REC_ADDED_EXPIRES;
	/* An older bloomwall replaced the second entry: its expiry is moot. */
	{
		struct bw_rec_prefix *p = (void *)(added + 1);

		memset(&p[1], 0, sizeof(p[1]));
		p[1].family = BW_V4;
		p[1].plen = 24;
		memcpy(p[1].addr, "\xc0\x00\x02\x00", 4);
	}
	ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "an orphan expiry");
	ASSERT_EQ(r.added.n, 4, "entries");
	ASSERT_EQ(bw_records_find(&r, bw_key_prefix(&x)), 1, "the other entry");
	ASSERT_EQ_U64(r.added.v[1].expires, 0, "permanent");
	ASSERT_EQ_U64(r.added.v[3].expires, 1800000000, "the other expiry");
	bw_records_free(&r);
out:
	free(h.mem);
	bw_records_free(&w);
}

BW_TEST(test_expiry_hostile)
{
	const __u64 zero = 0, late = BW_REC_EXPIRES_MAX + 1;
	const __u32 partial = sizeof(struct bw_rec_expiry) + 8;
	const __u8 plen33 = 33;
	struct bw_rec_expiry *v, saved;
	struct bw_rec_head *e;
	struct bw_records w;
	struct area h = {};
	__u64 len, cut;
	int bad = 0;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	e = find_rec(&h, BW_REC_ADDED_EXPIRES);
	if (!ASSERT_OK_PTR(e, "expiries"))
		goto out;
	v = (void *)(e + 1);
	ASSERT_OK(read_status(&h), "as written");
	memcpy(&v[0].expires, &zero, 8);
	ASSERT_EQ(read_status(&h), -EINVAL, "an expiry of 0");
	memcpy(&v[0].expires, &late, 8);
	ASSERT_EQ(read_status(&h), -EINVAL, "past year 9999");
	v[0].expires = 1700000000;
	v[0].prefix.plen = plen33;
	ASSERT_EQ(read_status(&h), -EINVAL, "an IPv4 /33");
	v[0].prefix.plen = 16;
	v[0].prefix.addr[3] = 1;
	ASSERT_EQ(read_status(&h), -EINVAL, "host bits");
	v[0].prefix.addr[3] = 0;
	saved = v[1];
	v[1] = v[0];
	ASSERT_EQ(read_status(&h), -EINVAL, "one prefix twice");
	v[1] = saved;
	e->len = partial;
	ASSERT_EQ(read_status(&h), -EINVAL, "a partial entry");
	e->len = ~0U;
	ASSERT_EQ(read_status(&h), -EINVAL, "a length past the area");
	e->len = 2 * sizeof(struct bw_rec_expiry);
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

/* Every edit keeps the expiries with their entries. */
BW_TEST(test_expiry_edits)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.1"),
			 b = bw_test_prefix("10.0.0.0/24"),
			 c = bw_test_prefix("2001:db8::1");
	struct bw_records r, s;

	bw_records_init(&r);
	bw_records_init(&s);
	ASSERT_EQ(bw_records_add_until(&r, bw_key_prefix(&a), 100), 1,
		  "new, expiring");
	ASSERT_EQ(bw_records_add(&r, bw_key_prefix(&b)), 1, "new, permanent");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_prefix(&c), 300), 1,
		  "new, expiring");
	ASSERT_EQ(bw_records_add(&r, bw_key_prefix(&a)), 0, "there");
	ASSERT_EQ_U64(r.added.v[0].expires, 100, "add keeps the expiry");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_prefix(&a), 200), 0,
		  "a re-ban");
	ASSERT_EQ_U64(r.added.v[0].expires, 200, "the new timeout replaces");
	ASSERT_EQ_U64(bw_records_next_expiry(&r), 200, "the next");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_PREFIX, 199), 0,
		  "none past yet");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_PREFIX, 200), 1,
		  "at its expiry, past");
	ASSERT_EQ(bw_records_expired(&r, BW_ENTRY_PREFIX, 1000), 2, "both");
	bw_records_add(&s, bw_key_prefix(&a));
	bw_records_add(&s, bw_key_prefix(&b));
	bw_records_add(&s, bw_key_prefix(&c));
	ASSERT_FALSE(bw_records_same_added(&r, &s), "expiries differ");
	s.added.v[0].expires = 200;
	s.added.v[2].expires = 300;
	ASSERT_TRUE(bw_records_same_added(&r, &s), "the same");
	bw_records_drop(&r, 0);
	ASSERT_EQ_U64(r.added.v[0].expires, 0, "b moved down, permanent");
	ASSERT_EQ_U64(r.added.v[1].expires, 300, "c's with it");
	ASSERT_EQ(bw_records_add_until(&r, bw_key_prefix(&c), 0), 0,
		  "made permanent");
	ASSERT_EQ_U64(bw_records_next_expiry(&r), 0, "none expires");
	bw_records_add_until(&s, bw_key_prefix(&b), 50);
	ASSERT_EQ(bw_records_drop_expired(&s, 250), 2, "two past at 250");
	ASSERT_EQ(s.added.n, 1, "one left");
	ASSERT_EQ(bw_records_find(&s, bw_key_prefix(&c)), 0, "c stays");
	ASSERT_EQ_U64(s.added.v[0].expires, 300, "with its expiry");
	bw_records_free(&r);
	bw_records_free(&s);
}

/*
 * An area listing an entry twice (hostile: add never does) with one
 * expiry for it: the first holds it, as bw_records_find finds that one,
 * and written back it reads the same (found by fuzz_records).
 */
BW_TEST(test_expiry_entry_twice)
{
	struct bw_prefix a = bw_test_prefix("192.0.2.0/24");
	struct bw_records w, r, again;
	struct area h = {};

	bw_records_init(&w);
	bw_entries_push(&w.added, bw_key_prefix(&a), 1700000000);
	bw_entries_push(&w.added, bw_key_prefix(&a), 0);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read");
	ASSERT_EQ(r.added.n, 2, "both");
	ASSERT_EQ_U64(r.added.v[0].expires, 1700000000, "the first expires");
	ASSERT_EQ_U64(r.added.v[1].expires, 0, "the second not");
	ASSERT_OK(bw_records_write(h.mem, h.nblocks, &r), "written back");
	ASSERT_OK(bw_records_read(h.mem, h.nblocks, &again), "read again");
	ASSERT_TRUE(bw_records_same_added(&r, &again), "the same");
	bw_records_free(&again);
	bw_records_free(&r);
out:
	free(h.mem);
	bw_records_free(&w);
}

/*
 * Entries taken out in place (records_gone.c): the mark is the entry's
 * family byte, one store; a reader then has the entry among the gone ones,
 * not the added, and its expiry names no added entry; the marks count
 * moves once a mark; writing the records back leaves it out.
 */
BW_TEST(test_gone_mark)
{
	struct bw_prefix b = bw_test_prefix("10.1.0.0/16"),
			 none = bw_test_prefix("10.9.9.9");
	struct bw_records w, r;
	struct area h = {};
	__u8 byte;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 0, "no mark as written");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks, bw_key_prefix(&none)),
		  0, "an entry the area does not hold");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks, bw_key_prefix(&b)), 1,
		  "marked");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 1, "one mark");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks, bw_key_prefix(&b)), 0,
		  "marked already: not again");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 1, "still one mark");
	if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
		goto out;
	ASSERT_EQ(r.added.n, 3, "three entries left");
	ASSERT_EQ(bw_records_find(&r, bw_key_prefix(&b)), -1,
		  "the marked one is not added");
	ASSERT_EQ(r.gone.n, 1, "one gone");
	ASSERT_TRUE(r.gone.n == 1 && bw_prefix_same(&r.gone.v[0].p, &b),
		    "the gone one is it");
	/* Its expiry names no added entry: the fourth's is the only one. */
	ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_PREFIX), 1,
		  "one expiring entry left");
	/* Written back: left out, no mark. */
	free(h.mem);
	h.mem = NULL;
	if (ASSERT_TRUE(area_write(&h, &r), "write back")) {
		bw_records_free(&r);
		ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read back");
		ASSERT_EQ(r.added.n, 3, "three entries");
		ASSERT_EQ(r.gone.n, 0, "none gone");
		ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 0, "no mark");
	}
	bw_records_free(&r);
	/* A hostile area is refused, nothing written. */
	h.a->records_len += BW_BLOCK_BYTES * 1000;
	byte = h.recs[sizeof(struct bw_rec_head)];
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks, bw_key_prefix(&none)),
		  -EINVAL, "a malformed area");
	ASSERT_EQ(h.recs[sizeof(struct bw_rec_head)], byte, "nothing written");
out:
	free(h.mem);
	bw_records_free(&w);
}

/* Every entry marked, one by one: each read sees exactly those left. */
BW_TEST(test_gone_each)
{
	const char *all[] = { "10.0.0.9", "10.1.0.0/16", "2001:db8::5",
			      "2001:db8:1::/48" };
	struct bw_records w, r;
	struct area h = {};
	struct bw_prefix p;
	size_t i;

	sample(&w);
	if (!ASSERT_TRUE(area_write(&h, &w), "write"))
		goto out;
	for (i = 0; i < 4; i++) {
		p = bw_test_prefix(all[i]);
		ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
					       bw_key_prefix(&p)),
			  1, "marked");
		if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
			break;
		ASSERT_EQ(r.added.n, 3 - i, "those left");
		ASSERT_EQ(r.gone.n, i + 1, "those gone");
		ASSERT_EQ(bw_records_find(&r, bw_key_prefix(&p)), -1,
			  "not added");
		bw_records_free(&r);
	}
out:
	free(h.mem);
	bw_records_free(&w);
}
