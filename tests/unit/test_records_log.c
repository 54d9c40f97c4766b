// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The add log of a record area (user/filter/records_log.c, rec_log.c and
 * records.c's reading of it): appended entries read back after the
 * records, an entry's last occurrence deciding (a new expiry, a mark, an
 * add again); a full room refuses an append whole; a body without its
 * head is nothing; a hostile head is refused; the next writer folds the
 * log into the records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_gone.h"
#include "filter/records_log.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

struct logged {
	void *mem;
	__u32 tail, nblocks;
};

/* w's area written with the add log's room after it, as a map has. */
static bool logged_write(struct logged *h, const struct bw_records *w)
{
	__u32 n = bw_records_blocks(w) + bw_records_room(w);

	h->mem = bw_test_small_filter(n, &h->tail);
	if (!h->mem)
		return false;
	h->nblocks = h->tail + n;
	return !bw_records_write(h->mem, h->nblocks, w);
}

static __u64 expiry_of(const struct bw_records *r, const char *s)
{
	struct bw_prefix p = bw_test_prefix(s);
	long k = bw_records_find(r, bw_key_prefix(&p));

	return k >= 0 ? r->added.v[k].expires : (__u64)-1;
}

/* The n prefixes of p logged until expires, as one set. */
static int log_prefixes(struct logged *h, const struct bw_prefix *p, size_t n,
			__u64 expires)
{
	struct bw_entries s;
	size_t i;
	int err = 0;

	bw_entries_init(&s);
	for (i = 0; !err && i < n; i++)
		err = bw_entries_push(&s, bw_key_prefix(&p[i]), expires);
	if (!err)
		err = bw_records_log_add(h->mem, h->nblocks, &s);
	bw_entries_free(&s);
	return err;
}

BW_TEST(test_log_round_trip)
{
	struct bw_prefix b = bw_test_prefix("10.1.0.0/16"),
			 e[2] = { bw_test_prefix("10.9.9.9"),
				  bw_test_prefix("2001:db8::7") };
	struct bw_prefix p0;
	struct bw_records w, r;
	struct logged h = {};
	struct bw_entries names;

	bw_records_init(&w);
	bw_entries_init(&names);
	p0 = bw_test_prefix("10.0.0.9");
	bw_records_add(&w, bw_key_prefix(&p0));
	bw_records_add_until(&w, bw_key_prefix(&b), 1700000000);
	if (!ASSERT_TRUE(logged_write(&h, &w), "write"))
		goto out;
	ASSERT_OK(log_prefixes(&h, e, 2, 0), "log two");
	/* b again, permanent now: its last entry decides. */
	ASSERT_OK(log_prefixes(&h, &b, 1, 0), "log b");
	ASSERT_OK(log_prefixes(&h, &e[1], 1, 1900000000), "log e1 with an end");
	bw_entries_push(&names, bw_key_name("ads.test", 8, BW_DOM_SUBTREE),
			1800000000);
	bw_entries_push(&names, bw_key_name("one.test", 8, 0), 1800000000);
	ASSERT_OK(bw_records_log_add(h.mem, h.nblocks, &names), "log names");
	if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
		goto out;
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_PREFIX), 4,
		  "two and two");
	ASSERT_EQ(expiry_of(&r, "10.1.0.0/16"), 0, "b made permanent");
	ASSERT_EQ(expiry_of(&r, "10.0.0.9"), 0, "a as it was");
	ASSERT_EQ(expiry_of(&r, "10.9.9.9"), 0, "e0 permanent");
	ASSERT_EQ(expiry_of(&r, "2001:db8::7"), 1900000000, "e1's last end");
	ASSERT_TRUE(bw_prefix_same(&r.added.v[2].p, &e[0]),
		    "new ones in order");
	ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 2, "two names");
	/* As read, the addresses first, then the names. */
	ASSERT_EQ(
		bw_records_find(&r, bw_key_name("ads.test", 8, BW_DOM_SUBTREE)),
		4, "the subtree");
	ASSERT_EQ(r.added.v[5].expires, 1800000000, "the names' end");
	bw_records_free(&r);
out:
	free(h.mem);
	bw_entries_free(&names);
	bw_records_free(&w);
}

