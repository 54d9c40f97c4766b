// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The decision set's hash tables (cs_table.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bw_hash.h"
#include "net/cs_table.h"

/* ---- ids ----------------------------------------------------------------- */

struct bw_cs_idslot {
	__u32 tag; /* the table's */
	__u32 val;
	__s64 id;
};

_Static_assert(offsetof(struct bw_cs_idslot, id) == BW_TABLE_U64_KEY,
	       "the id is the table's key");

long bw_cs_idmap_get(const struct bw_cs_idmap *m, __s64 id)
{
	const struct bw_cs_idslot *e = bw_table_find(&m->t, &id);

	return e ? (long)e->val : -1;
}

int bw_cs_idmap_put(struct bw_cs_idmap *m, __s64 id, __u32 val)
{
	struct bw_cs_idslot *e;
	bool added;

	if (!m->t.size)
		bw_table_init_u64(&m->t, sizeof(*e));
	e = bw_table_put(&m->t, &id, &added);
	if (!e)
		return -ENOMEM;
	e->val = val;
	return 0;
}

void bw_cs_idmap_del(struct bw_cs_idmap *m, __s64 id)
{
	void *e = bw_table_find(&m->t, &id);

	if (e)
		bw_table_del(&m->t, e);
}

void bw_cs_idmap_free(struct bw_cs_idmap *m)
{
	bw_table_free(&m->t);
}

/* ---- values -------------------------------------------------------------- */

struct bw_cs_valslot {
	__u32 tag; /* the table's */
	__u32 count;
	__u64 hi, lo;
	__u8 family, plen;
};

static __u64 val_hash(const void *key)
{
	const struct bw_prefix *p = key;

	return bw_mix64(bw_mix64(p->hi) ^ p->lo ^
			((__u64)p->family << 8 | p->plen));
}

static bool val_is(const void *slot, const void *key)
{
	const struct bw_cs_valslot *e = slot;
	const struct bw_prefix *p = key;

	return e->hi == p->hi && e->lo == p->lo && e->family == p->family &&
	       e->plen == p->plen;
}

__u32 bw_cs_valmap_get(const struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	const struct bw_cs_valslot *e = bw_table_find(&m->t, p);

	return e ? e->count : 0;
}

long bw_cs_valmap_inc(struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	struct bw_cs_valslot *e;
	bool added;

	if (!m->t.size)
		bw_table_init(&m->t, sizeof(*e), val_hash, val_is);
	e = bw_table_put(&m->t, p, &added);
	if (!e)
		return -ENOMEM;
	if (added) {
		e->hi = p->hi;
		e->lo = p->lo;
		e->family = p->family;
		e->plen = p->plen;
	}
	return ++e->count;
}

__u32 bw_cs_valmap_dec(struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	struct bw_cs_valslot *e = bw_table_find(&m->t, p);

	if (!e)
		return 0;
	if (--e->count)
		return e->count;
	bw_table_del(&m->t, e);
	return 0;
}

void bw_cs_valmap_free(struct bw_cs_valmap *m)
{
	bw_table_free(&m->t);
}

/* ---- ends ---------------------------------------------------------------- */

static void heap_swap(struct bw_cs_end *h, size_t a, size_t b)
{
	struct bw_cs_end t = h[a];

	h[a] = h[b];
	h[b] = t;
}

static void heap_down(struct bw_cs_heap *s, size_t i)
{
	size_t l, m;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < s->n && s->t[l].until_ms < s->t[m].until_ms)
			m = l;
		if (l + 1 < s->n && s->t[l + 1].until_ms < s->t[m].until_ms)
			m = l + 1;
		if (m == i)
			return;
		heap_swap(s->t, i, m);
		i = m;
	}
}

int bw_cs_heap_push(struct bw_cs_heap *s, __s64 until_ms, __s64 id)
{
	size_t i = s->n, cap;
	struct bw_cs_end *h;

	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 64;
		h = realloc(s->t, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		s->t = h;
		s->cap = cap;
	}
	s->t[s->n++] = (struct bw_cs_end){ until_ms, id };
	for (; i && s->t[(i - 1) / 2].until_ms > s->t[i].until_ms;
	     i = (i - 1) / 2)
		heap_swap(s->t, i, (i - 1) / 2);
	return 0;
}

void bw_cs_heap_pop(struct bw_cs_heap *s)
{
	s->t[0] = s->t[--s->n];
	heap_down(s, 0);
}

void bw_cs_heap_heapify(struct bw_cs_heap *h)
{
	for (size_t i = h->n / 2; i-- > 0;)
		heap_down(h, i);
}

void bw_cs_heap_free(struct bw_cs_heap *h)
{
	free(h->t);
	memset(h, 0, sizeof(*h));
}

/* ---- strings ------------------------------------------------------------- */

struct bw_cs_strslot {
	__u32 tag; /* the table's */
	__u32 i;
	const char *s; /* t->s[i] */
};

static __u64 str_hash(const void *key)
{
	const char *s = key;
	__u64 h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return bw_mix64(h);
}

static bool str_is(const void *slot, const void *key)
{
	return !strcmp(((const struct bw_cs_strslot *)slot)->s, key);
}

long bw_cs_strtab_intern(struct bw_cs_strtab *t, const char *str)
{
	struct bw_cs_strslot *e;
	char **s, *copy = NULL;
	size_t cap;
	bool added;

	if (!t->h.size)
		bw_table_init(&t->h, sizeof(*e), str_hash, str_is);
	e = bw_table_put(&t->h, str, &added);
	if (!e)
		return -ENOMEM;
	if (!added)
		return e->i;
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : 16;
		s = realloc(t->s, cap * sizeof(*s));
		if (s) {
			t->s = s;
			t->cap = cap;
		}
	}
	if (t->n < t->cap)
		copy = strdup(str);
	if (!copy) {
		bw_table_del(&t->h, e);
		return -ENOMEM;
	}
	t->s[t->n] = copy;
	e->s = copy;
	e->i = (__u32)t->n;
	return (long)t->n++;
}

void bw_cs_strtab_free(struct bw_cs_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	bw_table_free(&t->h);
	memset(t, 0, sizeof(*t));
}
