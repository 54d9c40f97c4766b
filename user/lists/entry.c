// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Entries added at run time, prefixes and names, in a set (entry.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "bw_hash.h"
#include "lists/entry.h"
#include "lists/list_parse.h"

/* An index slot: the table's tag, then the entry it stands for. */
struct ix_slot {
	__u32 tag;
	__u32 pad;
	__u64 i;
};

/* What the index finds an entry by: a key, and the set it indexes. */
struct ix_key {
	const struct bw_entries *s;
	const struct bw_entry_key *k;
};

static __u64 key_hash(const struct bw_entry_key *k)
{
	__u64 h = 0xcbf29ce484222325ULL ^ k->flags; /* FNV-1a */
	size_t i;

	if (k->kind == BW_ENTRY_PREFIX)
		return bw_mix64(bw_mix64(k->p.hi ^ ((__u64)k->p.family << 8 |
						    k->p.plen)) ^
				k->p.lo);
	for (i = 0; i < k->len; i++)
		h = (h ^ (__u8)k->name[i]) * 0x100000001b3ULL;
	return bw_mix64(h);
}

static __u64 ix_hash(const void *key)
{
	return key_hash(((const struct ix_key *)key)->k);
}

static bool ix_eq(const void *slot, const void *key)
{
	const struct ix_key *x = key;

	return bw_entries_is(x->s, ((const struct ix_slot *)slot)->i, x->k);
}

struct bw_entry_key bw_entries_key(const struct bw_entries *s, size_t i)
{
	const struct bw_entry *e = &s->v[i];

	if (e->kind == BW_ENTRY_PREFIX)
		return bw_key_prefix(&e->p);
	return bw_key_name(bw_entry_name(s, e), e->d.len, e->d.flags);
}

bool bw_entries_is(const struct bw_entries *s, size_t i,
		   const struct bw_entry_key *k)
{
	const struct bw_entry *e = &s->v[i];

	if (e->kind != k->kind)
		return false;
	if (e->kind == BW_ENTRY_PREFIX)
		return bw_prefix_same(&e->p, &k->p);
	return e->d.len == k->len && e->d.flags == k->flags &&
	       !memcmp(bw_entry_name(s, e), k->name, k->len);
}

void bw_entries_init(struct bw_entries *s)
{
	memset(s, 0, sizeof(*s));
	bw_table_init(&s->ix, sizeof(struct ix_slot), ix_hash, ix_eq);
}

void bw_entries_free(struct bw_entries *s)
{
	free(s->v);
	free(s->names);
	bw_table_free(&s->ix);
	bw_entries_init(s);
}

void bw_entries_unindex(struct bw_entries *s)
{
	bw_table_free(&s->ix);
	s->indexed = false;
}

/* Entry i into the index unless an earlier one is the same: 0, -ENOMEM. */
static int index_one(struct bw_entries *s, size_t i)
{
	struct bw_entry_key k = bw_entries_key(s, i);
	struct ix_key x = { s, &k };
	struct ix_slot *slot;
	bool added;

	slot = bw_table_put(&s->ix, &x, &added);
	if (!slot)
		return -ENOMEM;
	if (added)
		slot->i = i;
	return 0;
}

int bw_entries_index(struct bw_entries *s)
{
	size_t i;

	if (s->indexed)
		return 0;
	bw_table_init(&s->ix, sizeof(struct ix_slot), ix_hash, ix_eq);
	for (i = 0; i < s->n; i++) {
		if (index_one(s, i)) {
			bw_entries_unindex(s);
			return -ENOMEM;
		}
	}
	s->indexed = true;
	return 0;
}

/* Room for one more entry and len more bytes of names. */
static int grow(struct bw_entries *s, size_t len)
{
	size_t cap;
	void *p;

	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 16;
		p = realloc(s->v, cap * sizeof(*s->v));
		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	if (s->names_len + len <= s->names_cap)
		return 0;
	if (s->names_len + len > UINT32_MAX)
		return -ENOMEM;
	cap = s->names_cap ? 2 * s->names_cap : 1024;
	while (cap < s->names_len + len)
		cap *= 2;
	p = realloc(s->names, cap);
	if (!p)
		return -ENOMEM;
	s->names = p;
	s->names_cap = cap;
	return 0;
}

int bw_entries_push(struct bw_entries *s, struct bw_entry_key k, __u64 expires)
{
	bool name = k.kind == BW_ENTRY_NAME;
	struct bw_entry *e;

	if (grow(s, name ? k.len : 0))
		return -ENOMEM;
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->kind = k.kind;
	e->expires = expires;
	if (name) {
		e->d.off = (__u32)s->names_len;
		e->d.len = k.len;
		e->d.flags = k.flags & BW_DOM_SUBTREE;
		memcpy(s->names + s->names_len, k.name, k.len);
		s->names_len += k.len;
	} else {
		e->p = k.p;
	}
	s->n++;
	if (s->indexed && index_one(s, s->n - 1))
		bw_entries_unindex(s);
	return 0;
}

long bw_entries_find(const struct bw_entries *s, struct bw_entry_key k)
{
	struct ix_key x = { s, &k };
	const struct ix_slot *slot;
	size_t i;

	if (s->indexed) {
		slot = bw_table_find(&s->ix, &x);
		return slot ? (long)slot->i : -1;
	}
	for (i = 0; i < s->n; i++)
		if (bw_entries_is(s, i, &k))
			return (long)i;
	return -1;
}

size_t bw_entries_filter(struct bw_entries *s, const bool *drop)
{
	size_t i, j = 0;

	for (i = 0; i < s->n; i++)
		if (!drop[i])
			s->v[j++] = s->v[i];
	i = s->n - j;
	s->n = j;
	if (i)
		bw_entries_unindex(s);
	return i;
}

size_t bw_entries_count(const struct bw_entries *s, int kinds)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += !!(s->v[i].kind & kinds);
	return n;
}

void bw_entries_drop(struct bw_entries *s, size_t i)
{
	if (i >= s->n)
		return;
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(s->v[0]));
	s->n--;
	bw_entries_unindex(s);
}

int bw_entries_group(struct bw_entries *s)
{
	struct bw_entry *v;
	size_t i, j = 0;
	int kind;

	for (i = 0; i + 1 < s->n; i++)
		if (s->v[i].kind == BW_ENTRY_NAME &&
		    s->v[i + 1].kind == BW_ENTRY_PREFIX)
			break;
	if (i + 1 >= s->n)
		return 0;
	v = malloc(s->cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (kind = BW_ENTRY_PREFIX; kind <= BW_ENTRY_NAME; kind++)
		for (i = 0; i < s->n; i++)
			if (s->v[i].kind == kind)
				v[j++] = s->v[i];
	free(s->v);
	s->v = v;
	bw_entries_unindex(s);
	return 0;
}

const char *bw_entries_str(const struct bw_entries *s, size_t i, char *buf,
			   size_t len)
{
	const struct bw_entry *e = &s->v[i];

	if (e->kind == BW_ENTRY_PREFIX)
		return bw_prefix_str(&e->p, buf, len);
	snprintf(buf, len, "%s%.*s", e->d.flags & BW_DOM_SUBTREE ? "*." : "",
		 (int)e->d.len, bw_entry_name(s, e));
	return buf;
}
