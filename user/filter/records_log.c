// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Appending to a running filter's add log (records_log.h). */
#include <errno.h>
#include <stdbool.h>
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

/*
 * Each entry of s of the kind: a prefix's pair, or a name's entry; off
 * (NULL: not wanted) gets each one's offset from recs.
 */
static void put_body(const __u8 *recs, __u8 *q, const struct bw_entries *s,
		     __u8 kind, __u64 *off)
{
	const struct bw_entry *e;
	struct bw_rec_expiry o;
	__u64 expires;
	size_t i;

	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		if (e->kind != kind)
			continue;
		if (off)
			off[i] = (__u64)(q - recs);
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

/* Claims of the prefixes of s that own records: how many. */
static size_t claims_of(const struct bw_entries *s, const struct bw_owners *own)
{
	const struct bw_owned *c;
	size_t i, n = 0;

	for (i = 0; own && i < s->n; i++) {
		if (s->v[i].kind != BW_ENTRY_PREFIX)
			continue;
		c = bw_owners_get(own, bw_entries_key(s, i));
		n += c ? c->n : 0;
	}
	return n;
}

/* Those claims, each after the other, in the order of s. */
static void put_claims(__u8 *q, const struct bw_entries *s,
		       const struct bw_owners *own)
{
	const struct bw_owned *c;
	struct bw_rec_owner o;
	size_t i;
	__u32 j;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].kind != BW_ENTRY_PREFIX)
			continue;
		c = bw_owners_get(own, bw_entries_key(s, i));
		for (j = 0; c && j < c->n; j++) {
			bw_rec_owner_write(&s->v[i].p, &c->v[j], &o);
			memcpy(q, &o, sizeof(o));
			q += sizeof(o);
		}
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

/* Where the log ends if it still ends at end (its head there zero). */
static bool ends_at(const __u8 *recs, const struct bw_rec_area *a, __u64 room,
		    __u64 end)
{
	__u64 h;

	if (end < a->records_len || end > room || end % BW_REC_ALIGN)
		return false;
	if (room - end < sizeof(struct bw_rec_head))
		return true;
	h = __atomic_load_n((const __u64 *)(const void *)(recs + end),
			    __ATOMIC_ACQUIRE);
	return !h;
}

/*
 * The append: at *at_end when known (else walked to), checked as
 * bw_records_log_add_at says; *at_end then the log's new end.
 */
static int append(void *mem, __u32 nblocks, const struct bw_entries *s,
		  const struct bw_owners *own, bool known, __u64 *at_end,
		  __u64 *off)
{
	__u32 start = bw_records_start(mem);
	__u8 *recs = (__u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	size_t plen = body_len(s, BW_ENTRY_PREFIX);
	size_t nlen = body_len(s, BW_ENTRY_NAME);
	size_t olen = claims_of(s, own) * sizeof(struct bw_rec_owner);
	const size_t hl = sizeof(struct bw_rec_head);
	__u64 room, need, at, first, second = 0, owners = 0;
	struct bw_rec_area a;
	long long end;

	/* Every length below is then in the map. */
	if (area_head(mem, nblocks, &a, &room))
		return -EINVAL;
	if (known && !ends_at(recs, &a, room, *at_end))
		return -ESTALE;
	end = known ? (long long)*at_end
		    : bw_rec_log_end(recs, a.records_len, room);
	if (end < 0)
		return -EINVAL;
	*at_end = (__u64)end;
	if (!plen && !nlen)
		return 0;
	if (plen > UINT32_MAX || nlen > UINT32_MAX || olen > UINT32_MAX)
		return -E2BIG;
	/* Claims follow their prefixes' record: none without one. */
	if (!plen)
		olen = 0;
	need = (plen ? hl + bw_rec_padded(plen) : 0) + (olen ? hl + olen : 0) +
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
		put_body(recs, recs + at + hl, s, BW_ENTRY_PREFIX, off);
		at += hl + bw_rec_padded(plen);
	}
	if (olen) {
		put_claims(recs + at + hl, s, own);
		owners = at;
		at += hl + olen;
	}
	if (nlen)
		put_body(recs, recs + at + hl, s, BW_ENTRY_NAME, off);
	first = plen ? head_word(BW_REC_LOG_ADDED, plen)
		     : head_word(BW_REC_LOG_NAMES, nlen);
	if (plen && nlen)
		second = head_word(BW_REC_LOG_NAMES, nlen);
	/*
	 * The claims' and the names' heads, then the first head last: the
	 * log ends at a zero head, so a reader sees all records or none.
	 */
	if (olen)
		__atomic_store_n((__u64 *)(void *)(recs + owners),
				 head_word(BW_REC_LOG_OWNERS, olen),
				 __ATOMIC_RELEASE);
	if (second)
		__atomic_store_n((__u64 *)(void *)(recs + at), second,
				 __ATOMIC_RELEASE);
	__atomic_store_n((__u64 *)(void *)(recs + end), first,
			 __ATOMIC_RELEASE);
	*at_end = (__u64)end + need;
	return 0;
}

int bw_records_log_add(void *mem, __u32 nblocks, const struct bw_entries *s)
{
	__u64 end;

	return append(mem, nblocks, s, NULL, false, &end, NULL);
}

int bw_records_log_add_at(void *mem, __u32 nblocks, const struct bw_entries *s,
			  const struct bw_owners *own, __u64 *end, __u64 *off)
{
	return append(mem, nblocks, s, own, true, end, off);
}

long long bw_records_log_end(const void *mem, __u32 nblocks)
{
	__u32 start = bw_records_start(mem);
	const __u8 *recs =
		(const __u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	struct bw_rec_area a;
	__u64 room;

	if (area_head(mem, nblocks, &a, &room))
		return -EINVAL;
	return bw_rec_log_end(recs, a.records_len, room);
}

bool bw_records_log_ends_at(const void *mem, __u32 nblocks, __u64 end)
{
	__u32 start = bw_records_start(mem);
	const __u8 *recs =
		(const __u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	struct bw_rec_area a;
	__u64 room;

	return !area_head(mem, nblocks, &a, &room) &&
	       ends_at(recs, &a, room, end);
}

/* The room past the records, and what is left of it with the log at end. */
static int room_left(const void *mem, __u32 nblocks, bool known, __u64 end,
		     __u64 *room, __u64 *left)
{
	__u32 start = bw_records_start(mem);
	const __u8 *recs =
		(const __u8 *)mem + ((size_t)start + 1) * BW_BLOCK_BYTES;
	struct bw_rec_area a;
	long long at;

	if (area_head(mem, nblocks, &a, room))
		return -EINVAL;
	if (known && !ends_at(recs, &a, *room, end))
		return -ESTALE;
	at = known ? (long long)end
		   : bw_rec_log_end(recs, a.records_len, *room);
	if (at < 0)
		return -EINVAL;
	*room -= a.records_len;
	*left = *room - ((__u64)at - a.records_len);
	return 0;
}

int bw_records_log_room(const void *mem, __u32 nblocks, __u64 *room,
			__u64 *left)
{
	return room_left(mem, nblocks, false, 0, room, left);
}

int bw_records_log_room_at(const void *mem, __u32 nblocks, __u64 end,
			   __u64 *room, __u64 *left)
{
	return room_left(mem, nblocks, true, end, room, left);
}
