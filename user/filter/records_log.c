// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Appending to a running filter's add log (records_log.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "filter/rec_log.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_log.h"

/* The body's bytes of the entries of s of one kind. */
static size_t body_len(const struct bw_entries *s, __u8 kind)
{
	size_t i, len = 0;

	for (i = 0; i < s->n; i++)
		if (s->v[i].kind == kind)
			len += kind == BW_ENTRY_PREFIX
				       ? sizeof(struct bw_rec_expiry)
				       : 2 + s->v[i].d.len + sizeof(__u64);
	return len;
}

/* Each entry of s of the kind: a prefix's pair, or a name's entry. */
static void put_body(__u8 *q, const struct bw_entries *s, __u8 kind)
{
	const struct bw_entry *e;
	struct bw_rec_expiry o;
	__u64 expires;
	size_t i;

	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		if (e->kind != kind)
			continue;
		expires = e->expires < BW_REC_EXPIRES_MAX ? e->expires
							  : BW_REC_EXPIRES_MAX;
		if (kind == BW_ENTRY_PREFIX) {
			o = (struct bw_rec_expiry){ .expires = expires };
			bw_rec_prefix_write(&e->p, &o.prefix);
			memcpy(q, &o, sizeof(o));
			q += sizeof(o);
			continue;
		}
		*q++ = e->d.flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
						   : BW_NAME_EXACT;
		*q++ = e->d.len;
		memcpy(q, bw_entry_name(s, e), e->d.len);
		q += e->d.len;
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

/* A record's head as the 8 bytes stored in one. */
static __u64 head_word(__u16 type, size_t len)
{
	struct bw_rec_head h = { .type = type, .len = (__u32)len };
	__u64 v;

	memcpy(&v, &h, sizeof(v));
	return v;
}

int bw_records_log_add(void *mem, __u32 nblocks, const struct bw_entries *s)
{
	__u32 start = bw_records_start(mem);
	__u8 *recs = (__u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	size_t plen = body_len(s, BW_ENTRY_PREFIX);
	size_t nlen = body_len(s, BW_ENTRY_NAME);
	const size_t hl = sizeof(struct bw_rec_head);
	__u64 room, need, at, first, second = 0;
	struct bw_rec_area a;
	long long end;

	/* Every length below is then in the map. */
	if (area_head(mem, nblocks, &a, &room))
		return -EINVAL;
	end = bw_rec_log_end(recs, a.records_len, room);
	if (end < 0)
		return -EINVAL;
	if (!plen && !nlen)
		return 0;
	if (plen > UINT32_MAX || nlen > UINT32_MAX)
		return -E2BIG;
	need = (plen ? hl + bw_rec_padded(plen) : 0) +
	       (nlen ? hl + bw_rec_padded(nlen) : 0);
	if (need > room - (__u64)end)
		return -E2BIG;
	/*
	 * The bodies, their padding zeroed, and the next head zeroed: a
	 * writer killed before its head may have left a longer body here,
	 * which must not read as a record after these.
	 */
	memset(recs + end, 0, need);
	if (room - ((__u64)end + need) >= hl)
		memset(recs + end + need, 0, hl);
	at = (__u64)end;
	if (plen) {
		put_body(recs + at + hl, s, BW_ENTRY_PREFIX);
		at += hl + bw_rec_padded(plen);
	}
	if (nlen)
		put_body(recs + at + hl, s, BW_ENTRY_NAME);
	first = plen ? head_word(BW_REC_LOG_ADDED, plen)
		     : head_word(BW_REC_LOG_NAMES, nlen);
	if (plen && nlen)
		second = head_word(BW_REC_LOG_NAMES, nlen);
	/*
	 * The names' head, then the first head last: the log ends at a zero
	 * head, so a reader sees both records or neither.
	 */
	if (second)
		__atomic_store_n((__u64 *)(void *)(recs + at), second,
				 __ATOMIC_RELEASE);
	__atomic_store_n((__u64 *)(void *)(recs + end), first,
			 __ATOMIC_RELEASE);
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
