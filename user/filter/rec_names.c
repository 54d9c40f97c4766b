// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The added names of a record area and their expiries, read
 * (rec_names.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/rec_names.h"
#include "bloomwall.h"
#include "lists/names.h"

/* ---- reading ------------------------------------------------------------- */

bool bw_rec_name_ok(const __u8 *p, __u8 len)
{
	char name[BW_NAME_MAX], why[BW_ERRLEN];
	int n = bw_name_check((const char *)p, len, name, why, sizeof(why));

	return n > 0 && n == len && !memcmp(name, p, len);
}

int bw_rec_names_read(struct bw_list *names, struct bw_list *gone,
		      const __u8 *body, __u32 len)
{
	const char *name;
	__u32 off = 0;
	__u8 kind, n;
	int err;

	while (off < len) {
		if (len - off < 2)
			return -EINVAL;
		kind = body[off] & (__u8)~BW_REC_NAME_GONE;
		n = body[off + 1];
		if (kind > BW_NAME_SUBTREE || n > len - off - 2 ||
		    !bw_rec_name_ok(body + off + 2, n))
			return -EINVAL;
		name = (const char *)body + off + 2;
		err = bw_domain_push(body[off] & BW_REC_NAME_GONE ? gone
								  : names,
				     name, n, kind ? BW_DOM_SUBTREE : 0);
		if (err)
			return -ENOMEM;
		off += 2 + (__u32)n;
	}
	return 0;
}

/* Indices of the added names, equal ones by index: the first leads. */
static int cmp_index(const void *a, const void *b, void *arg)
{
	const struct bw_list *l = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct bw_domain *x = &l->dom[i], *y = &l->dom[j];
	int c = bw_name_cmp(x->flags, x->len, bw_domain_name(l, x), y->flags,
			    y->len, bw_domain_name(l, y));

	return c ?: (i > j) - (i < j);
}

int bw_rec_names_dedup(struct bw_list *l)
{
	size_t n = l->ndom, i, j = 0;
	size_t *ix;
	bool *dup;

	if (n < 2)
		return 0;
	ix = malloc(n * sizeof(*ix));
	dup = calloc(n, sizeof(*dup));
	if (!ix || !dup) {
		free(ix);
		free(dup);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_index, l);
	for (i = 1; i < n; i++)
		dup[ix[i]] = !bw_name_cmp(
			l->dom[ix[i - 1]].flags, l->dom[ix[i - 1]].len,
			bw_domain_name(l, &l->dom[ix[i - 1]]),
			l->dom[ix[i]].flags, l->dom[ix[i]].len,
			bw_domain_name(l, &l->dom[ix[i]]));
	/* The arena keeps their bytes: a hostile area's few. */
	for (i = 0; i < n; i++)
		if (!dup[i])
			l->dom[j++] = l->dom[i];
	l->ndom = j;
	free(ix);
	free(dup);
	return 0;
}

/* Room in e for one more pair and len more bytes of name. */
static int grow_pairs(struct bw_rec_name_expiries *e, size_t len)
{
	size_t cap;
	void *p;

	if (e->n == e->cap) {
		cap = e->cap ? 2 * e->cap : 16;
		p = realloc(e->v, cap * sizeof(*e->v));
		if (!p)
			return -ENOMEM;
		e->v = p;
		e->cap = cap;
	}
	if (e->names_len + len <= e->names_cap)
		return 0;
	cap = e->names_cap ? 2 * e->names_cap : 1024;
	while (cap < e->names_len + len)
		cap *= 2;
	p = realloc(e->names, cap);
	if (!p)
		return -ENOMEM;
	e->names = p;
	e->names_cap = cap;
	return 0;
}

int bw_rec_name_expiries_read(struct bw_rec_name_expiries *e, const __u8 *body,
			      __u32 len)
{
	struct bw_rec_name_exp *x;
	__u32 off = 0;
	__u64 expires;
	__u8 n;

	while (off < len) {
		if (len - off < 2)
			return -EINVAL;
		n = body[off + 1];
		if (body[off] > BW_NAME_SUBTREE ||
		    len - off - 2 < (__u32)n + sizeof(expires) ||
		    !bw_rec_name_ok(body + off + 2, n))
			return -EINVAL;
		memcpy(&expires, body + off + 2 + n, sizeof(expires));
		if (!expires || expires > BW_REC_EXPIRES_MAX)
			return -EINVAL;
		if (grow_pairs(e, n))
			return -ENOMEM;
		x = &e->v[e->n++];
		x->expires = expires;
		x->off = (__u32)e->names_len;
		x->len = n;
		x->flags = body[off] ? BW_DOM_SUBTREE : 0;
		x->taken = false;
		memcpy(e->names + e->names_len, body + off + 2, n);
		e->names_len += n;
		off += 2 + (__u32)n + sizeof(expires);
	}
	return 0;
}

static int cmp_pair(const void *a, const void *b, void *arg)
{
	const struct bw_rec_name_exp *x = a, *y = b;
	const char *names = arg;

	return bw_name_cmp(x->flags, x->len, names + x->off, y->flags, y->len,
			   names + y->off);
}

__u64 bw_rec_name_expiries_take(struct bw_rec_name_expiries *e,
				const char *name, size_t len, __u8 flags)
{
	size_t lo = 0, hi = e->n, mid;
	struct bw_rec_name_exp *x;
	int c;

	if (len > BW_NAME_MAX)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		x = &e->v[mid];
		c = bw_name_cmp(flags, (__u8)len, name, x->flags, x->len,
				e->names + x->off);
		if (!c) {
			if (x->taken)
				return 0;
			x->taken = true;
			return x->expires;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

int bw_rec_name_expiries_sort(struct bw_rec_name_expiries *e)
{
	size_t i;

	if (e->n > 1)
		qsort_r(e->v, e->n, sizeof(e->v[0]), cmp_pair, e->names);
	for (i = 1; i < e->n; i++)
		if (!cmp_pair(&e->v[i - 1], &e->v[i], e->names))
			return -EINVAL;
	return 0;
}

void bw_rec_name_expiries_free(struct bw_rec_name_expiries *e)
{
	free(e->v);
	free(e->names);
	memset(e, 0, sizeof(*e));
}
