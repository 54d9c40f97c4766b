// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Added entries and names marked as taken out in place (records_gone.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/rec_log.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_gone.h"

/* What to mark: the request's entries, indexed, in its order. */
struct targets {
	struct bw_entries asked;
	bool *found; /* the caller's, by the request's order */
	size_t marked;
};

/* Marks the byte e with gone by one store: a reader sees it in or out. */
static void mark(__u8 *e, __u8 gone)
{
	__atomic_store_n(e, (__u8)(*e | gone), __ATOMIC_RELEASE);
}

static void found(struct targets *t, long i)
{
	t->marked += !t->found[i];
	t->found[i] = true;
}

/*
 * The unmarked entries of one record's body (len bytes: a BW_REC_ADDED
 * one's, stride 24, or a BW_REC_LOG_ADDED one's, stride 32) that are
 * asked for, marked.
 */
static void mark_prefixes(struct targets *t, __u8 *body, __u32 len,
			  __u32 stride)
{
	struct bw_rec_prefix o;
	struct bw_prefix q;
	__u32 off;
	long i;

	for (off = 0; off + stride <= len; off += stride) {
		memcpy(&o, body + off, sizeof(o));
		if (o.family & BW_REC_PREFIX_GONE || bw_rec_prefix_read(&o, &q))
			continue;
		i = bw_entries_find(&t->asked, bw_key_prefix(&q));
		if (i < 0)
			continue;
		mark(body + off, BW_REC_PREFIX_GONE);
		found(t, i);
	}
}

/*
 * The same for names (a BW_REC_ADDED_NAMES body, tail 0, or a
 * BW_REC_LOG_NAMES one, tail 8: its expiry; checked by the reader).
 */
static void mark_names(struct targets *t, __u8 *body, __u32 len, __u32 tail)
{
	__u32 off;
	long i;

	for (off = 0; off + 2 <= len; off += 2 + (__u32)body[off + 1] + tail) {
		/* A marked entry's kind has BW_REC_NAME_GONE: no kind asked. */
		if (body[off] > BW_NAME_SUBTREE)
			continue;
		i = bw_entries_find(
			&t->asked,
			bw_key_name((const char *)body + off + 2, body[off + 1],
				    body[off] ? BW_DOM_SUBTREE : 0));
		if (i < 0)
			continue;
		mark(body + off, BW_REC_NAME_GONE);
		found(t, i);
	}
}

static void mark_record(struct targets *t, __u16 type, __u8 *body, __u32 len)
{
	if (type == BW_REC_ADDED)
		mark_prefixes(t, body, len, sizeof(struct bw_rec_prefix));
	else if (type == BW_REC_LOG_ADDED)
		mark_prefixes(t, body, len, sizeof(struct bw_rec_expiry));
	else if (type == BW_REC_ADDED_NAMES)
		mark_names(t, body, len, 0);
	else if (type == BW_REC_LOG_NAMES)
		mark_names(t, body, len, sizeof(__u64));
}

/*
 * Marks every unmarked occurrence of the asked entries, in the records
 * and in the add log, in one walk, then counts the marks: the entries
 * marked, or -EINVAL when the area is malformed (nothing written). A
 * writer killed between two marks leaves each entry's last occurrence
 * deciding, as the reader does: in or out, whole.
 */
static long mark_all(void *mem, __u32 nblocks, struct targets *t)
{
	__u32 start = bw_records_start(mem);
	__u8 *blk = (__u8 *)mem + (size_t)start * BW_BLOCK_BYTES, *rec;
	struct bw_records check;
	struct bw_rec_area a;
	struct bw_rec_head h;
	long long end;
	__u64 off;

	/* The reader's checks first: every length below is then in the map. */
	if (bw_records_read(mem, nblocks, &check))
		return -EINVAL;
	bw_records_free(&check);
	if (start >= nblocks)
		return 0;
	memcpy(&a, blk, sizeof(a));
	if (a.magic != BW_REC_MAGIC)
		return 0;
	rec = blk + BW_BLOCK_BYTES;
	end = bw_rec_log_end(rec, a.records_len,
			     (__u64)(nblocks - start - 1) * BW_BLOCK_BYTES);
	if (end < 0)
		return -EINVAL;
	/* The records, then the log's, to its end. */
	for (off = 0; off < (__u64)end;) {
		memcpy(&h, rec + off, sizeof(h));
		mark_record(t, h.type, rec + off + sizeof(h), h.len);
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	/* After the marks: whoever sees the count sees them. */
	if (t->marked)
		__atomic_add_fetch(&((struct bw_rec_area *)blk)->marks,
				   (__u32)t->marked, __ATOMIC_RELEASE);
	return (long)t->marked;
}

long bw_records_mark_gone_all(void *mem, __u32 nblocks,
			      const struct bw_entries *s, bool *found)
{
	struct targets t = { .found = found };
	long err = 0;
	size_t i;

	/* A copy to index: the caller's set stays as it is. */
	bw_entries_init(&t.asked);
	for (i = 0; !err && i < s->n; i++)
		err = bw_entries_push(&t.asked, bw_entries_key(s, i), 0);
	if (!err)
		err = bw_entries_index(&t.asked);
	if (!err) {
		memset(found, 0, s->n * sizeof(*found));
		err = mark_all(mem, nblocks, &t);
	}
	bw_entries_free(&t.asked);
	return err;
}

int bw_records_mark_gone(void *mem, __u32 nblocks, struct bw_entry_key k)
{
	struct bw_entries s;
	bool found;
	long r;

	bw_entries_init(&s);
	r = bw_entries_push(&s, k, 0);
	if (!r)
		r = bw_records_mark_gone_all(mem, nblocks, &s, &found);
	bw_entries_free(&s);
	return (int)r;
}

__u32 bw_records_marks(const void *mem, __u32 nblocks)
{
	__u32 start = bw_records_start(mem);
	const struct bw_rec_area *a;

	if (start >= nblocks)
		return 0;
	a = (const void *)((const __u8 *)mem + (size_t)start * BW_BLOCK_BYTES);
	return __atomic_load_n(&a->marks, __ATOMIC_ACQUIRE);
}
