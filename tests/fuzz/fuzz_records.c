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
	size_t i;

	if (r->nadded && !r->added_expires)
		abort();
	for (i = 0; i < r->nadded; i++)
		if (r->added_expires[i] > BW_REC_EXPIRES_MAX)
			abort();
	if (r->names.ndom && !r->names_expires)
		abort();
	for (i = 0; i < r->names.ndom; i++)
		if (r->names_expires[i] > BW_REC_EXPIRES_MAX ||
		    bw_records_find_name(
			    r, bw_domain_name(&r->names, &r->names.dom[i]),
			    r->names.dom[i].len,
			    r->names.dom[i].flags) != (long)i)
			abort(); /* each name once, found where it is */
}

/* Whether after holds the added name i of r. */
static bool has_name(const struct bw_records *after, const struct bw_records *r,
		     size_t i)
{
	const struct bw_domain *d = &r->names.dom[i];

	return bw_records_find_name(after, bw_domain_name(&r->names, d), d->len,
				    d->flags) >= 0;
}

/*
 * The first added name marked gone in place: read again, it is among the
 * gone names (each occurrence marked is) and no longer added; every other
 * name as it was.
 */
static void check_mark_name(void *mem, __u32 tail, const struct bw_records *r)
{
	const struct bw_domain *d;
	struct bw_records after;
	__u32 marks = bw_records_marks(mem, tail + ROOM);
	size_t i;

	if (!r->names.ndom)
		return;
	d = &r->names.dom[0];
	if (bw_records_mark_gone_name(mem, tail + ROOM,
				      bw_domain_name(&r->names, d), d->len,
				      d->flags) != 1 ||
	    bw_records_marks(mem, tail + ROOM) != marks + 1)
		abort();
	if (bw_records_read(mem, tail + ROOM, &after))
		abort();
	if (after.gone_names.ndom <= r->gone_names.ndom ||
	    after.names.ndom != r->names.ndom - 1 || has_name(&after, r, 0))
		abort();
	for (i = 1; i < r->names.ndom; i++)
		if (!has_name(&after, r, i))
			abort();
	bw_records_free(&after);
}

/*
 * The first added entry marked gone in place: read again, it is among the
 * gone ones and not the added, every other entry as it was.
 */
static void check_mark(void *mem, __u32 tail, const struct bw_records *r)
{
	struct bw_records after;
	__u32 marks = bw_records_marks(mem, tail + ROOM);
	size_t i, twice = 0;

	if (!r->nadded)
		return;
	for (i = 1; i < r->nadded; i++)
		twice += bw_prefix_same(&r->added[i], &r->added[0]);
	if (bw_records_mark_gone(mem, tail + ROOM, &r->added[0]) != 1 ||
	    bw_records_marks(mem, tail + ROOM) != marks + 1)
		abort();
	if (bw_records_read(mem, tail + ROOM, &after))
		abort();
	/* Every occurrence of an entry listed twice is marked. */
	if (after.ngone <= r->ngone || after.nadded != r->nadded - 1 - twice ||
	    bw_records_find(&after, &r->added[0]) >= 0)
		abort();
	for (i = 1; i < r->nadded; i++)
		if (!bw_prefix_same(&r->added[i], &r->added[0]) &&
		    bw_records_find(&after, &r->added[i]) < 0)
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
	struct bw_prefix p;
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
	if (r.nadded) {
		p = r.added[0];
		err = bw_records_log_add(mem, tail + ROOM, &p, 1, NULL,
					 1234567890);
		if (err && err != -E2BIG)
			abort();
		if (!err) {
			if (bw_records_read(mem, tail + ROOM, &after))
				abort();
			k = bw_records_find(&after, &p);
			if (k < 0 || after.added_expires[k] != 1234567890 ||
			    after.nadded != r.nadded)
				abort();
			bw_records_free(&after);
		}
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
	    back.ngone || back.gone_names.ndom || back.nallow != r->nallow ||
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
					 &(struct bw_prefix){ .plen = 32 }) !=
			    -EINVAL ||
		    bw_records_mark_gone_name(mem, tail + ROOM, "a.example", 9,
					      0) != -EINVAL)
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
