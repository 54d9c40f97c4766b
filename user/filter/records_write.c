// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Writing the records area after a filter's last region: each record's
 * head and body, padded to BW_REC_ALIGN, in the order a reader takes
 * them (records.c reads them back).
 */
#include <errno.h>
#include <string.h>

#include "filter/records.h"
#include "filter/rec_prefix.h"
#include "filter/records_write.h"

/* The added entries' counts and bytes, as the records hold them. */
struct added_len {
	size_t prefixes;      /* BW_REC_ADDED: one bw_rec_prefix each */
	size_t expiring;      /* BW_REC_ADDED_EXPIRES: one pair each */
	size_t names;	      /* BW_REC_ADDED_NAMES: kind, length, name */
	size_t name_expiries; /* BW_REC_ADDED_NAME_EXPIRES: and expiry */
	size_t claims;	      /* BW_REC_OWNERS: one bw_rec_owner each */
};

static struct added_len added_len(const struct bw_records *r)
{
	struct added_len a = {};
	const struct bw_entry *e;
	size_t i;

	for (i = 0; i < r->added.n; i++) {
		e = &r->added.v[i];
		if (!bw_entry_is_name(e)) {
			a.prefixes++;
			a.expiring += !!e->expires;
			continue;
		}
		a.names += 2 + e->d.len;
		if (e->expires)
			a.name_expiries += 2 + e->d.len + sizeof(__u64);
	}
	a.claims = bw_owners_count(&r->owners);
	return a;
}

/* Bytes of the records and their number. */
static __u64 records_len(const struct bw_records *r, __u32 *n)
{
	struct added_len a = added_len(r);
	__u64 len = r->other_len;
	int i;

	*n = r->nother;
	if (a.names) {
		len += sizeof(struct bw_rec_head) + bw_rec_padded(a.names);
		++*n;
	}
	if (a.name_expiries) {
		len += sizeof(struct bw_rec_head) +
		       bw_rec_padded(a.name_expiries);
		++*n;
	}
	if (r->have_dns) {
		len += sizeof(struct bw_rec_head) + sizeof(r->dns);
		++*n;
	}
	if (a.prefixes) {
		len += sizeof(struct bw_rec_head) +
		       a.prefixes * sizeof(struct bw_rec_prefix);
		++*n;
	}
	if (a.expiring) {
		len += sizeof(struct bw_rec_head) +
		       a.expiring * sizeof(struct bw_rec_expiry);
		++*n;
	}
	if (a.claims) {
		len += sizeof(struct bw_rec_head) +
		       a.claims * sizeof(struct bw_rec_owner);
		++*n;
	}
	if (r->have_build) {
		len += sizeof(struct bw_rec_head) + sizeof(r->build);
		++*n;
	}
	if (r->have_origin) {
		len += sizeof(struct bw_rec_head) + sizeof(r->origin);
		++*n;
	}
	if (r->have_change) {
		len += sizeof(struct bw_rec_head) + sizeof(r->change);
		++*n;
	}
	if (r->have_sized) {
		len += sizeof(struct bw_rec_head) + sizeof(r->sized);
		++*n;
	}
	if (r->have_image) {
		len += sizeof(struct bw_rec_head) + sizeof(r->image);
		++*n;
	}
	for (i = 0; i < r->nlists; i++) {
		len += sizeof(struct bw_rec_head) +
		       bw_rec_padded(strlen(r->lists[i]));
		if (r->src && r->src[i].known)
			len += sizeof(struct bw_rec_source);
		++*n;
	}
	for (i = 0; i < r->nallow; i++) {
		len += sizeof(struct bw_rec_head) +
		       bw_rec_padded(sizeof(struct bw_rec_source) +
				     strlen(r->allow[i]));
		++*n;
	}
	return len;
}

__u32 bw_records_blocks(const struct bw_records *r)
{
	__u32 n;
	__u64 len = records_len(r, &n);

	if (!n)
		return 0;
	return 1 + (__u32)((len + BW_BLOCK_BYTES - 1) / BW_BLOCK_BYTES);
}

__u32 bw_records_room(const struct bw_records *r)
{
	__u32 n;
	__u64 len = records_len(r, &n);

	/* As much again as the records, at least BW_REC_LOG_ROOM. */
	len = len > BW_REC_LOG_ROOM ? len : BW_REC_LOG_ROOM;
	return (__u32)((len + BW_BLOCK_BYTES - 1) / BW_BLOCK_BYTES);
}

__u32 bw_records_end(const void *mem, const struct bw_records *r)
{
	return bw_records_start(mem) + bw_records_blocks(r) +
	       bw_records_room(r);
}

static __u8 *put_head(__u8 *p, __u16 type, size_t len)
{
	struct bw_rec_head h = { .type = type, .len = (__u32)len };

	memcpy(p, &h, sizeof(h));
	return p + sizeof(h);
}

/*
 * A list: BW_REC_SOURCE (BW_REC_ALLOW_SOURCE for an allowlist file) when
 * what it was is known, else BW_REC_LIST.
 */
static __u8 *put_list(__u8 *p, const char *path, const struct bw_rec_src *s,
		      __u16 type)
{
	size_t len = strlen(path);

	if (!s || !s->known) {
		p = put_head(p, BW_REC_LIST, len);
		memcpy(p, path, len);
		return p + bw_rec_padded(len);
	}
	p = put_head(p, type, sizeof(s->s) + len);
	memcpy(p, &s->s, sizeof(s->s));
	memcpy(p + sizeof(s->s), path, len);
	return p + bw_rec_padded(sizeof(s->s) + len);
}

