// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live names (live_names.h): a table on the name, each entry's one key
 * placed in the set's layout (its name region, from the DNS block as
 * bw_dns_consts_init reads it for the data path), in the set's blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/live_blocks.h"
#include "filter/live_names.h"

struct bw_live_name {
	char *name;    /* NULL: a free slot */
	__u64 expires; /* Unix seconds, 0: never */
	__u64 hash;    /* its key in the layout */
	__u32 idx;     /* its block in the layout, 0: none */
	__u32 refs;
	__u8 len, subtree, probes;
};

void bw_live_names_free(struct bw_live_names *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->ent[i].name);
	free(t->ent);
	memset(t, 0, sizeof(*t));
}

/* ---- the table ---------------------------------------------------------- */

static size_t slot(const char *name, size_t len, bool subtree, size_t cap)
{
	__u64 h = 0xcbf29ce484222325ULL ^ subtree;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (__u8)name[i]) * 0x100000001b3ULL;
	return (size_t)(bw_mix64(h) & (cap - 1));
}

static bool is(const struct bw_live_name *e, const char *name, size_t len,
	       bool subtree)
{
	return e->name && e->len == len && e->subtree == subtree &&
	       !memcmp(e->name, name, len);
}

static struct bw_live_name *find(const struct bw_live_names *t,
				 const char *name, size_t len, bool subtree)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = slot(name, len, subtree, t->cap); t->ent[i].name;
	     i = (i + 1) & (t->cap - 1))
		if (is(&t->ent[i], name, len, subtree))
			return &t->ent[i];
	return NULL;
}

static struct bw_live_name *put(struct bw_live_name *tab, size_t cap,
				const struct bw_live_name *e)
{
	size_t i = slot(e->name, e->len, e->subtree, cap);

	while (tab[i].name)
		i = (i + 1) & (cap - 1);
	tab[i] = *e;
	return &tab[i];
}

static int grow(struct bw_live_names *t)
{
	size_t cap = t->cap ? t->cap * 2 : 16, i;
	struct bw_live_name *tab;

	if ((t->n + 1) * 4 <= t->cap * 3)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->ent[i].name)
			put(tab, cap, &t->ent[i]);
	free(t->ent);
	t->bytes += (cap - t->cap) * sizeof(*tab);
	t->ent = tab;
	t->cap = cap;
	return 0;
}

/* Frees e's slot, shifting back the entries after it (no tombstones). */
static void drop(struct bw_live_names *t, struct bw_live_name *e)
{
	size_t mask = t->cap - 1, i = (size_t)(e - t->ent), j, home;

	t->nexpiring -= !!e->expires;
	t->unplaced -= !e->idx;
	t->bytes -= e->len;
	free(e->name);
	for (j = (i + 1) & mask; t->ent[j].name; j = (j + 1) & mask) {
		home = slot(t->ent[j].name, t->ent[j].len, t->ent[j].subtree,
			    t->cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->ent[i] = t->ent[j];
			i = j;
		}
	}
	memset(&t->ent[i], 0, sizeof(t->ent[i]));
	t->n--;
}

/* ---- the key ------------------------------------------------------------ */

/* e's key and block in the set's layout: false when it has no region. */
static bool place(const struct bw_live *l, struct bw_live_name *e)
{
	int n = e->subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT;

	e->idx = 0;
	if (!l->have_hdr || !l->dc.nblocks[n])
		return false;
	e->hash = bw_name_entry_key(e->name, e->len, e->subtree, l->hdr.seed);
	e->idx = l->dc.start[n] + bw_block_index(e->hash, l->dc.nblocks[n]);
	e->probes = l->dc.probes[n];
	return true;
}

static int key_in(struct bw_live *l, const void *mem,
		  const struct bw_live_name *e)
{
	struct bw_live_blk *b;

	b = bw_live_blk_get(&l->blocks, e->idx, e->probes, mem);
	if (!b)
		return -ENOMEM;
	if (bw_live_blk_push(&l->blocks, b, e->hash)) {
		if (!b->nkeys)
			bw_live_blk_drop(&l->blocks, b);
		return -ENOMEM;
	}
	l->nkeys++;
	return 0;
}

/* The key out of its block, the block written back to mem in place. */
static void key_out(struct bw_live *l, void *mem, const struct bw_live_name *e)
{
	struct bw_live_blk *b = bw_live_blk_find(&l->blocks, e->idx);

	if (!b)
		return;
	bw_live_blk_pop(b, e->hash);
	l->nkeys--;
	if (mem && !l->stale)
		bw_live_blk_write(b, mem);
	if (!b->nkeys)
		bw_live_blk_drop(&l->blocks, b);
}

