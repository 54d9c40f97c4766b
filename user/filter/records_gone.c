// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Added entries and names marked as taken out in place (records_gone.h). */
#include <errno.h>
#include <string.h>

#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_gone.h"

/* A name as a BW_REC_ADDED_NAMES entry holds it, unmarked. */
struct name_key {
	const char *name;
	size_t len; /* not cut to a byte: a longer one matches none */
	__u8 kind;  /* enum bw_name_region */
};

/* The entry of body (a BW_REC_ADDED record's, len bytes) that is p. */
static __u8 *find_in(__u8 *body, __u32 len, const struct bw_prefix *p)
{
	struct bw_rec_prefix o;
	struct bw_prefix q;
	__u32 off;

	for (off = 0; off + sizeof(o) <= len; off += sizeof(o)) {
		memcpy(&o, body + off, sizeof(o));
		if (o.family & BW_REC_PREFIX_GONE || bw_rec_prefix_read(&o, &q))
			continue;
		if (bw_prefix_same(&q, p))
			return body + off;
	}
	return NULL;
}

/*
 * The kind byte of the entry of body (a BW_REC_ADDED_NAMES record's, len
 * bytes, checked by the reader) that is the name, unmarked.
 */
static __u8 *find_name_in(__u8 *body, __u32 len, const struct name_key *k)
{
	__u32 off;

	/* A marked entry's kind has BW_REC_NAME_GONE: never k's. */
	for (off = 0; off + 2 <= len; off += 2 + (__u32)body[off + 1])
		if (body[off] == k->kind && body[off + 1] == k->len &&
		    !memcmp(body + off + 2, k->name, k->len))
			return body + off;
	return NULL;
}

/* The byte of the area's entry that find says, or NULL; -EINVAL: bad. */
static int find_entry(void *mem, __u32 nblocks, __u8 **e,
		      __u8 *(*find)(__u16 type, __u8 *body, __u32 len,
				    const void *key),
		      const void *key)
{
	__u8 *blk =
		(__u8 *)mem + (size_t)bw_records_start(mem) * BW_BLOCK_BYTES;
	struct bw_records check;
	struct bw_rec_area a;
	struct bw_rec_head h;
	__u8 *rec;
	__u64 off;
	__u32 n;

	*e = NULL;
	/* The reader's checks first: every length below is then in the map. */
	if (bw_records_read(mem, nblocks, &check))
		return -EINVAL;
	bw_records_free(&check);
	if (bw_records_start(mem) >= nblocks)
		return 0;
	memcpy(&a, blk, sizeof(a));
	if (a.magic != BW_REC_MAGIC)
		return 0;
	rec = blk + BW_BLOCK_BYTES;
	for (off = 0, n = 0; !*e && n < a.nrecords; n++) {
		memcpy(&h, rec + off, sizeof(h));
		*e = find(h.type, rec + off + sizeof(h), h.len, key);
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	return 0;
}

/* Marks the byte e with gone, then counts the mark: 1. */
static int mark(void *mem, __u8 *e, __u8 gone)
{
	__u8 *blk =
		(__u8 *)mem + (size_t)bw_records_start(mem) * BW_BLOCK_BYTES;

	/* One byte: a reader sees the entry in or out. */
	__atomic_store_n(e, (__u8)(*e | gone), __ATOMIC_RELEASE);
	/* After the mark: whoever sees the count sees it. */
	__atomic_add_fetch(&((struct bw_rec_area *)blk)->marks, 1,
			   __ATOMIC_RELEASE);
	return 1;
}

static __u8 *find_prefix(__u16 type, __u8 *body, __u32 len, const void *key)
{
	return type == BW_REC_ADDED ? find_in(body, len, key) : NULL;
}

static __u8 *find_name(__u16 type, __u8 *body, __u32 len, const void *key)
{
	return type == BW_REC_ADDED_NAMES ? find_name_in(body, len, key) : NULL;
}

int bw_records_mark_gone(void *mem, __u32 nblocks, const struct bw_prefix *p)
{
	__u8 *e;
	int err = find_entry(mem, nblocks, &e, find_prefix, p);

	if (err || !e)
		return err;
	return mark(mem, e, BW_REC_PREFIX_GONE);
}

int bw_records_mark_gone_name(void *mem, __u32 nblocks, const char *name,
			      size_t len, __u8 flags)
{
	struct name_key k = { .name = name,
			      .len = len,
			      .kind = flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
							     : BW_NAME_EXACT };
	__u8 *e;
	int err;

	err = find_entry(mem, nblocks, &e, find_name, &k);
	if (err || !e)
		return err;
	return mark(mem, e, BW_REC_NAME_GONE);
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