/* A mark takes out every occurrence; an add after it brings it back. */
BW_TEST(test_log_marks)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.9");
	struct bw_records w, r;
	struct logged h = {};
	struct bw_entries names;

	bw_records_init(&w);
	bw_entries_init(&names);
	bw_records_add(&w, bw_key_prefix(&a));
	bw_records_add_until(&w, bw_key_name("one.test", 8, 0), 0);
	if (!ASSERT_TRUE(logged_write(&h, &w), "write"))
		goto out;
	ASSERT_OK(log_prefixes(&h, &a, 1, 5), "log");
	bw_entries_push(&names, bw_key_name("one.test", 8, 0), 0);
	ASSERT_OK(bw_records_log_add(h.mem, h.nblocks, &names), "log the name");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks, bw_key_prefix(&a)), 1,
		  "marked");
	ASSERT_EQ(bw_records_mark_gone(h.mem, h.nblocks,
				       bw_key_name("one.test", 8, 0)),
		  1, "name marked");
	ASSERT_EQ(bw_records_marks(h.mem, h.nblocks), 2, "counted once each");
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read")) {
		ASSERT_EQ(r.added.n, 0, "gone in the records and the log");
		ASSERT_EQ(bw_entries_count(&r.gone, BW_ENTRY_PREFIX), 2,
			  "both occurrences said");
		ASSERT_EQ(bw_entries_count(&r.gone, BW_ENTRY_NAME), 2,
			  "the name's both");
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 0,
			  "the name gone");
		bw_records_free(&r);
	}
	ASSERT_OK(log_prefixes(&h, &a, 1, 0), "added again");
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read again")) {
		ASSERT_EQ(r.added.n, 1, "the last occurrence decides");
		ASSERT_EQ(r.added.v[0].expires, 0, "permanent");
		bw_records_free(&r);
	}
out:
	free(h.mem);
	bw_entries_free(&names);
	bw_records_free(&w);
}

/*
 * One set of both kinds: two records, each entry with its own end, which
 * a reader sees both or neither of (the first head is stored last); one
 * remove marks both kinds.
 */
BW_TEST(test_log_both_kinds)
{
	struct bw_prefix a = bw_test_prefix("10.0.0.9"),
			 b = bw_test_prefix("2001:db8::1");
	struct bw_records w, r;
	struct logged h = {};
	struct bw_entries s;
	bool found[3];
	__u8 *end;
	__u64 head;

	bw_records_init(&w);
	bw_entries_init(&s);
	bw_records_add(&w, bw_key_prefix(&a));
	if (!ASSERT_TRUE(logged_write(&h, &w), "write"))
		goto out;
	bw_entries_push(&s, bw_key_name("ads.test", 8, BW_DOM_SUBTREE), 7);
	bw_entries_push(&s, bw_key_prefix(&b), 1900000000);
	bw_entries_push(&s, bw_key_prefix(&a), 0);
	end = (__u8 *)h.mem + ((size_t)h.tail + 1) * BW_BLOCK_BYTES +
	      ((struct bw_rec_area *)((__u8 *)h.mem +
				      (size_t)h.tail * BW_BLOCK_BYTES))
		      ->records_len;
	ASSERT_OK(bw_records_log_add(h.mem, h.nblocks, &s), "log both");
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read")) {
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_PREFIX), 2,
			  "the prefixes");
		ASSERT_EQ(bw_entries_count(&r.added, BW_ENTRY_NAME), 1,
			  "the name");
		ASSERT_EQ(expiry_of(&r, "2001:db8::1"), 1900000000,
			  "the prefix's own end");
		ASSERT_EQ(r.added.v[bw_records_find(
					    &r, bw_key_name("ads.test", 8,
							    BW_DOM_SUBTREE))]
				  .expires,
			  7, "the name's own end");
		bw_records_free(&r);
	}
	/* A writer killed before its first head: neither record is read. */
	memcpy(&head, end, sizeof(head));
	memset(end, 0, sizeof(head));
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read killed")) {
		ASSERT_EQ(r.added.n, 1, "neither record");
		bw_records_free(&r);
	}
	memcpy(end, &head, sizeof(head));
	ASSERT_EQ(bw_records_mark_gone_all(h.mem, h.nblocks, &s, found), 3,
		  "one remove of both kinds");
	ASSERT_TRUE(found[0] && found[1] && found[2], "each found");
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read gone")) {
		ASSERT_EQ(r.added.n, 0, "all gone");
		bw_records_free(&r);
	}
out:
	free(h.mem);
	bw_entries_free(&s);
	bw_records_free(&w);
}

/*
 * A full room refuses an append whole; a body written without its head
 * (a writer killed) is nothing; a hostile head is refused; the next
 * writer folds the log into the records and empties it.
 */
