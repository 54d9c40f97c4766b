// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The owners of added prefixes (owners.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/owners.h"

int bw_owner_check(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;
	char c;

	if (!n || n > BW_OWNER_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return -EINVAL;
	}
	return 0;
}

void bw_owners_init(struct bw_owners *o)
{
	memset(o, 0, sizeof(*o));
	bw_entries_init(&o->keys);
}

void bw_owned_free(struct bw_owned *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void bw_owners_free(struct bw_owners *o)
{
	size_t i;

	for (i = 0; i < o->keys.n; i++)
		bw_owned_free(&o->of[i]);
	free(o->of);
	bw_entries_free(&o->keys);
	bw_owners_init(o);
}

static long find(const struct bw_owners *o, struct bw_entry_key k)
{
	return o->keys.n ? bw_entries_find(&o->keys, k) : -1;
}

const struct bw_owned *bw_owners_get(const struct bw_owners *o,
				     struct bw_entry_key k)
{
	long i = find(o, k);

	return i >= 0 && o->of[i].n ? &o->of[i] : NULL;
}

/* k's slot, made when new: NULL without memory. */
static struct bw_owned *slot(struct bw_owners *o, struct bw_entry_key k)
{
	struct bw_owned *of;
	long i = find(o, k);
	size_t cap;

	if (i >= 0)
		return &o->of[i];
	if (o->keys.n == o->cap) {
		cap = o->cap ? 2 * o->cap : 16;
		of = realloc(o->of, cap * sizeof(*of));
		if (!of)
			return NULL;
		o->of = of;
		o->cap = cap;
	}
	if (!o->keys.indexed && bw_entries_index(&o->keys))
		return NULL;
	if (bw_entries_push(&o->keys, k, 0))
		return NULL;
	of = &o->of[o->keys.n - 1];
	memset(of, 0, sizeof(*of));
	return of;
}

/* name's claim in s, made when new (its end 0): NULL without memory. */
static struct bw_claim *claim_of(struct bw_owned *s, const char *name)
{
	struct bw_claim *v;
	__u32 i, cap;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 2;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	memcpy(v->name, name, strnlen(name, BW_OWNER_MAX));
	return v;
}

static int set_claim(struct bw_owned *s, const char *name, __u64 expires)
{
	struct bw_claim *c = claim_of(s, name ?: "");

	if (!c)
		return -ENOMEM;
	c->expires = expires;
	return 0;
}

int bw_owners_claim(struct bw_owners *o, struct bw_entry_key k,
		    const char *name, __u64 expires)
{
	struct bw_owned *s = slot(o, k);

	return s ? set_claim(s, name, expires) : -ENOMEM;
}

int bw_owners_put(struct bw_owners *o, struct bw_entry_key k,
		  const struct bw_owned *set)
{
	struct bw_owned *s;
	__u32 i;

	if (!set || !set->n) {
		bw_owners_clear(o, k);
		return 0;
	}
	s = slot(o, k);
	if (!s)
		return -ENOMEM;
	s->n = 0;
	for (i = 0; i < set->n; i++)
		if (set_claim(s, set->v[i].name, set->v[i].expires))
			return -ENOMEM;
	return 0;
}

void bw_owners_clear(struct bw_owners *o, struct bw_entry_key k)
{
	long i = find(o, k);

	if (i >= 0)
		o->of[i].n = 0;
}

int bw_owners_copy(struct bw_owners *dst, const struct bw_owners *src)
{
	size_t i;

	if (dst == src)
		return 0;
	bw_owners_free(dst);
	for (i = 0; i < src->keys.n; i++)
		if (bw_owners_put(dst, bw_entries_key(&src->keys, i),
				  &src->of[i]))
			return -ENOMEM;
	return 0;
}

int bw_owners_prune(struct bw_owners *o, struct bw_entries *added)
{
	size_t i;

	if (!bw_owners_count(o))
		return 0;
	if (!added->indexed && bw_entries_index(added))
		return -ENOMEM;
	for (i = 0; i < o->keys.n; i++)
		if (bw_entries_find(added, bw_entries_key(&o->keys, i)) < 0)
			o->of[i].n = 0;
	return 0;
}

size_t bw_owners_count(const struct bw_owners *o)
{
	size_t i, n = 0;

	for (i = 0; i < o->keys.n; i++)
		n += o->of[i].n;
	return n;
}

__u64 bw_owned_end(const struct bw_owned *s)
{
	__u64 end = 0;
	__u32 i;

	for (i = 0; i < s->n; i++) {
		if (!s->v[i].expires)
			return 0;
		if (s->v[i].expires > end)
			end = s->v[i].expires;
	}
	return end;
}

static bool ended(__u64 expires, __u64 now)
{
	return expires && expires <= now;
}

/*
 * The claims e holds into out: none when it is not added (its claims are
 * of an entry taken out), the anonymous owner's alone when it has none
 * recorded. Claims past their end stay while the records hold the entry:
 * their owner's unban (fail2ban's, at its bantime, maybe after another
 * jail's ban) still finds its claim.
 */
static int current(const struct bw_owned_entry *e, struct bw_owned *out)
{
	const struct bw_claim *c;
	__u32 i;

	out->n = 0;
	if (!e->held)
		return 0;
	if (!e->cur || !e->cur->n)
		return set_claim(out, "", e->expires);
	for (i = 0; i < e->cur->n; i++) {
		c = &e->cur->v[i];
		if (set_claim(out, c->name, c->expires))
			return -ENOMEM;
	}
	return 0;
}

/* Whether s holds the anonymous owner's claim alone (or none). */
static bool anonymous_alone(const struct bw_owned *s)
{
	return !s->n || (s->n == 1 && !s->v[0].name[0]);
}

int bw_owned_add(const struct bw_owned_entry *e, const char *name,
		 __u64 expires, struct bw_owned *out, __u64 *end)
{
	int err = current(e, out);

	if (err)
		return err;
	if (!name)
		name = "";
	if (set_claim(out, name, expires))
		return -ENOMEM;
	if (anonymous_alone(out)) {
		/* As without owners: this add's end replaces the old. */
		out->n = 0;
		*end = expires;
		return 0;
	}
	*end = bw_owned_end(out);
	return 0;
}

int bw_owned_remove(const struct bw_owned_entry *e, const char *name, __u64 now,
		    struct bw_owned *out, __u64 *end)
{
	bool had = false, wanted = false;
	__u32 i;
	int err = current(e, out);

	if (err)
		return err;
	for (i = 0; i < out->n; i++) {
		if (strcmp(out->v[i].name, name))
			continue;
		had = true;
		out->v[i] = out->v[--out->n];
		break;
	}
	if (!had)
		return BW_OWNED_NOT;
	/* The others' claims past their end want it no more. */
	for (i = 0; i < out->n; i++)
		wanted = wanted || !ended(out->v[i].expires, now);
	if (!wanted)
		return BW_OWNED_GONE;
	*end = bw_owned_end(out);
	if (anonymous_alone(out))
		out->n = 0;
	return BW_OWNED_KEPT;
}

bool bw_owners_same(const struct bw_owners *a, const struct bw_owners *b)
{
	const struct bw_owned *x, *y;
	size_t i;
	__u32 j, k;

	if (bw_owners_count(a) != bw_owners_count(b))
		return false;
	for (i = 0; i < a->keys.n; i++) {
		x = &a->of[i];
		y = x->n ? bw_owners_get(b, bw_entries_key(&a->keys, i)) : NULL;
		if (x->n && (!y || y->n != x->n))
			return false;
		for (j = 0; j < x->n; j++) {
			for (k = 0; k < y->n; k++)
				if (!strcmp(x->v[j].name, y->v[k].name))
					break;
			if (k == y->n || x->v[j].expires != y->v[k].expires)
				return false;
		}
	}
	return true;
}
