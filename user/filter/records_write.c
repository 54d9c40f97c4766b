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

/* Added entries that expire: each has a BW_REC_ADDED_EXPIRES pair. */
static size_t expiring(const struct bw_records *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nadded; i++)
		n += r->added_expires[i] != 0;
	return n;
}

/* Bytes of the added names' body: kind, length and name each. */
static size_t names_len(const struct bw_list *l)
{
	size_t i, len = 0;

	for (i = 0; i < l->ndom; i++)
		len += 2 + l->dom[i].len;
	return len;
}

/* Bytes of the names' expiries: kind, length, name and expiry each. */
static size_t name_expiries_len(const struct bw_records *r)
{
	size_t i, len = 0;

	for (i = 0; i < r->names.ndom; i++)
		if (r->names_expires[i])
			len += 2 + r->names.dom[i].len + sizeof(__u64);
	return len;
}

/* Bytes of the records and their number. */
static __u64 records_len(const struct bw_records *r, __u32 *n)
{
	__u64 len = r->other_len;
	int i;

	*n = r->nother;
	if (r->names.ndom) {
		len += sizeof(struct bw_rec_head) +
		       bw_rec_padded(names_len(&r->names));
		++*n;
	}
	if (name_expiries_len(r)) {
		len += sizeof(struct bw_rec_head) +
		       bw_rec_padded(name_expiries_len(r));
		++*n;
	}
	if (r->have_dns) {
		len += sizeof(struct bw_rec_head) + sizeof(r->dns);
		++*n;
	}
	if (r->nadded) {
		len += sizeof(struct bw_rec_head) +
		       r->nadded * sizeof(struct bw_rec_prefix);
		++*n;
	}
	if (expiring(r)) {
		len += sizeof(struct bw_rec_head) +
		       expiring(r) * sizeof(struct bw_rec_expiry);
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

/* The expiring entries' ends, in the order of the added entries. */
static __u8 *put_expiries(__u8 *p, const struct bw_records *r)
{
	struct bw_rec_expiry o;
	size_t i;

	p = put_head(p, BW_REC_ADDED_EXPIRES, expiring(r) * sizeof(o));
	for (i = 0; i < r->nadded; i++) {
		if (!r->added_expires[i])
			continue;
		bw_rec_prefix_write(&r->added[i], &o.prefix);
		o.expires = r->added_expires[i] < BW_REC_EXPIRES_MAX
				    ? r->added_expires[i]
				    : BW_REC_EXPIRES_MAX;
		memcpy(p, &o, sizeof(o));
		p += sizeof(o);
	}
	return p;
}

static __u8 *put_names(__u8 *p, const struct bw_list *l)
{
	size_t len = names_len(l), i;
	__u8 *q = put_head(p, BW_REC_ADDED_NAMES, len);

	p = q;
	for (i = 0; i < l->ndom; i++) {
		*q++ = l->dom[i].flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
							: BW_NAME_EXACT;
		*q++ = l->dom[i].len;
		memcpy(q, bw_domain_name(l, &l->dom[i]), l->dom[i].len);
		q += l->dom[i].len;
	}
	return p + bw_rec_padded(len);
}

/* The expiring names' ends, in the order of the added names. */
static __u8 *put_name_expiries(__u8 *p, const struct bw_records *r)
{
	const struct bw_list *l = &r->names;
	size_t len = name_expiries_len(r), i;
	__u8 *q = put_head(p, BW_REC_ADDED_NAME_EXPIRES, len);
	__u64 e;

	p = q;
	for (i = 0; i < l->ndom; i++) {
		if (!r->names_expires[i])
			continue;
		e = r->names_expires[i] < BW_REC_EXPIRES_MAX
			    ? r->names_expires[i]
			    : BW_REC_EXPIRES_MAX;
		*q++ = l->dom[i].flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
							: BW_NAME_EXACT;
		*q++ = l->dom[i].len;
		memcpy(q, bw_domain_name(l, &l->dom[i]), l->dom[i].len);
		q += l->dom[i].len;
		memcpy(q, &e, sizeof(e));
		q += sizeof(e);
	}
	return p + bw_rec_padded(len);
}

int bw_records_write(void *mem, __u32 nblocks, const struct bw_records *r)
{
	__u32 start = bw_records_start(mem), need = bw_records_blocks(r);
	__u8 *blk = (__u8 *)mem + (size_t)start * BW_BLOCK_BYTES, *p;
	struct bw_rec_area a = { .magic = BW_REC_MAGIC,
				 .version = BW_REC_VERSION };
	struct bw_rec_prefix o;
	size_t i;

	if (start > nblocks || need > nblocks - start)
		return -E2BIG;
	memset(blk, 0, (size_t)(nblocks - start) * BW_BLOCK_BYTES);
	if (!need)
		return 0;
	a.records_len = records_len(r, &a.nrecords);
	memcpy(blk, &a, sizeof(a));
	p = blk + BW_BLOCK_BYTES;
	if (r->nadded) {
		p = put_head(p, BW_REC_ADDED, r->nadded * sizeof(o));
		for (i = 0; i < r->nadded; i++, p += sizeof(o)) {
			bw_rec_prefix_write(&r->added[i], &o);
			memcpy(p, &o, sizeof(o));
		}
	}
	if (expiring(r))
		p = put_expiries(p, r);
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
	if (r->names.ndom)
		p = put_names(p, &r->names);
	if (name_expiries_len(r))
		p = put_name_expiries(p, r);
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