BW_TEST(test_log_room_and_hostile)
{
	struct bw_records w, r, again;
	struct logged h = {}, h2 = {};
	struct bw_prefix p, batch[64];
	__u8 *end;
	size_t n = 0, i, k;
	int err = 0;
	char s[32];

	bw_records_init(&w);
	p = bw_test_prefix("10.0.0.9");
	bw_records_add(&w, bw_key_prefix(&p));
	if (!ASSERT_TRUE(logged_write(&h, &w), "write"))
		goto out;
	/* 64 at a time, then one at a time: the room fills to the last. */
	for (k = 64; k; k = k == 64 ? 1 : 0) {
		for (err = 0; !err && n < 100000;) {
			for (i = 0; i < k; i++) {
				snprintf(s, sizeof(s), "10.%zu.%zu.%zu",
					 2 + (n + i) / 62500,
					 (n + i) / 250 % 250,
					 (n + i) % 250 + 1);
				batch[i] = bw_test_prefix(s);
			}
			err = log_prefixes(&h, batch, k, 0);
			n += err ? 0 : k;
		}
	}
	ASSERT_EQ(err, -E2BIG, "the room fills");
	ASSERT_TRUE(n >= BW_REC_LOG_ROOM / 40, "room for thousands");
	if (!ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read"))
		goto out;
	ASSERT_EQ(r.added.n, n + 1, "every append but the refused one");
	bw_records_free(&r);

	/* A fresh map from what was read: the log folded in, empty again. */
	bw_records_read(h.mem, h.nblocks, &r);
	if (ASSERT_TRUE(logged_write(&h2, &r), "rewrite")) {
		ASSERT_OK(bw_records_read(h2.mem, h2.nblocks, &again), "read");
		ASSERT_TRUE(bw_records_same_added(&r, &again), "folded");
		p = bw_test_prefix("10.3.0.1");
		ASSERT_OK(log_prefixes(&h2, &p, 1, 0), "room again");
		bw_records_free(&again);
	}
	bw_records_free(&r);

	/* A body with no head past the log's end: not read. */
	free(h2.mem);
	h2.mem = NULL;
	bw_records_init(&r);
	if (!ASSERT_TRUE(logged_write(&h2, &w), "small"))
		goto out;
	end = (__u8 *)h2.mem + ((size_t)h2.tail + 1) * BW_BLOCK_BYTES +
	      ((struct bw_rec_area *)((__u8 *)h2.mem +
				      (size_t)h2.tail * BW_BLOCK_BYTES))
		      ->records_len;
	memset(end + 8, 0xab, 64);
	if (ASSERT_OK(bw_records_read(h2.mem, h2.nblocks, &r), "headless")) {
		ASSERT_EQ(r.added.n, 1, "the body without its head is nothing");
		bw_records_free(&r);
	}
	/* A shorter append over it: the leftover bytes are no record. */
	memset(end, 0, 8);
	memset(end + 8, 0xab, 128);
	p = bw_test_prefix("10.4.0.1");
	ASSERT_OK(log_prefixes(&h2, &p, 1, 0),
		  "append over a killed writer's body");
	if (ASSERT_OK(bw_records_read(h2.mem, h2.nblocks, &r), "read it")) {
		ASSERT_EQ(r.added.n, 2,
			  "the append, and nothing of the leftover");
		bw_records_free(&r);
	}
	memset(end, 0, 256);
	/* A head of another type there: refused, as is one past the map. */
	end[0] = BW_REC_BUILD;
	ASSERT_EQ(bw_records_read(h2.mem, h2.nblocks, &r), -EINVAL,
		  "a record that is not the log's");
	end[0] = BW_REC_LOG_ADDED;
	memcpy(end + 4, &(__u32){ 0x7fffffff }, 4);
	ASSERT_EQ(bw_records_read(h2.mem, h2.nblocks, &r), -EINVAL,
		  "a length past the map");
	p = bw_test_prefix("10.3.0.1");
	ASSERT_EQ(log_prefixes(&h2, &p, 1, 0), -EINVAL,
		  "no append to a malformed area");
out:
	free(h.mem);
	free(h2.mem);
	bw_records_free(&w);
}

/* 20000 entries logged over 20000 records: read in n log n. */
BW_TEST(test_log_bulk)
{
	struct bw_prefix *p = calloc(20000, sizeof(*p));
	struct bw_records w, r;
	struct logged h = {};
	size_t i;
	char s[32];

	bw_records_init(&w);
	for (i = 0; p && i < 20000; i++) {
		snprintf(s, sizeof(s), "10.%zu.%zu.1", i / 200, i % 200);
		p[i] = bw_test_prefix(s);
		bw_records_add(&w, bw_key_prefix(&p[i]));
	}
	if (!ASSERT_TRUE(p && logged_write(&h, &w), "write"))
		goto out;
	/* 4000 of them again with an end, and 10000 new ones. */
	for (i = 0; i < 10000; i++) {
		snprintf(s, sizeof(s), "10.%zu.%zu.2", i / 200, i % 200);
		p[10000 + i] = bw_test_prefix(s);
	}
	ASSERT_OK(log_prefixes(&h, p + 6000, 14000, 1900000000), "log 14000");
	if (ASSERT_OK(bw_records_read(h.mem, h.nblocks, &r), "read")) {
		ASSERT_EQ(r.added.n, 30000, "20000 and 10000 new");
		ASSERT_EQ(bw_records_expiring(&r, BW_ENTRY_PREFIX), 14000,
			  "14000 with an end");
		bw_records_free(&r);
	}
out:
	free(p);
	free(h.mem);
	bw_records_free(&w);
}