static __u8 *put_fixed(__u8 *p, __u16 type, const void *body, size_t len)
{
	p = put_head(p, type, len);
	memcpy(p, body, len);
	return p + len;
}

static __u64 capped(__u64 expires)
{
	return expires < BW_REC_EXPIRES_MAX ? expires : BW_REC_EXPIRES_MAX;
}

/* The added prefixes, or those that expire with their ends, in order. */
static __u8 *put_prefixes(__u8 *p, const struct bw_records *r, size_t count,
			  bool expiries)
{
	struct bw_rec_expiry o;
	const struct bw_entry *e;
	size_t i, size = expiries ? sizeof(o) : sizeof(o.prefix);

	p = put_head(p, expiries ? BW_REC_ADDED_EXPIRES : BW_REC_ADDED,
		     count * size);
	for (i = 0; i < r->added.n; i++) {
		e = &r->added.v[i];
		if (bw_entry_is_name(e) || (expiries && !e->expires))
			continue;
		bw_rec_prefix_write(&e->p, &o.prefix);
		o.expires = capped(e->expires);
		memcpy(p, &o, size);
		p += size;
	}
	return p;
}

/* The owners' claims (BW_REC_OWNERS). */
static __u8 *put_owners(__u8 *p, const struct bw_owners *o, size_t count)
{
	struct bw_rec_owner c;
	size_t i;
	__u32 j;

	p = put_head(p, BW_REC_OWNERS, count * sizeof(c));
	for (i = 0; i < o->keys.n; i++) {
		for (j = 0; j < o->of[i].n; j++) {
			bw_rec_owner_write(&o->keys.v[i].p, &o->of[i].v[j], &c);
			memcpy(p, &c, sizeof(c));
			p += sizeof(c);
		}
	}
	return p;
}

/* The added names, or those that expire with their ends, in order. */
static __u8 *put_names(__u8 *p, const struct bw_records *r, size_t len,
		       bool expiries)
{
	__u8 *q = put_head(
		p, expiries ? BW_REC_ADDED_NAME_EXPIRES : BW_REC_ADDED_NAMES,
		len);
	const struct bw_entry *e;
	size_t i;
	__u64 end;

	p = q;
	for (i = 0; i < r->added.n; i++) {
		e = &r->added.v[i];
		if (!bw_entry_is_name(e) || (expiries && !e->expires))
			continue;
		*q++ = e->d.flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
						   : BW_NAME_EXACT;
		*q++ = e->d.len;
		memcpy(q, bw_entry_name(&r->added, e), e->d.len);
		q += e->d.len;
		if (!expiries)
			continue;
		end = capped(e->expires);
		memcpy(q, &end, sizeof(end));
		q += sizeof(end);
	}
	return p + bw_rec_padded(len);
}

int bw_records_write(void *mem, __u32 nblocks, const struct bw_records *r)
{
	__u32 start = bw_records_start(mem), need = bw_records_blocks(r);
	__u8 *blk = (__u8 *)mem + (size_t)start * BW_BLOCK_BYTES, *p;
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION };
	struct added_len al = added_len(r);
	size_t i;

	if (start > nblocks || need > nblocks - start)
		return -E2BIG;
	memset(blk, 0, (size_t)(nblocks - start) * BW_BLOCK_BYTES);
	if (!need)
		return 0;
	a.records_len = records_len(r, &a.nrecords);
	memcpy(blk, &a, sizeof(a));
	p = blk + BW_BLOCK_BYTES;
	if (al.prefixes)
		p = put_prefixes(p, r, al.prefixes, false);
	if (al.expiring)
		p = put_prefixes(p, r, al.expiring, true);
	if (al.claims)
		p = put_owners(p, &r->owners, al.claims);
	if (r->have_build)
		p = put_fixed(p, BW_REC_BUILD, &r->build, sizeof(r->build));
	if (r->have_origin)
		p = put_fixed(p, BW_REC_ORIGIN, &r->origin, sizeof(r->origin));
	if (r->have_change)
		p = put_fixed(p, BW_REC_CHANGE, &r->change, sizeof(r->change));
	if (r->have_sized)
		p = put_fixed(p, BW_REC_SIZED, &r->sized, sizeof(r->sized));
	if (r->have_image)
		p = put_fixed(p, BW_REC_IMAGE, &r->image, sizeof(r->image));
	if (al.names)
		p = put_names(p, r, al.names, false);
	if (al.name_expiries)
		p = put_names(p, r, al.name_expiries, true);
	if (r->have_dns)
		p = put_fixed(p, BW_REC_DNS, &r->dns, sizeof(r->dns));
	for (i = 0; i < (size_t)r->nlists; i++)
		p = put_list(p, r->lists[i], r->src ? &r->src[i] : NULL,
			     BW_REC_SOURCE);
	for (i = 0; i < (size_t)r->nallow; i++)
		p = put_list(p, r->allow[i], &r->allow_src[i],
			     BW_REC_ALLOW_SOURCE);
	if (r->other_len)
		memcpy(p, r->other, r->other_len);
	return 0;
}