static void key_set(const struct bw_live_name *e, void *mem)
{
	struct bw_block v, *dst = bw_block_at(mem, e->idx);
	int w;

	memset(&v, 0, sizeof(v));
	bw_block_set(&v, e->hash, e->probes);
	for (w = 0; w < BW_BLOCK_WORDS; w++)
		__atomic_fetch_or(&dst->w[w], v.w[w], __ATOMIC_RELAXED);
}

/* ---- the set ------------------------------------------------------------ */

int bw_live_add_name(struct bw_live *l, void *mem, const char *name, size_t len,
		     bool subtree, __u64 expires)
{
	struct bw_live_names *t = &l->names;
	struct bw_live_name e = { .len = (__u8)len, .subtree = subtree }, *have;

	if (!len || len > 255)
		return -EINVAL;
	have = find(t, name, len, subtree);
	if (have) {
		if (have->refs == ~0U)
			return -E2BIG;
		have->refs++;
		if (have->expires && !expires)
			t->nexpiring--;
		if (have->expires && expires && expires < have->expires)
			expires = have->expires;
		have->expires = have->expires ? expires : 0;
		return 0;
	}
	e.name = malloc(len);
	if (!e.name || grow(t)) {
		free(e.name);
		return -ENOMEM;
	}
	memcpy(e.name, name, len);
	if (l->have_hdr && !place(l, &e)) {
		free(e.name);
		return -ENOENT;
	}
	if (e.idx && key_in(l, mem, &e)) {
		free(e.name);
		return -ENOMEM;
	}
	e.refs = 1;
	e.expires = expires;
	put(t->ent, t->cap, &e);
	t->n++;
	t->bytes += len;
	t->nexpiring += !!expires;
	t->unplaced += !e.idx;
	if (mem && e.idx)
		key_set(&e, mem);
	return 0;
}

int bw_live_del_name(struct bw_live *l, void *mem, const char *name, size_t len,
		     bool subtree)
{
	struct bw_live_name *e = find(&l->names, name, len, subtree);

	if (!e)
		return -ENOENT;
	if (--e->refs)
		return 0;
	if (e->idx)
		key_out(l, mem, e);
	drop(&l->names, e);
	return 0;
}

bool bw_live_has_name(const struct bw_live *l, const char *name, size_t len,
		      bool subtree, __u64 *expires)
{
	const struct bw_live_name *e = find(&l->names, name, len, subtree);

	if (expires)
		*expires = e ? e->expires : 0;
	return e != NULL;
}

int bw_live_name_expiry(struct bw_live *l, const char *name, size_t len,
			bool subtree, __u64 expires)
{
	struct bw_live_name *e = find(&l->names, name, len, subtree);

	if (!e)
		return -ENOENT;
	l->names.nexpiring += !!expires - !!e->expires;
	e->expires = expires;
	return 0;
}

int bw_live_names_layout(struct bw_live *l, const void *mem)
{
	struct bw_live_names *t = &l->names;
	size_t i;

	t->unplaced = 0;
	for (i = 0; i < t->cap; i++) {
		if (!t->ent[i].name)
			continue;
		if (!place(l, &t->ent[i])) {
			t->unplaced++;
			continue;
		}
		if (key_in(l, mem, &t->ent[i]))
			return -ENOMEM;
	}
	return 0;
}

size_t bw_live_names_expire(struct bw_live *l, void *mem, __u64 now)
{
	struct bw_live_names *t = &l->names;
	struct bw_live_name *e;
	size_t n = 0, i = 0;

	/* A drop shifts later entries up: look at slot i again after one. */
	while (t->nexpiring && i < t->cap) {
		e = &t->ent[i];
		if (!e->name || !e->expires || e->expires > now) {
			i++;
			continue;
		}
		if (e->idx)
			key_out(l, mem, e);
		drop(t, e);
		n++;
	}
	return n;
}

__u64 bw_live_names_next_expiry(const struct bw_live *l)
{
	const struct bw_live_names *t = &l->names;
	__u64 next = 0;
	size_t i;

	for (i = 0; t->nexpiring && i < t->cap; i++)
		if (t->ent[i].name && t->ent[i].expires &&
		    (!next || t->ent[i].expires < next))
			next = t->ent[i].expires;
	return next;
}

int bw_live_each_name(const struct bw_live *l,
		      int (*fn)(void *ctx, const char *name, size_t len,
				bool subtree, __u32 refs, __u64 expires),
		      void *ctx)
{
	const struct bw_live_name *e;
	size_t i;
	int err;

	for (i = 0; i < l->names.cap; i++) {
		e = &l->names.ent[i];
		if (!e->name)
			continue;
		err = fn(ctx, e->name, e->len, e->subtree, e->refs, e->expires);
		if (err)
			return err;
	}
	return 0;
}
