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
	__u8 *rec; /* the records' start */
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

/* A walk of the area's unmarked added entries (bw_records_each_added). */
struct walk {
	const __u8 *rec; /* the records' start */
	bw_rec_visit_fn fn;
	void *ctx;
};

/*
 * The unmarked entries of one record's body (len bytes at off from the
 * records: a BW_REC_ADDED one's, stride 24, or a BW_REC_LOG_ADDED one's,
 * stride 32), visited.
 */
static void walk_prefixes(const struct walk *w, __u64 at, __u32 len,
			  __u32 stride)
{
	struct bw_rec_prefix o;
	struct bw_prefix q;
	__u32 off;

	for (off = 0; off + stride <= len; off += stride) {
		memcpy(&o, w->rec + at + off, sizeof(o));
		bw_records_visits++;
		if (o.family & BW_REC_PREFIX_GONE || bw_rec_prefix_read(&o, &q))
			continue;
		w->fn(w->ctx, bw_key_prefix(&q), at + off);
	}
}

/*
 * The same for names (a BW_REC_ADDED_NAMES body, tail 0, or a
 * BW_REC_LOG_NAMES one, tail 8: its expiry): -EINVAL when one runs past
 * the body.
 */
static int walk_names(const struct walk *w, __u64 at, __u32 len, __u32 tail)
{
	const __u8 *body = w->rec + at;
	__u32 off, n;

	for (off = 0; off + 2 <= len; off += 2 + n + tail) {
		n = body[off + 1];
		if (2 + n + tail > len - off)
			return -EINVAL;
		bw_records_visits++;
		/* A marked entry's kind has BW_REC_NAME_GONE: no kind asked. */
		if (body[off] > BW_NAME_SUBTREE)
			continue;
		w->fn(w->ctx,
		      bw_key_name((const char *)body + off + 2, n,
				  body[off] ? BW_DOM_SUBTREE : 0),
		      at + off);
	}
	return 0;
}

/*
 * One record, as the reader takes it: the records' own types before the
 * log (a log type there is a record of a type kept as it is), the log's
 * after it.
 */
static int walk_record(const struct walk *w, __u16 type, __u64 at, __u32 len,
		       bool in_log)
{
	if (type == BW_REC_ADDED && !in_log)
		walk_prefixes(w, at, len, sizeof(struct bw_rec_prefix));
	else if (type == BW_REC_LOG_ADDED && in_log)
		walk_prefixes(w, at, len, sizeof(struct bw_rec_expiry));
	else if (type == BW_REC_ADDED_NAMES && !in_log)
		return walk_names(w, at, len, 0);
	else if (type == BW_REC_LOG_NAMES && in_log)
		return walk_names(w, at, len, sizeof(__u64));
	return 0;
}

/* The area's first block, and the records' start: NULL when none. */
static struct bw_rec_area *area_of(const void *mem, __u32 nblocks, __u8 **rec,
				   __u64 *room)
{
	__u32 start = bw_records_start(mem);
	__u8 *blk = (__u8 *)mem + (size_t)start * BW_BLOCK_BYTES;
	struct bw_rec_area *a = (struct bw_rec_area *)blk;

	if (start >= nblocks || a->magic != BW_REC_MAGIC)
		return NULL;
	*rec = blk + BW_BLOCK_BYTES;
	*room = (__u64)(nblocks - start - 1) * BW_BLOCK_BYTES;
	return a;
}

int bw_records_each_added(const void *mem, __u32 nblocks, bw_rec_visit_fn fn,
			  void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };
	struct bw_rec_area *a;
	struct bw_rec_head h;
	long long end;
	__u64 off, room;
	__u8 *rec;
	int err = 0;

	a = area_of(mem, nblocks, &rec, &room);
	if (!a)
		return 0;
	if (a->records_len > room)
		return -EINVAL;
	w.rec = rec;
	end = bw_rec_log_end(rec, a->records_len, room);
	if (end < 0)
		return -EINVAL;
	/* The records, then the log's, to its end. */
	for (off = 0; !err && off + sizeof(h) <= (__u64)end;) {
		memcpy(&h, rec + off, sizeof(h));
		if (bw_rec_padded(h.len) > (__u64)end - off - sizeof(h))
			return -EINVAL;
		err = walk_record(&w, h.type, off + sizeof(h), h.len,
				  off >= a->records_len);
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	return err;
}

/* Each walked entry that is asked for, marked. */
static void mark_asked(void *ctx, struct bw_entry_key k, __u64 off)
{
	struct targets *t = ctx;
	long i = bw_entries_find(&t->asked, k);

	if (i < 0)
		return;
	mark(t->rec + off,
	     k.kind == BW_ENTRY_NAME ? BW_REC_NAME_GONE : BW_REC_PREFIX_GONE);
	found(t, i);
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
	struct bw_records check;
	__u64 room;

	/* The reader's checks first: every length below is then in the map. */
	if (bw_records_read(mem, nblocks, &check))
		return -EINVAL;
	bw_records_free(&check);
	if (!area_of(mem, nblocks, &t->rec, &room))
		return 0;
	if (bw_records_each_added(mem, nblocks, mark_asked, t))
		return -EINVAL;
	bw_records_marks_add(mem, nblocks, (__u32)t->marked);
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

int bw_records_mark_at(void *mem, __u32 nblocks, __u64 off,
		       struct bw_entry_key k)
{
	struct bw_rec_prefix o;
	struct bw_prefix q;
	__u64 room;
	__u8 *rec;

	if (!area_of(mem, nblocks, &rec, &room) || off >= room)
		return 0;
	bw_records_visits++;
	if (k.kind == BW_ENTRY_PREFIX) {
		if (room - off < sizeof(o))
			return 0;
		memcpy(&o, rec + off, sizeof(o));
		if (o.family & BW_REC_PREFIX_GONE ||
		    bw_rec_prefix_read(&o, &q) || !bw_prefix_same(&q, &k.p))
			return 0;
		mark(rec + off, BW_REC_PREFIX_GONE);
		return 1;
	}
	if (room - off < 2 + (__u64)k.len ||
	    rec[off] != (k.flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
						  : BW_NAME_EXACT) ||
	    rec[off + 1] != k.len || memcmp(rec + off + 2, k.name, k.len))
		return 0;
	mark(rec + off, BW_REC_NAME_GONE);
	return 1;
}

void bw_records_marks_add(void *mem, __u32 nblocks, __u32 n)
{
	__u64 room;
	__u8 *rec;
	struct bw_rec_area *a = area_of(mem, nblocks, &rec, &room);

	/* After the marks: whoever sees the count sees them. */
	if (a && n)
		__atomic_add_fetch(&a->marks, n, __ATOMIC_RELEASE);
}
