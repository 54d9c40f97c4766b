// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the record area (user/filter/records.c,
 * rec_prefix.c and rec_names.c): the input, after one byte of record
 * count, is the records after a valid filter's regions. A read either
 * refuses the area (-EINVAL) or gives records whose expiries are in range
 * and parallel to their entries and names; an added entry, then an added
 * name, marked taken out in place (records_gone.c) then reads as gone and
 * no longer added, the rest as they were, and a malformed area is never
 * written; what it gives is written back and reads the same again
 * (entries, names, their expiries, lists, and the unknown records kept;
 * nothing gone).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_gone.h"
#include "filter/records_log.h"
#include "filter/records_write.h"
#include "lists/list.h"
#include "lists/list_parse.h"

#define ROOM 64 /* blocks after the regions */

/* 10.0.0.1 and 2001:db8::/48, seed 7 (as the unit tests' small filter). */
static void *small_filter(__u32 *tail)
{
	struct bw_build_opts o = { .fpr = 0.001,
				   .seed = 7,
				   .flags = BW_F_MATCH_SRC };
	struct bw_list_opts lo = {};
	char err[BW_ERRLEN];
	struct bw_plan plan;
	struct bw_list l;
	void *mem = NULL;

	bw_list_init(&l);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "2001:db8::/48", &lo, err, sizeof(err));
	bw_list_finish(&l);
	if (!bw_plan_filter(&l, &o, &plan)) {
		mem = calloc(plan.nblocks + ROOM, BW_BLOCK_BYTES);
		if (mem)
			bw_fill_filter(mem, &plan, &l);
		*tail = plan.nblocks;
	}
	bw_list_free(&l);
	return mem;
}

static void check_read(const struct bw_records *r)
{
	const struct bw_entries *a = &r->added;
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->v[i].expires > BW_REC_EXPIRES_MAX)
			abort();
		/* As read, the addresses first, then the names. */
		if (i && bw_entry_is_name(&a->v[i - 1]) &&
		    !bw_entry_is_name(&a->v[i]))
			abort();
		if (bw_entry_is_name(&a->v[i]) &&
		    bw_records_find(r, bw_entries_key(a, i)) != (long)i)
			abort(); /* each name once, found where it is */
	}
}

/* The first added entry of the kind, or -1. */
static long first_of(const struct bw_records *r, __u8 kind)
{
	size_t i;

	for (i = 0; i < r->added.n; i++)
		if (r->added.v[i].kind == kind)
			return (long)i;
	return -1;
}

/*
 * The first added name marked gone in place: read again, it is among the
 * gone ones (each occurrence marked is) and no longer added; every other
 * name as it was.
 */
static void check_mark_name(void *mem, __u32 tail, const struct bw_records *r)
{
	const struct bw_entries *a = &r->added;
	long f = first_of(r, BW_ENTRY_NAME);
	struct bw_records after;
	__u32 marks = bw_records_marks(mem, tail + ROOM);
	size_t i;

	if (f < 0)
		return;
	if (bw_records_mark_gone(mem, tail + ROOM,
				 bw_entries_key(a, (size_t)f)) != 1 ||
	    bw_records_marks(mem, tail + ROOM) != marks + 1)
		abort();
	if (bw_records_read(mem, tail + ROOM, &after))
		abort();
	/* Names only: check_mark took an address out before. */
	if (bw_entries_count(&after.gone, BW_ENTRY_NAME) <=
		    bw_entries_count(&r->gone, BW_ENTRY_NAME) ||
	    bw_entries_count(&after.added, BW_ENTRY_NAME) !=
		    bw_entries_count(a, BW_ENTRY_NAME) - 1 ||
	    bw_records_find(&after, bw_entries_key(a, (size_t)f)) >= 0)
		abort();
	for (i = 0; i < a->n; i++)
		if (i != (size_t)f && bw_entry_is_name(&a->v[i]) &&
		    bw_records_find(&after, bw_entries_key(a, i)) < 0)
			abort();
	bw_records_free(&after);
}

/*
 * The first added address marked gone in place: read again, it is among
 * the gone ones and not the added, every other entry as it was.
 */
static void check_mark(void *mem, __u32 tail, const struct bw_records *r)
{
	const struct bw_entries *a = &r->added;
	long f = first_of(r, BW_ENTRY_PREFIX);
	struct bw_records after;
	__u32 marks = bw_records_marks(mem, tail + ROOM);
	struct bw_entry_key k;
	size_t i, twice = 0;

	if (f < 0)
		return;
	k = bw_entries_key(a, (size_t)f);
	for (i = (size_t)f + 1; i < a->n; i++)
		twice += bw_entries_is(a, i, &k);
	if (bw_records_mark_gone(mem, tail + ROOM, bw_key_prefix(&k.p)) != 1 ||
	    bw_records_marks(mem, tail + ROOM) != marks + 1)
		abort();
	if (bw_records_read(mem, tail + ROOM, &after))
		abort();
	/* Every occurrence of an entry listed twice is marked. */
	if (after.gone.n <= r->gone.n || after.added.n != a->n - 1 - twice ||
	    bw_records_find(&after, k) >= 0)
		abort();
	for (i = 0; i < a->n; i++)
		if (!bw_entries_is(a, i, &k) &&
		    bw_records_find(&after, bw_entries_key(a, i)) < 0)
			abort();
	bw_records_free(&after);
}

