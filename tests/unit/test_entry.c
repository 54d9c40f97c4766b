// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Entries added at run time, prefixes and names in one set
 * (user/lists/entry.c), and the records' edits on them
 * (user/filter/records_edit.c): a lookup finds the first occurrence
 * whether the set is scanned or indexed, pushes keep the index, a change
 * of order drops it, and bulk drops keep the order of the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/records.h"
#include "filter/records_edit.h"
#include "lists/entry.h"
#include "test_helpers.h"

#define SUB BW_DOM_SUBTREE

static struct bw_entry_key v4(__u32 addr, __u8 plen)
{
	struct bw_prefix p = { .family = BW_V4, .plen = plen, .lo = addr };

	return bw_key_prefix(&p);
}

/* A name of the form nI.example, its text in buf. */
static struct bw_entry_key name_of(char *buf, size_t len, size_t i, __u8 f)
{
	int n = snprintf(buf, len, "n%zu.example", i);

	return bw_key_name(buf, (size_t)n, f);
}

/* The same lookups, scanned then indexed. */
BW_TEST(test_entry_find)
{
	struct bw_prefix p6 = { .family = BW_V6, .plen = 32, .hi = 1ULL << 60 };
	struct bw_entries s;
	char b[32], t[BW_NAME_MAX + 3];
	int pass;

	bw_entries_init(&s);
	ASSERT_OK(bw_entries_push(&s, v4(0x0a000001, 32), 0), "push v4");
	ASSERT_OK(bw_entries_push(&s, bw_key_name("a.example", 9, 0), 100),
		  "push name");
	ASSERT_OK(bw_entries_push(&s, bw_key_name("a.example", 9, SUB), 0),
		  "push its subtree");
	ASSERT_OK(bw_entries_push(&s, bw_key_prefix(&p6), 0), "push v6");
	ASSERT_OK(bw_entries_push(&s, v4(0x0a000001, 32), 5), "push v4 again");
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			ASSERT_OK(bw_entries_index(&s), "index");
		ASSERT_EQ(bw_entries_find(&s, v4(0x0a000001, 32)), 0,
			  "the first of two");
		ASSERT_EQ(bw_entries_find(&s, v4(0x0a000001, 24)), -1,
			  "another length is another entry");
		ASSERT_EQ(bw_entries_find(&s, bw_key_name("a.example", 9, 0)),
			  1, "the exact name");
		ASSERT_EQ(bw_entries_find(&s, bw_key_name("a.example", 9, SUB)),
			  2, "the subtree: another entry");
		ASSERT_EQ(bw_entries_find(&s, bw_key_name("b.example", 9, 0)),
			  -1, "not there");
		ASSERT_EQ(bw_entries_find(&s, bw_key_prefix(&p6)), 3, "v6");
	}
	ASSERT_EQ_U64(s.v[1].expires, 100, "the name's end kept");
	ASSERT_EQ(bw_entries_count(&s, BW_ENTRY_NAME), 2, "two names");
	ASSERT_EQ(bw_entries_count(&s, BW_ENTRY_ANY), 5, "five in all");
	ASSERT_TRUE(!strcmp(bw_entries_str(&s, 2, t, sizeof(t)), "*.a.example"),
		    "a subtree as an operator writes it");
	ASSERT_TRUE(!strcmp(bw_entries_str(&s, 0, t, sizeof(t)), "10.0.0.1"),
		    "an address as given");
	/* Indexed, a push is found; a drop moves the others down. */
	ASSERT_OK(bw_entries_push(&s, name_of(b, sizeof(b), 7, 0), 0), "push");
	ASSERT_TRUE(s.indexed, "a push keeps the index");
	ASSERT_EQ(bw_entries_find(&s, name_of(b, sizeof(b), 7, 0)), 5,
		  "the pushed one found");
	bw_entries_drop(&s, 0);
	ASSERT_FALSE(s.indexed, "a drop drops the index");
	ASSERT_EQ(bw_entries_find(&s, v4(0x0a000001, 32)), 3,
		  "the second occurrence now first");
	ASSERT_EQ(bw_entries_find(&s, name_of(b, sizeof(b), 7, 0)), 4,
		  "moved down");
	bw_entries_free(&s);
}

