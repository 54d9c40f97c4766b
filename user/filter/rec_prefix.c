// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Prefixes in the record area's form and back (rec_prefix.h).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "filter/rec_prefix.h"

int bw_rec_prefix_read(const struct bw_rec_prefix *o, struct bw_prefix *p)
{
	__u64 hi, lo, mhi, mlo;
	__u32 v4;

	memset(p, 0, sizeof(*p));
	p->family = o->family;
	p->plen = o->plen;
	if (o->family == BW_V4) {
		if (o->plen > 32)
			return -EINVAL;
		memcpy(&v4, o->addr, sizeof(v4));
		p->lo = be32toh(v4);
		mlo = o->plen ? ~0ULL << (32 - o->plen) : 0;
		return p->lo & ~mlo & 0xffffffffULL ? -EINVAL : 0;
	}
	if (o->family != BW_V6 || o->plen > 128)
		return -EINVAL;
	memcpy(&hi, o->addr, sizeof(hi));
	memcpy(&lo, o->addr + 8, sizeof(lo));
	p->hi = be64toh(hi);
	p->lo = be64toh(lo);
	mhi = o->plen >= 64 ? ~0ULL : (o->plen ? ~0ULL << (64 - o->plen) : 0);
	mlo = o->plen <= 64 ? 0 : ~0ULL << (128 - o->plen);
	return (p->hi & ~mhi) || (p->lo & ~mlo) ? -EINVAL : 0;
}

int bw_rec_added_read(const struct bw_rec_prefix *o, struct bw_prefix *p,
		      bool *gone)
{
	struct bw_rec_prefix q = *o;

	*gone = q.family & BW_REC_PREFIX_GONE;
	q.family &= (__u8)~BW_REC_PREFIX_GONE;
	return bw_rec_prefix_read(&q, p);
}

void bw_rec_prefix_write(const struct bw_prefix *p, struct bw_rec_prefix *o)
{
	__u64 hi = htobe64(p->hi), lo = htobe64(p->lo);
	__u32 v4 = htobe32((__u32)p->lo);

	memset(o, 0, sizeof(*o));
	o->family = p->family;
	o->plen = p->plen;
	if (p->family == BW_V4) {
		memcpy(o->addr, &v4, sizeof(v4));
	} else {
		memcpy(o->addr, &hi, sizeof(hi));
		memcpy(o->addr + 8, &lo, sizeof(lo));
	}
}

int bw_rec_owner_read(const struct bw_rec_owner *o, struct bw_prefix *p,
		      char name[BW_REC_OWNER_MAX + 1])
{
	size_t i;

	if (bw_rec_prefix_read(&o->prefix, p) ||
	    o->expires > BW_REC_EXPIRES_MAX)
		return -EINVAL;
	memcpy(name, o->name, BW_REC_OWNER_MAX);
	name[BW_REC_OWNER_MAX] = '\0';
	/* NUL-padded: nothing after the first NUL. */
	for (i = strlen(name); i < BW_REC_OWNER_MAX; i++)
		if (o->name[i])
			return -EINVAL;
	return name[0] && bw_owner_check(name) ? -EINVAL : 0;
}

void bw_rec_owner_write(const struct bw_prefix *p, const struct bw_claim *c,
			struct bw_rec_owner *o)
{
	memset(o, 0, sizeof(*o));
	bw_rec_prefix_write(p, &o->prefix);
	o->expires = c->expires < BW_REC_EXPIRES_MAX ? c->expires
						     : BW_REC_EXPIRES_MAX;
	memcpy(o->name, c->name, strnlen(c->name, BW_REC_OWNER_MAX));
}
