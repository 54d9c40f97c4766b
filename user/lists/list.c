// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Lists in memory: the entries of both families and the domain entries,
 * appended as the lines are read (list_load.c, list_parse.c), then sorted
 * and de-duplicated, ten million entries in well under a second.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list.h"

void bw_list_init(struct bw_list *l)
{
	memset(l, 0, sizeof(*l));
}

void bw_list_free(struct bw_list *l)
{
	free(l->v4);
	free(l->v6);
	free(l->dom);
	free(l->names);
	bw_list_init(l);
}

/* Grows an array to hold more elements; doubling keeps pushes O(1). */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 1024;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = reallocarray(*arr, ncap, size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int bw_list_reserve(struct bw_list *l, size_t n4, size_t n6, size_t ndom,
		    size_t names_len)
{
	if (grow((void **)&l->v4, &l->cap4, l->n4 + n4, sizeof(*l->v4)) ||
	    grow((void **)&l->v6, &l->cap6, l->n6 + n6, sizeof(*l->v6)) ||
	    grow((void **)&l->dom, &l->capdom, l->ndom + ndom,
		 sizeof(*l->dom)) ||
	    grow((void **)&l->names, &l->names_cap, l->names_len + names_len,
		 1))
		return -ENOMEM;
	return 0;
}

int bw_list_push(struct bw_list *l, const struct bw_prefix *p)
{
	struct bw_v6key *k;

	if (p->family == BW_V4) {
		if (grow((void **)&l->v4, &l->cap4, l->n4 + 1, sizeof(*l->v4)))
			return -ENOMEM;
		l->v4[l->n4++] = bw_v4key((__u32)p->lo, p->plen);
		return 0;
	}
	if (grow((void **)&l->v6, &l->cap6, l->n6 + 1, sizeof(*l->v6)))
		return -ENOMEM;
	k = &l->v6[l->n6++];
	k->hi = p->hi;
	k->lo = p->lo;
	k->plen = p->plen;
	k->pad = 0;
	return 0;
}

int bw_domain_push(struct bw_list *l, const char *name, size_t len, __u8 flags)
{
	struct bw_domain *d;

	/* Offsets are 32 bits: 4 GiB of names is 100 million or more. */
	if (l->names_len + len > UINT32_MAX)
		return -E2BIG;
	if (grow((void **)&l->names, &l->names_cap, l->names_len + len, 1) ||
	    grow((void **)&l->dom, &l->capdom, l->ndom + 1, sizeof(*l->dom)))
		return -ENOMEM;
	memcpy(l->names + l->names_len, name, len);
	d = &l->dom[l->ndom++];
	d->off = (__u32)l->names_len;
	d->len = (__u8)len;
	d->flags = flags;
	d->pad = 0;
	l->names_len += len;
	return 0;
}

/*
 * LSD radix sort, a byte a pass. One pass counts every byte's histogram;
 * bytes that are the same in all keys (the top three of an IPv4 key) cost
 * no pass. Falls back to qsort when the scratch buffer is not available.
 */
static int radix_sort_u64(__u64 *v, size_t n)
{
	size_t cnt[8][256];
	__u64 *tmp, *src = v, *dst, *t;
	size_t i, sum, c;
	unsigned int b;

	tmp = malloc(n * sizeof(*v));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			cnt[b][(v[i] >> (8 * b)) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (cnt[b][(v[0] >> (8 * b)) & 0xff] == n)
			continue;
		for (sum = 0, i = 0; i < 256; i++) {
			c = cnt[b][i];
			cnt[b][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];
		t = src, src = dst, dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

int bw_v4key_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

int bw_v6key_cmp(const void *a, const void *b)
{
	const struct bw_v6key *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->plen > y->plen) - (x->plen < y->plen);
}

/* Drops neighbours equal to the previous kept element; returns the count. */
static size_t unique(void *arr, size_t n, size_t size)
{
	char *base = arr;
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		if (out &&
		    !memcmp(base + (out - 1) * size, base + i * size, size))
			continue;
		if (out != i)
			memcpy(base + out * size, base + i * size, size);
		out++;
	}
	return out;
}

static int cmp_domain(const void *a, const void *b, void *arg)
{
	const struct bw_domain *x = a, *y = b;
	const char *names = arg;
	int c = memcmp(names + x->off, names + y->off,
		       x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

/*
 * The arena keeps the names of removed duplicates: rewriting it would cost
 * a pass over all names to save a few percent.
 */
static void domains_finish(struct bw_list *l)
{
	size_t i, out = 0;

	if (l->ndom > 1)
		qsort_r(l->dom, l->ndom, sizeof(*l->dom), cmp_domain, l->names);
	for (i = 0; i < l->ndom; i++) {
		if (out && !cmp_domain(&l->dom[out - 1], &l->dom[i], l->names))
			continue;
		l->dom[out++] = l->dom[i];
	}
	l->duplicates += l->ndom - out;
	l->ndom = out;
}

void bw_list_finish(struct bw_list *l)
{
	size_t n;

	if (l->n4 > 1 && radix_sort_u64(l->v4, l->n4))
		qsort(l->v4, l->n4, sizeof(*l->v4), bw_v4key_cmp);
	n = unique(l->v4, l->n4, sizeof(*l->v4));
	l->duplicates += l->n4 - n;
	l->n4 = n;

	if (l->n6 > 1)
		qsort(l->v6, l->n6, sizeof(*l->v6), bw_v6key_cmp);
	n = unique(l->v6, l->n6, sizeof(*l->v6));
	l->duplicates += l->n6 - n;
	l->n6 = n;
	domains_finish(l);
}

void bw_domains_subtree(struct bw_list *l)
{
	size_t i;

	for (i = 0; i < l->ndom; i++)
		l->dom[i].flags |= BW_DOM_SUBTREE;
}

void bw_domains_count(const struct bw_list *l, struct bw_domain_counts *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < l->ndom; i++) {
		if (l->dom[i].flags & BW_DOM_ALLOW)
			c->allow++;
		else if (l->dom[i].flags & BW_DOM_SUBTREE)
			c->subtree++;
		else
			c->exact++;
	}
}
