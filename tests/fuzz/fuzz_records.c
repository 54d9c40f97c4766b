// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the record area (user/filter/records.c and
 * rec_expiry.c): the input, after one byte of record count, is the
 * records after a valid filter's regions. A read either refuses the area
 * (-EINVAL) or gives records whose expiries are in range and parallel to
 * their entries; an added entry marked taken out in place (records_gone.c)
 * then reads as gone and no longer added, the rest as they were, and a
 * malformed area is never written; what it gives is written back and
 * reads the same again (entries, expiries, names, lists, and the unknown
 * records kept).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/bloom.h"
#include "filter/bloom_plan.h"
#include "filter/records.h"
#include "filter/records_gone.h"
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
	if (after.ngone != r->ngone + 1 || after.nadded != r->nadded - 1 ||
	    (bw_records_find(&after, &r->added[0]) >= 0) != (twice > 0))
		abort();
	/* An entry listed twice: the second stays until it is marked too. */
	for (i = 1; i < r->nadded; i++)
		if (!bw_prefix_same(&r->added[i], &r->added[0]) &&
		    bw_records_find(&after, &r->added[i]) < 0)
			abort();
	bw_records_free(&after);
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
	    back.nallow != r->nallow || back.nother != r->nother ||
	    back.other_len != r->other_len ||
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
	err = bw_records_read(mem, tail + ROOM, &r);
	if (err && err != -EINVAL && err != -ENOMEM)
		abort();
	if (err) {
		/* Refused by the reader: nothing marked, nothing written. */
		if (bw_records_mark_gone(mem, tail + ROOM,
					 &(struct bw_prefix){ .plen = 32 }) !=
		    -EINVAL)
			abort();
		return 0;
	}
	check_read(&r);
	check_mark(mem, tail, &r);
	check_rewrite(mem, tail, &r);
	bw_records_free(&r);
	return 0;
}
