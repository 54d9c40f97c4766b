// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The add log of a record area, read (rec_log.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "filter/rec_log.h"
#include "filter/rec_names.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"

/*
 * A head by one load: the writer stores it last, in one 8-byte store, so
 * a record is seen whole or not at all. off is 8-aligned (BW_REC_ALIGN)
 * and the records start at a block: the load is aligned.
 */
static struct bw_rec_head load_head(const __u8 *at)
{
	__u64 v = __atomic_load_n((const __u64 *)(const void *)at,
				  __ATOMIC_ACQUIRE);
	struct bw_rec_head h;

	memcpy(&h, &v, sizeof(h));
	return h;
}

static bool log_type(__u16 type)
{
	return type == BW_REC_LOG_ADDED || type == BW_REC_LOG_NAMES ||
	       type == BW_REC_LOG_OWNERS;
}

long long bw_rec_log_end(const __u8 *records, __u64 len, __u64 room)
{
	struct bw_rec_head h;
	__u64 off = len;

	while (room - off >= sizeof(h)) {
		h = load_head(records + off);
		if (!h.type && !h.flags && !h.len)
			break;
		bw_records_visits++;
		if (!log_type(h.type) || h.flags ||
		    bw_rec_padded(h.len) > room - off - sizeof(h))
			return -EINVAL;
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	return (long long)off;
}

void bw_rec_log_init(struct bw_rec_log *l)
{
	memset(l, 0, sizeof(*l));
	bw_entries_init(&l->e);
}

/* One entry more, marked taken out or not: 0 or -ENOMEM. */
static int push(struct bw_rec_log *l, struct bw_entry_key k, __u64 expires,
		bool gone)
{
	size_t cap = l->gone_cap ? 2 * l->gone_cap : 16;
	bool *g;

	if (l->e.n == l->gone_cap) {
		g = realloc(l->gone, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		l->gone = g;
		l->gone_cap = cap;
	}
	if (bw_entries_push(&l->e, k, expires))
		return -ENOMEM;
	l->gone[l->e.n - 1] = gone;
	return 0;
}

static int read_added(struct bw_rec_log *l, const __u8 *body, __u32 len)
{
	struct bw_rec_expiry o;
	struct bw_prefix p;
	__u32 off;
	bool gone;

	if (len % sizeof(o))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(o)) {
		memcpy(&o, body + off, sizeof(o));
		if (o.expires > BW_REC_EXPIRES_MAX ||
		    bw_rec_added_read(&o.prefix, &p, &gone))
			return -EINVAL;
		if (push(l, bw_key_prefix(&p), o.expires, gone))
			return -ENOMEM;
	}
	return 0;
}

static int read_claims(struct bw_rec_log *l, const __u8 *body, __u32 len)
{
	struct bw_rec_log_claim *c;
	struct bw_rec_owner o;
	size_t cap;
	__u32 off;

	if (len % sizeof(o))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(o)) {
		if (l->nclaims == l->claims_cap) {
			cap = l->claims_cap ? 2 * l->claims_cap : 16;
			c = realloc(l->claims, cap * sizeof(*c));
			if (!c)
				return -ENOMEM;
			l->claims = c;
			l->claims_cap = cap;
		}
		c = &l->claims[l->nclaims];
		memcpy(&o, body + off, sizeof(o));
		if (bw_rec_owner_read(&o, &c->p, c->name))
			return -EINVAL;
		c->expires = o.expires;
		c->seq = l->e.n;
		l->nclaims++;
	}
	return 0;
}

static int read_names(struct bw_rec_log *l, const __u8 *body, __u32 len)
{
	__u32 off = 0;
	__u64 expires;
	__u8 kind, n;

	while (off < len) {
		if (len - off < 2)
			return -EINVAL;
		kind = body[off] & (__u8)~BW_REC_NAME_GONE;
		n = body[off + 1];
		if (kind > BW_NAME_SUBTREE ||
		    (__u64)n + sizeof(__u64) > len - off - 2 ||
		    !bw_rec_name_ok(body + off + 2, n))
			return -EINVAL;
		memcpy(&expires, body + off + 2 + n, sizeof(expires));
		if (expires > BW_REC_EXPIRES_MAX)
			return -EINVAL;
		if (push(l,
			 bw_key_name((const char *)body + off + 2, n,
				     kind ? BW_DOM_SUBTREE : 0),
			 expires, body[off] & BW_REC_NAME_GONE))
			return -ENOMEM;
		off += 2 + (__u32)n + (__u32)sizeof(__u64);
	}
	return 0;
}

int bw_rec_log_read(struct bw_rec_log *l, const __u8 *records, __u64 len,
		    __u64 room)
{
	long long end = bw_rec_log_end(records, len, room);
	struct bw_rec_head h;
	__u64 off = len;
	int err = 0;

	if (end < 0)
		return (int)end;
	while (!err && off < (__u64)end) {
		h = load_head(records + off);
		if (h.type == BW_REC_LOG_ADDED)
			err = read_added(l, records + off + sizeof(h), h.len);
		else if (h.type == BW_REC_LOG_OWNERS)
			err = read_claims(l, records + off + sizeof(h), h.len);
		else
			err = read_names(l, records + off + sizeof(h), h.len);
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	return err;
}

void bw_rec_log_free(struct bw_rec_log *l)
{
	bw_entries_free(&l->e);
	free(l->gone);
	free(l->claims);
	bw_rec_log_init(l);
}