/* Addresses after names are grouped before them, each kind in order. */
BW_TEST(test_entry_group)
{
	struct bw_entries s;
	char b[32];

	bw_entries_init(&s);
	bw_entries_push(&s, name_of(b, sizeof(b), 1, 0), 0);
	bw_entries_push(&s, v4(1, 32), 0);
	bw_entries_push(&s, name_of(b, sizeof(b), 2, 0), 0);
	bw_entries_push(&s, v4(2, 32), 0);
	ASSERT_OK(bw_entries_index(&s), "index");
	ASSERT_OK(bw_entries_group(&s), "group");
	ASSERT_EQ(bw_entries_find(&s, v4(1, 32)), 0, "first address first");
	ASSERT_EQ(bw_entries_find(&s, v4(2, 32)), 1, "then the second");
	ASSERT_EQ(bw_entries_find(&s, name_of(b, sizeof(b), 1, 0)), 2,
		  "then the names, in order");
	ASSERT_EQ(bw_entries_find(&s, name_of(b, sizeof(b), 2, 0)), 3,
		  "the second name last");
	bw_entries_free(&s);
}

/*
 * A bulk add and a bulk remove among many kept entries: the survivors in
 * their order, each found, the removed gone, an entry asked twice once.
 */
BW_TEST(test_entry_bulk)
{
	const size_t n = 30000, r = 5000;
	char(*names)[32] = calloc(n, sizeof(*names));
	struct bw_entries out;
	struct bw_records rec;
	size_t i, in_order = 0;
	long gone, j, last = -1;

	bw_entries_init(&out);
	if (!ASSERT_OK_PTR(names, "names"))
		goto done;
	bw_records_init(&rec);
	ASSERT_OK(bw_entries_index(&rec.added), "index the empty set");
	for (i = 0; i < n; i++) {
		/* Even ones addresses, odd ones names; every third expires. */
		if (bw_records_add_until(&rec,
					 i % 2 ? name_of(names[i], 32, i, SUB)
					       : v4((__u32)i, 32),
					 i % 3 ? 0 : 1000 + i) != 1)
			break;
	}
	ASSERT_EQ(rec.added.n, n, "each added once");
	ASSERT_EQ(bw_records_add_until(&rec, v4(4, 32), 7), 0,
		  "there: its end changes");
	ASSERT_EQ_U64(rec.added.v[4].expires, 7, "the new end");
	ASSERT_EQ(bw_records_expiring(&rec, BW_ENTRY_NAME), n / 6,
		  "the odd multiples of three");
	/* Every sixth entry out, names and addresses, one asked twice. */
	for (i = 0; i < r; i++)
		bw_entries_push(&out, bw_entries_key(&rec.added, 6 * i), 0);
	bw_entries_push(&out, bw_entries_key(&rec.added, 0), 0);
	gone = bw_records_drop_all(&rec, &out);
	ASSERT_EQ(gone, (long)r, "each asked one out once");
	ASSERT_EQ(rec.added.n, n - r, "the others stay");
	ASSERT_EQ(bw_records_find(&rec, v4(0, 32)), -1, "the first gone");
	for (i = 1; i < n; i++) {
		if (i % 6 == 0)
			continue;
		j = bw_records_find(&rec, i % 2 ? name_of(names[i], 32, i, SUB)
						: v4((__u32)i, 32));
		in_order += j > last;
		last = j;
	}
	ASSERT_EQ(in_order, n - r, "every other one found, in order");
	bw_records_free(&rec);
done:
	bw_entries_free(&out);
	free(names);
}
