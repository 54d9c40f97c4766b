// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The index of a record area (user/filter/records_index.c): a remove
 * through it marks the very bytes a walk of the whole area marks, and
 * counts them the same; an append through it is the append a walk of
 * the log's heads makes; another writer's append or mark makes it stale
 * (refused, nothing written); a mark another writer made without its
 * count (killed between) leaves the index not valid, the area right.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_index.h"
#include "filter/records_log.h"
#include "filter/records_read.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "test_helpers.h"
#include "unit.h"

struct two {
	void *a, *b; /* the same area twice: by the index, by a walk */
	__u32 nblocks;
	size_t bytes;
};

static bool two_make(struct two *t, const struct bw_records *w)
{
	__u32 n = bw_records_blocks(w) + bw_records_room(w), tail;

	t->a = bw_test_small_filter(n, &tail);
	t->nblocks = tail + n;
	t->bytes = (size_t)t->nblocks * BW_BLOCK_BYTES;
	t->b = t->a ? malloc(t->bytes) : NULL;
	if (!t->b || bw_records_write(t->a, t->nblocks, w))
		return false;
	memcpy(t->b, t->a, t->bytes);
	return true;
}

static int index_of(struct bw_rec_index *ix, const struct two *t)
{
	struct bw_records r;
	__u32 marks = bw_records_marks(t->a, t->nblocks);
	int err = bw_records_read(t->a, t->nblocks, &r);

	if (!err)
		err = bw_rec_index_build(ix, t->a, t->nblocks, &r, marks);
	bw_records_free(&r);
	return err;
}

BW_TEST(test_records_index_same_bytes)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.9"),
			 b = bw_test_prefix("2001:db8::7"),
			 c = bw_test_prefix("192.0.2.1");
	struct bw_entries s, out;
	struct bw_rec_index ix;
	struct bw_records w;
	struct two t = {};
	bool f1[4], f2[4];
	__u64 e;

	bw_records_init(&w);
	bw_entries_init(&s);
	bw_entries_init(&out);
	bw_rec_index_init(&ix);
	bw_records_add(&w, bw_key_prefix(&a));
	bw_records_add_until(&w, bw_key_name("one.test", 8, BW_DOM_SUBTREE),
			     1900000000);
	if (!ASSERT_TRUE(two_make(&t, &w), "the area") ||
	    !ASSERT_OK(index_of(&ix, &t), "the index"))
		goto out;
	ASSERT_TRUE(bw_rec_index_held(&ix, bw_key_prefix(&a), &e) && !e,
		    "a recorded add, no end");
	/* a again with an end, b, a name: in the log, both ways. */
	bw_entries_push(&s, bw_key_prefix(&a), 1800000000);
	bw_entries_push(&s, bw_key_name("one.test", 8, BW_DOM_SUBTREE), 0);
	bw_entries_push(&s, bw_key_prefix(&b), 0);
	ASSERT_OK(bw_rec_index_add(&ix, t.a, t.nblocks, &s, NULL),
		  "through it");
	ASSERT_OK(bw_records_log_add(t.b, t.nblocks, &s), "by a walk");
	ASSERT_TRUE(!memcmp(t.a, t.b, t.bytes), "the same append");
	ASSERT_TRUE(bw_rec_index_held(&ix, bw_key_prefix(&a), &e) &&
			    e == 1800000000,
		    "its last occurrence decides");
	/* a (twice: in the records and the log), the name, c never added. */
	bw_entries_push(&out, bw_key_prefix(&c), 0);
	bw_entries_push(&out, bw_key_prefix(&a), 0);
	bw_entries_push(&out, bw_key_name("one.test", 8, BW_DOM_SUBTREE), 0);
	bw_entries_push(&out, bw_key_prefix(&a), 0);
	ASSERT_EQ(bw_rec_index_mark(&ix, t.a, t.nblocks, &out, f1), 2,
		  "two marked through it");
	ASSERT_EQ(bw_records_mark_gone_all(t.b, t.nblocks, &out, f2), 2,
		  "two by a walk");
	ASSERT_TRUE(!memcmp(f1, f2, sizeof(f1)), "found alike");
	ASSERT_TRUE(!f1[0] && f1[1] && f1[2] && !f1[3], "the first of each");
	ASSERT_TRUE(!memcmp(t.a, t.b, t.bytes), "the same bytes marked");
	ASSERT_TRUE(bw_rec_index_current(&ix, t.a, t.nblocks),
		    "current after its own marks");
	ASSERT_FALSE(bw_rec_index_held(&ix, bw_key_prefix(&a), &e), "a out");
	ASSERT_TRUE(bw_rec_index_held(&ix, bw_key_prefix(&b), &e), "b held");
