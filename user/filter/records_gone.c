// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Added entries and names marked as taken out in place (records_gone.h). */
#include <errno.h>
#include <string.h>

#include "filter/rec_log.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_gone.h"

/* A name as a BW_REC_ADDED_NAMES entry holds it, unmarked. */
struct name_key {
	const char *name;
	size_t len; /* not cut to a byte: a longer one matches none */
	__u8 kind;  /* enum bw_name_region */
};

/*
 * The first unmarked entry of body (len bytes: a BW_REC_ADDED record's,
 * stride 24, or a BW_REC_LOG_ADDED one's, stride 32) that is p.
 */
static __u8 *find_in(__u8 *body, __u32 len, __u32 stride,
		     const struct bw_prefix *p)
{
	struct bw_rec_prefix o;
	struct bw_prefix q;
	__u32 off;

	for (off = 0; off + stride <= len; off += stride) {
		memcpy(&o, body + off, sizeof(o));
		if (o.family & BW_REC_PREFIX_GONE || bw_rec_prefix_read(&o, &q))
			continue;
		if (bw_prefix_same(&q, p))
			return body + off;
	}
	return NULL;
}

/*
 * The kind byte of the first unmarked entry of body (len bytes, checked
 * by the reader: a BW_REC_ADDED_NAMES record's, tail 0, or a
 * BW_REC_LOG_NAMES one's, tail 8: its expiry) that is the name.
 */
static __u8 *find_name_in(__u8 *body, __u32 len, __u32 tail,
			  const struct name_key *k)
{
	__u32 off;

	/* A marked entry's kind has BW_REC_NAME_GONE: never k's. */
	for (off = 0; off + 2 <= len; off += 2 + (__u32)body[off + 1] + tail)
		if (body[off] == k->kind && body[off + 1] == k->len &&
		    !memcmp(body + off + 2, k->name, k->len))
			return body + off;
	return NULL;
}

/* What to mark: a prefix, or a name. */
struct target {
	const struct bw_prefix *p;
	const struct name_key *name;
};

/* The first unmarked entry of one record that is t, or NULL. */
static __u8 *find(const struct target *t, __u16 type, __u8 *body, __u32 len)
{
	if (t->p && type == BW_REC_ADDED)
		return find_in(body, len, sizeof(struct bw_rec_prefix), t->p);
	if (t->p && type == BW_REC_LOG_ADDED)
		return find_in(body, len, sizeof(struct bw_rec_expiry), t->p);
	if (t->name && type == BW_REC_ADDED_NAMES)
		return find_name_in(body, len, 0, t->name);
	if (t->name && type == BW_REC_LOG_NAMES)
		return find_name_in(body, len, sizeof(__u64), t->name);
	return NULL;
}

/* Marks the byte e with gone by one store: a reader sees it in or out. */
static void mark(__u8 *e, __u8 gone)
{
	__atomic_store_n(e, (__u8)(*e | gone), __ATOMIC_RELEASE);
}

/*
 * Marks every unmarked entry that is t, in the records and in the add
 * log, then counts the marks once: 1 if one was marked, 0 if none,
 * -EINVAL when the area is malformed (nothing written). A writer killed
 * between two marks leaves the entry's last occurrence deciding, as the
 * reader does: in or out, whole.
 */
static int mark_all(void *mem, __u32 nblocks, const struct target *t, __u8 gone)
{
	__u32 start = bw_records_start(mem);
	__u8 *blk = (__u8 *)mem + (size_t)start * BW_BLOCK_BYTES, *rec, *e;
	struct bw_records check;
	struct bw_rec_area a;
	struct bw_rec_head h;
	long long end;
	__u64 off;
	int marked = 0;

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
		while ((e = find(t, h.type, rec + off + sizeof(h), h.len))) {
			mark(e, gone);
			marked = 1;
		}
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	/* After the marks: whoever sees the count sees them. */
	if (marked)
		__atomic_add_fetch(&((struct bw_rec_area *)blk)->marks, 1,
				   __ATOMIC_RELEASE);
	return marked;
}

int bw_records_mark_gone(void *mem, __u32 nblocks, const struct bw_prefix *p)
{
	struct target t = { .p = p };

	return mark_all(mem, nblocks, &t, BW_REC_PREFIX_GONE);
}

int bw_records_mark_gone_name(void *mem, __u32 nblocks, const char *name,
			      size_t len, __u8 flags)
{
	struct name_key k = { .name = name,
			      .len = len,
			      .kind = flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
							     : BW_NAME_EXACT };
	struct target t = { .name = &k };

	return mark_all(mem, nblocks, &t, BW_REC_NAME_GONE);
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