/*
 * The same bytes as an add log past an area of no records: read whole or
 * refused, never past the map; what is read is consistent; an entry
 * appended to it reads back with its end.
 */
static void read_as_log(void *mem, __u32 tail, const __u8 *data, size_t len)
{
	__u8 *blk = (__u8 *)mem + (size_t)tail * BW_BLOCK_BYTES;
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION };
	struct bw_records r, after;
	struct bw_entry_key key;
	struct bw_entries s;
	long k;
	int err;

	memset(blk, 0, ROOM * (size_t)BW_BLOCK_BYTES);
	memcpy(blk, &a, sizeof(a));
	memcpy(blk + BW_BLOCK_BYTES, data, len);
	err = bw_records_read(mem, tail + ROOM, &r);
	if (err && err != -EINVAL && err != -ENOMEM)
		abort();
	if (err)
		return;
	check_read(&r);
	if (r.added.n) {
		/* The first entry, of either kind, again with an end. */
		bw_entries_init(&s);
		key = bw_entries_key(&r.added, 0);
		err = bw_entries_push(&s, key, 1234567890);
		if (!err)
			err = bw_records_log_add(mem, tail + ROOM, &s);
		if (err && err != -E2BIG && err != -ENOMEM)
			abort();
		if (!err) {
			key = bw_entries_key(&s, 0);
			if (bw_records_read(mem, tail + ROOM, &after))
				abort();
			k = bw_records_find(&after, key);
			if (k < 0 || after.added.v[k].expires != 1234567890 ||
			    after.added.n != r.added.n)
				abort();
			bw_records_free(&after);
		}
		bw_entries_free(&s);
	}
	bw_records_free(&r);
}

/* Written back, the records read as they were. */
static void check_rewrite(void *mem, __u32 tail, const struct bw_records *r)
{
	struct bw_records back;
	int i;

	if (bw_records_write(mem, tail + ROOM, r))
		return; /* more than the room: -E2BIG, nothing to compare */
	if (bw_records_read(mem, tail + ROOM, &back))
		abort();
	if (!bw_records_same_added(r, &back) || back.nlists != r->nlists ||
	    back.gone.n || back.nallow != r->nallow ||
	    back.nother != r->nother || back.other_len != r->other_len ||
	    (r->other_len && memcmp(back.other, r->other, r->other_len)))
		abort();
	for (i = 0; i < r->nlists; i++)
		if (strcmp(back.lists[i], r->lists[i]))
			abort();
	bw_records_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *mem;
	static __u32 tail;
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION };
	struct bw_records r;
	__u8 *blk;
	size_t len;
	int err;

	bw_log_level = BW_LOG_NONE;
	if (!mem)
		mem = small_filter(&tail);
	if (!mem || !size)
		return 0;
	len = size - 1;
	if (len > (ROOM - 1) * (size_t)BW_BLOCK_BYTES)
		len = (ROOM - 1) * (size_t)BW_BLOCK_BYTES;
	blk = (__u8 *)mem + (size_t)tail * BW_BLOCK_BYTES;
	memset(blk, 0, ROOM * (size_t)BW_BLOCK_BYTES);
	a.nrecords = data[0];
	a.records_len = bw_rec_padded(len);
	memcpy(blk, &a, sizeof(a));
	memcpy(blk + BW_BLOCK_BYTES, data + 1, len);
	read_as_log(mem, tail, data + 1, len);
	memset(blk, 0, ROOM * (size_t)BW_BLOCK_BYTES);
	memcpy(blk, &a, sizeof(a));
	memcpy(blk + BW_BLOCK_BYTES, data + 1, len);
	err = bw_records_read(mem, tail + ROOM, &r);
	if (err && err != -EINVAL && err != -ENOMEM)
		abort();
	if (err) {
		/* Refused by the reader: nothing marked, nothing written. */
		if (bw_records_mark_gone(mem, tail + ROOM,
					 bw_key_prefix(&(struct bw_prefix){
						 .plen = 32 })) != -EINVAL ||
		    bw_records_mark_gone(mem, tail + ROOM,
					 bw_key_name("a.example", 9, 0)) !=
			    -EINVAL)
			abort();
		return 0;
	}
	check_read(&r);
	check_mark(mem, tail, &r);
	check_mark_name(mem, tail, &r);
	check_rewrite(mem, tail, &r);
	bw_records_free(&r);
	return 0;
}
