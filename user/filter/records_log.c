// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Appending to a running filter's add log (records_log.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "filter/rec_log.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_log.h"

/* The body's bytes: the prefixes' pairs, or each name's entry. */
static size_t body_len(size_t n, const struct bw_list *names)
{
	size_t i, len = 0;

	if (!names)
		return n * sizeof(struct bw_rec_expiry);
	for (i = 0; i < names->ndom; i++)
		len += 2 + names->dom[i].len + sizeof(__u64);
	return len;
}

static void put_body(__u8 *q, const struct bw_prefix *p, size_t n,
		     const struct bw_list *names, __u64 expires)
{
	struct bw_rec_expiry o = { .expires = expires };
	const struct bw_domain *d;
	size_t i;

	for (i = 0; !names && i < n; i++, q += sizeof(o)) {
		bw_rec_prefix_write(&p[i], &o.prefix);
		memcpy(q, &o, sizeof(o));
	}
	for (i = 0; names && i < names->ndom; i++) {
		d = &names->dom[i];
		*q++ = d->flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
						 : BW_NAME_EXACT;
		*q++ = d->len;
		memcpy(q, bw_domain_name(names, d), d->len);
		q += d->len;
		memcpy(q, &expires, sizeof(expires));
		q += sizeof(expires);
	}
}

/*
 * The area's first block as the reader checks it, and the room after it
 * in bytes: 0, or -EINVAL when there is no area or it is malformed. The
 * records themselves are not read: an append checks the heads of the log
 * it appends to (bw_rec_log_end), not the whole area.
 */
static int area_head(const void *mem, __u32 nblocks, struct bw_rec_area *a,
		     __u64 *room)
{
	__u32 start = bw_records_start(mem);

	if (start >= nblocks)
		return -EINVAL;
	memcpy(a, (const __u8 *)mem + (size_t)start * BW_BLOCK_BYTES,
	       sizeof(*a));
	*room = (__u64)(nblocks - start - 1) * BW_BLOCK_BYTES;
	if (a->magic != BW_REC_MAGIC || a->version != BW_REC_VERSION ||
	    a->records_len > *room || a->records_len % BW_REC_ALIGN ||
	    a->nrecords > a->records_len / sizeof(struct bw_rec_head))
		return -EINVAL;
	return 0;
}

int bw_records_log_add(void *mem, __u32 nblocks, const struct bw_prefix *p,
		       size_t n, const struct bw_list *names, __u64 expires)
{
	__u32 start = bw_records_start(mem);
	__u8 *recs = (__u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	struct bw_rec_head h = { .type = names ? BW_REC_LOG_NAMES
					       : BW_REC_LOG_ADDED };
	size_t len = body_len(n, names);
	struct bw_rec_area a;
	long long end;
	__u64 room, v, next;

	if (expires > BW_REC_EXPIRES_MAX)
		expires = BW_REC_EXPIRES_MAX;
	/* Every length below is then in the map. */
	if (area_head(mem, nblocks, &a, &room))
		return -EINVAL;
	end = bw_rec_log_end(recs, a.records_len, room);
	if (end < 0)
		return -EINVAL;
	if (!len)
		return 0;
	if (len > UINT32_MAX ||
	    sizeof(h) + bw_rec_padded(len) > room - (__u64)end)
		return -E2BIG;
	/*
	 * The body, its padding zeroed, and the next head zeroed: a writer
	 * killed before its head may have left a longer body here, which
	 * must not read as a record after this one.
	 */
	next = (__u64)end + sizeof(h) + bw_rec_padded(len);
	memset(recs + end + sizeof(h), 0, bw_rec_padded(len));
	if (room - next >= sizeof(h))
		memset(recs + next, 0, sizeof(h));
	put_body(recs + end + sizeof(h), p, n, names, expires);
	h.len = (__u32)len;
	memcpy(&v, &h, sizeof(v));
	__atomic_store_n((__u64 *)(void *)(recs + end), v, __ATOMIC_RELEASE);
	return 0;
}

int bw_records_log_room(const void *mem, __u32 nblocks, __u64 *room,
			__u64 *left)
{
	__u32 start = bw_records_start(mem);
	const __u8 *recs =
		(const __u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	struct bw_rec_area a;
	long long end;

	if (area_head(mem, nblocks, &a, room))
		return -EINVAL;
	end = bw_rec_log_end(recs, a.records_len, *room);
	if (end < 0)
		return -EINVAL;
	*room -= a.records_len;
	*left = *room - ((__u64)end - a.records_len);
	return 0;
}
