// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Prefixes in the record area's form and back, and the expiry pairs of a
 * record area, gathered and looked up (rec_prefix.h).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
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

int bw_rec_expiries_read(struct bw_rec_expiries *e, const __u8 *body, __u32 len)
{
	struct bw_rec_expiry o;
	struct bw_rec_exp *v;
	size_t n = len / sizeof(o), i;
	int err;

	if (len % sizeof(o))
		return -EINVAL;
	if (e->n + n > e->cap) {
		v = realloc(e->v, (e->n + n) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = e->n + n;
	}
	for (i = 0; i < n; i++) {
		memcpy(&o, body + i * sizeof(o), sizeof(o));
		if (!o.expires || o.expires > BW_REC_EXPIRES_MAX)
			return -EINVAL;
		err = bw_rec_prefix_read(&o.prefix, &e->v[e->n].p);
		if (err)
			return err;
		e->v[e->n].taken = false;
		e->v[e->n++].expires = o.expires;
	}
	return 0;
}

static int cmp_exp(const void *a, const void *b)
{
	return bw_prefix_cmp(&((const struct bw_rec_exp *)a)->p,
			     &((const struct bw_rec_exp *)b)->p);
}

int bw_rec_expiries_sort(struct bw_rec_expiries *e)
{
	size_t i;

	if (e->n > 1)
		qsort(e->v, e->n, sizeof(e->v[0]), cmp_exp);
	for (i = 1; i < e->n; i++)
		if (!cmp_exp(&e->v[i - 1], &e->v[i]))
			return -EINVAL;
	return 0;
}

__u64 bw_rec_expiries_take(struct bw_rec_expiries *e, const struct bw_prefix *p)
{
	struct bw_rec_exp key = { .p = *p }, *hit;

	if (!e->n)
		return 0;
	hit = bsearch(&key, e->v, e->n, sizeof(e->v[0]), cmp_exp);
	if (!hit || hit->taken)
		return 0;
	hit->taken = true;
	return hit->expires;
}

void bw_rec_expiries_free(struct bw_rec_expiries *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}
