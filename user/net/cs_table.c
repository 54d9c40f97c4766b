// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The decision set's hash tables (cs_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/cs_table.h"

#define MIN_CAP 64

static __u64 mix(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Whether slot j lies cyclically in (i, k]: k's home is i's probe path. */
static bool between(size_t i, size_t k, size_t j)
{
	return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* ---- ids ----------------------------------------------------------------- */

static size_t id_home(const struct bw_cs_idmap *m, __s64 id)
{
	return mix((__u64)id) & (m->cap - 1);
}

static size_t id_find(const struct bw_cs_idmap *m, __s64 id)
{
	size_t i = id_home(m, id);

	while (m->t[i].id && m->t[i].id != id)
		i = (i + 1) & (m->cap - 1);
	return i;
}

long bw_cs_idmap_get(const struct bw_cs_idmap *m, __s64 id)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = id_find(m, id);
	return m->t[i].id ? (long)m->t[i].val : -1;
}

static int id_grow(struct bw_cs_idmap *m)
{
	struct bw_cs_idmap g = { .cap = m->cap ? m->cap * 2 : MIN_CAP };
	size_t i;

	g.t = calloc(g.cap, sizeof(*g.t));
	if (!g.t)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->t[i].id)
			g.t[id_find(&g, m->t[i].id)] = m->t[i];
	g.n = m->n;
	free(m->t);
	*m = g;
	return 0;
}

int bw_cs_idmap_put(struct bw_cs_idmap *m, __s64 id, __u32 val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && id_grow(m))
		return -ENOMEM;
	i = id_find(m, id);
	if (!m->t[i].id)
		m->n++;
	m->t[i].id = id;
	m->t[i].val = val;
	return 0;
}

void bw_cs_idmap_del(struct bw_cs_idmap *m, __s64 id)
{
	size_t i, j, k;

	if (!m->cap)
		return;
	i = id_find(m, id);
	if (!m->t[i].id)
		return;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->t[j].id;
	     j = (j + 1) & (m->cap - 1)) {
		k = id_home(m, m->t[j].id);
		if (between(i, k, j))
			continue;
		m->t[i] = m->t[j];
		i = j;
	}
	m->t[i].id = 0;
}

void bw_cs_idmap_free(struct bw_cs_idmap *m)
{
	free(m->t);
	memset(m, 0, sizeof(*m));
}

/* ---- values -------------------------------------------------------------- */

static size_t val_hash(const struct bw_cs_valmap *m, __u64 hi, __u64 lo,
		       __u8 family, __u8 plen)
{
	return mix(mix(hi) ^ lo ^ ((__u64)family << 8 | plen)) & (m->cap - 1);
}

static bool val_is(const struct bw_cs_valslot *e, const struct bw_prefix *p)
{
	return e->hi == p->hi && e->lo == p->lo && e->family == p->family &&
	       e->plen == p->plen;
}

static size_t val_find(const struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	size_t i = val_hash(m, p->hi, p->lo, p->family, p->plen);

	while (m->t[i].count && !val_is(&m->t[i], p))
		i = (i + 1) & (m->cap - 1);
	return i;
}

__u32 bw_cs_valmap_get(const struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	return m->cap ? m->t[val_find(m, p)].count : 0;
}

static int val_grow(struct bw_cs_valmap *m)
{
	struct bw_cs_valmap g = { .cap = m->cap ? m->cap * 2 : MIN_CAP };
	struct bw_prefix p;
	size_t i;

	g.t = calloc(g.cap, sizeof(*g.t));
	if (!g.t)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->t[i].count)
			continue;
		p = (struct bw_prefix){ .hi = m->t[i].hi,
					.lo = m->t[i].lo,
					.family = m->t[i].family,
					.plen = m->t[i].plen };
		g.t[val_find(&g, &p)] = m->t[i];
	}
	g.n = m->n;
	free(m->t);
	*m = g;
	return 0;
}

long bw_cs_valmap_inc(struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	struct bw_cs_valslot *e;

	if ((m->n + 1) * 2 > m->cap && val_grow(m))
		return -ENOMEM;
	e = &m->t[val_find(m, p)];
	if (!e->count) {
		*e = (struct bw_cs_valslot){ .hi = p->hi,
					     .lo = p->lo,
					     .family = p->family,
					     .plen = p->plen };
		m->n++;
	}
	return ++e->count;
}

__u32 bw_cs_valmap_dec(struct bw_cs_valmap *m, const struct bw_prefix *p)
{
	size_t i, j, k;
	struct bw_cs_valslot *e;

	if (!m->cap)
		return 0;
	i = val_find(m, p);
	e = &m->t[i];
	if (!e->count || --e->count)
		return e->count;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->t[j].count;
	     j = (j + 1) & (m->cap - 1)) {
		e = &m->t[j];
		k = val_hash(m, e->hi, e->lo, e->family, e->plen);
		if (between(i, k, j))
			continue;
		m->t[i] = m->t[j];
		i = j;
	}
	m->t[i].count = 0;
	return 0;
}

void bw_cs_valmap_free(struct bw_cs_valmap *m)
{
	free(m->t);
	memset(m, 0, sizeof(*m));
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

static __u64 str_hash(const char *s)
{
	__u64 h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h);
}

static size_t str_slot(const struct bw_cs_strtab *t, const char *s)
{
	size_t i = str_hash(s) & (t->hcap - 1);

	while (t->h[i] && strcmp(t->s[t->h[i] - 1], s))
		i = (i + 1) & (t->hcap - 1);
	return i;
}

static int str_grow(struct bw_cs_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : MIN_CAP, i;
	char **s = realloc(t->s, cap * sizeof(*s));
	__u32 *h;

	if (!s)
		return -ENOMEM;
	t->s = s;
	t->cap = cap;
	h = calloc(cap * 2, sizeof(*h));
	if (!h)
		return -ENOMEM;
	free(t->h);
	t->h = h;
	t->hcap = cap * 2;
	for (i = 0; i < t->n; i++)
		t->h[str_slot(t, t->s[i])] = (__u32)i + 1;
	return 0;
}

long bw_cs_strtab_intern(struct bw_cs_strtab *t, const char *str)
{
	size_t i;
	char *copy;

	if (t->hcap) {
		i = str_slot(t, str);
		if (t->h[i])
			return t->h[i] - 1;
	}
	if (t->n + 1 > t->cap && str_grow(t))
		return -ENOMEM;
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	t->s[t->n] = copy;
	t->h[str_slot(t, str)] = (__u32)++t->n;
	return (long)t->n - 1;
}

void bw_cs_strtab_free(struct bw_cs_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->h);
	memset(t, 0, sizeof(*t));
}
