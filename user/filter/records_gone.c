// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Added entries marked as taken out in place (records_gone.h). */
#include <errno.h>
#include <string.h>

#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_gone.h"

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

int bw_records_mark_gone(void *mem, __u32 nblocks, const struct bw_prefix *p)
{
	__u8 *blk =
		(__u8 *)mem + (size_t)bw_records_start(mem) * BW_BLOCK_BYTES;
	struct bw_records check;
	struct bw_rec_area a;
	struct bw_rec_head h;
	__u8 *rec, *e;
	__u64 off;
	__u32 n;

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
	for (off = 0, n = 0; n < a.nrecords; n++) {
		memcpy(&h, rec + off, sizeof(h));
		e = h.type == BW_REC_ADDED
			    ? find_in(rec + off + sizeof(h), h.len, p)
			    : NULL;
		if (e) {
			/* One byte: a reader sees the entry in or out. */
			__atomic_store_n(e, (__u8)(*e | BW_REC_PREFIX_GONE),
					 __ATOMIC_RELEASE);
			/* After the mark: whoever sees the count sees it. */
			__atomic_add_fetch(&((struct bw_rec_area *)blk)->marks,
					   1, __ATOMIC_RELEASE);
			return 1;
		}
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	return 0;
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