out:
	bw_rec_index_free(&ix);
	free(t.a);
	free(t.b);
	bw_entries_free(&s);
	bw_entries_free(&out);
	bw_records_free(&w);
}

BW_TEST(test_records_index_stale)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.9"),
			 b = bw_test_prefix("10.0.0.10");
	struct bw_entries s;
	struct bw_rec_index ix;
	struct bw_records w;
	struct two t = {};
	bool found[1];
	__u64 end, o;
	long long at;
	long x;

	bw_records_init(&w);
	bw_entries_init(&s);
	bw_rec_index_init(&ix);
	bw_records_add(&w, bw_key_prefix(&a));
	bw_entries_push(&s, bw_key_prefix(&b), 0);
	if (!ASSERT_TRUE(two_make(&t, &w), "the area") ||
	    !ASSERT_OK(index_of(&ix, &t), "the index"))
		goto out;
	/* Another writer appends: the index is stale, nothing written. */
	ASSERT_OK(bw_records_log_add(t.a, t.nblocks, &s), "another append");
	memcpy(t.b, t.a, t.bytes);
	ASSERT_FALSE(bw_rec_index_current(&ix, t.a, t.nblocks), "stale");
	ASSERT_EQ(bw_rec_index_add(&ix, t.a, t.nblocks, &s, NULL), -ESTALE,
		  "an append refused");
	ASSERT_EQ(bw_rec_index_mark(&ix, t.a, t.nblocks, &s, found), -ESTALE,
		  "a remove refused");
	ASSERT_TRUE(!memcmp(t.a, t.b, t.bytes), "nothing written");
	end = ix.end;
	ASSERT_EQ(bw_records_log_add_at(t.a, t.nblocks, &s, NULL, &end, &o),
		  -ESTALE, "no append at an end that moved");
	at = bw_records_log_end(t.a, t.nblocks);
	ASSERT_TRUE(at > (long long)ix.end, "the log's end moved");
	/* Another writer's mark: stale by the count. */
	ASSERT_OK(index_of(&ix, &t), "indexed again");
	ASSERT_TRUE(bw_rec_index_current(&ix, t.a, t.nblocks), "current");
	ASSERT_EQ(bw_records_mark_gone(t.a, t.nblocks, bw_key_prefix(&a)), 1,
		  "another remove");
	ASSERT_FALSE(bw_rec_index_current(&ix, t.a, t.nblocks),
		     "stale by the marks");
	/* A mark without its count (its writer killed between). */
	ASSERT_OK(index_of(&ix, &t), "indexed again");
	x = bw_entries_find(&ix.keys, bw_key_prefix(&b));
	if (!ASSERT_TRUE(x >= 0 && ix.first[x] != BW_REC_OCC_NONE, "b's"))
		goto out;
	o = ix.occ[ix.first[x]].off;
	ASSERT_EQ(bw_records_mark_at(t.a, t.nblocks, o, bw_key_prefix(&a)), 0,
		  "not a's place");
	ASSERT_EQ(bw_records_mark_at(t.a, t.nblocks, o, bw_key_prefix(&b)), 1,
		  "b marked, not counted");
	ASSERT_EQ(bw_records_mark_at(t.a, t.nblocks, o, bw_key_prefix(&b)), 0,
		  "once");
	ASSERT_TRUE(bw_rec_index_current(&ix, t.a, t.nblocks),
		    "the count did not move");
	ASSERT_EQ(bw_rec_index_mark(&ix, t.a, t.nblocks, &s, found), 0,
		  "nothing left to mark");
	ASSERT_FALSE(ix.valid, "the index knows it was wrong");
out:
	bw_rec_index_free(&ix);
	free(t.a);
	free(t.b);
	bw_entries_free(&s);
	bw_records_free(&w);
}
