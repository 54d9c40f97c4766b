// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live entries in place (live.h): the entries, in a table on the prefix;
 * their keys, recomputed from the plan when needed (bloom_add.h); the
 * blocks in live_blocks.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_add.h"
#include "filter/live.h"
#include "filter/live_blocks.h"
#include "lists/cidr.h"

struct bw_live_ent {
	__u64 hi, lo;
	__u64 expires; /* Unix seconds, 0: never */
	__u32 refs;    /* 0: a free slot */
	__u32 nkeys;   /* in the layout; 0: none (no target length) */
	__u8 family, plen;
};

void bw_live_init(struct bw_live *l)
{
	memset(l, 0, sizeof(*l));
}

void bw_live_free(struct bw_live *l)
{
	bw_live_blk_clear(&l->blocks);
	bw_live_names_free(&l->names);
	free(l->ent);
	memset(l, 0, sizeof(*l));
}

/* ---- entries ------------------------------------------------------------ */

static size_t ent_slot(const struct bw_prefix *p, size_t cap)
{
	__u64 h = bw_mix64(p->hi ^
			   bw_mix64(p->lo ^ ((__u64)p->family << 8 | p->plen)));

	return (size_t)(h & (cap - 1));
}

static bool ent_is(const struct bw_live_ent *e, const struct bw_prefix *p)
{
	return e->refs && e->hi == p->hi && e->lo == p->lo &&
	       e->family == p->family && e->plen == p->plen;
}

static void ent_prefix(const struct bw_live_ent *e, struct bw_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->hi = e->hi;
	p->lo = e->lo;
	p->family = e->family;
	p->plen = e->plen;
}

static struct bw_live_ent *ent_find(const struct bw_live *l,
				    const struct bw_prefix *p)
{
	size_t i;

	if (!l->ent_cap)
		return NULL;
	for (i = ent_slot(p, l->ent_cap); l->ent[i].refs;
	     i = (i + 1) & (l->ent_cap - 1))
		if (ent_is(&l->ent[i], p))
			return &l->ent[i];
	return NULL;
}

static struct bw_live_ent *ent_put(struct bw_live_ent *tab, size_t cap,
				   const struct bw_prefix *p)
{
	size_t i = ent_slot(p, cap);

	while (tab[i].refs)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int ent_grow(struct bw_live *l)
{
	size_t cap = l->ent_cap ? l->ent_cap * 2 : 64, i;
	struct bw_live_ent *tab;
	struct bw_prefix p;

	if ((l->nent + 1) * 4 <= l->ent_cap * 3)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < l->ent_cap; i++)
		if (l->ent[i].refs) {
			ent_prefix(&l->ent[i], &p);
			*ent_put(tab, cap, &p) = l->ent[i];
		}
	free(l->ent);
	l->bytes += (cap - l->ent_cap) * sizeof(*tab);
	l->ent = tab;
	l->ent_cap = cap;
	return 0;
}

static void ent_drop(struct bw_live *l, struct bw_live_ent *e)
{
	size_t mask = l->ent_cap - 1, i = (size_t)(e - l->ent), j, home;
	struct bw_prefix p;

	if (e->expires)
		l->nexpiring--;
	for (j = (i + 1) & mask; l->ent[j].refs; j = (j + 1) & mask) {
		ent_prefix(&l->ent[j], &p);
		home = ent_slot(&p, l->ent_cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			l->ent[i] = l->ent[j];
			i = j;
		}
	}
	memset(&l->ent[i], 0, sizeof(l->ent[i]));
	l->nent--;
}

/* ---- keys --------------------------------------------------------------- */

/* An entry's keys in the layout, one at a time. */
struct key_it {
	struct bw_prefix p;
	struct bw_add_plan ap;
	__u32 j, start, n;
};

static int key_begin(const struct bw_live *l, const struct bw_prefix *p,
		     struct key_it *it)
{
	int err = bw_add_plan(&l->hdr, p, &it->ap);

	if (err)
		return err;
	it->p = *p;
	it->j = 0;
	it->start = bw_region_start(&l->hdr, it->ap.region);
	it->n = l->hdr.region_end[it->ap.region] - it->start;
	return 0;
}

static bool key_next(const struct bw_live *l, struct key_it *it, __u64 *hash,
		     __u32 *idx)
{
	struct bw_prefix k;

	if (it->j >= it->ap.nkeys)
		return false;
	k = bw_cidr_key(&it->p, it->ap.tlen, it->j++);
	*hash = bw_key_hash(&l->hdr, &k);
	*idx = it->start + bw_block_index(*hash, it->n);
	return true;
}

/* The first upto keys of p out of the set's blocks, written to mem. */
static void keys_out(struct bw_live *l, void *mem, const struct bw_prefix *p,
		     __u32 upto)
{
	struct bw_live_blk *b, **pend = NULL;
	struct key_it it;
	__u32 idx, n = 0, i;
	__u64 hash;

	if (!upto || key_begin(l, p, &it))
		return;
	it.ap.nkeys = upto < it.ap.nkeys ? upto : it.ap.nkeys;
	/* Without memory for the list, each block is written as it goes. */
	pend = calloc(it.ap.nkeys, sizeof(*pend));
	while (key_next(l, &it, &hash, &idx)) {
		b = bw_live_blk_find(&l->blocks, idx);
		if (!b)
			continue;
		bw_live_blk_pop(b, hash);
		l->nkeys--;
		if (b->pending)
			continue;
		if (pend) {
			b->pending = 1;
			pend[n++] = b;
			continue;
		}
		if (mem && !l->stale)
			bw_live_blk_write(b, mem);
		if (!b->nkeys)
			bw_live_blk_drop(&l->blocks, b);
	}
	for (i = 0; i < n; i++) {
		b = pend[i];
		b->pending = 0;
		if (mem && !l->stale)
			bw_live_blk_write(b, mem);
		if (!b->nkeys)
			bw_live_blk_drop(&l->blocks, b);
	}
	free(pend);
}

/*
 * p's keys into the set's blocks (bases read from mem as blocks are
 * made); how many went in in *done, all of them or -ENOMEM.
 */
static int keys_in(struct bw_live *l, const void *mem,
		   const struct bw_prefix *p, __u32 *done)
{
	struct bw_live_blk *b;
	struct key_it it;
	__u32 idx;
	__u64 hash;
	int err;

	*done = 0;
	err = key_begin(l, p, &it);
	if (err)
		return err;
	while (key_next(l, &it, &hash, &idx)) {
		b = bw_live_blk_get(&l->blocks, idx,
				    l->hdr.probes[it.ap.region], mem);
		if (!b)
			return -ENOMEM;
		if (bw_live_blk_push(&l->blocks, b, hash)) {
			if (!b->nkeys)
				bw_live_blk_drop(&l->blocks, b);
			return -ENOMEM;
		}
		l->nkeys++;
		(*done)++;
	}
	return 0;
}

/* Sets p's keys' bits in mem (atomic OR). */
static void keys_set(const struct bw_live *l, void *mem,
		     const struct bw_prefix *p)
{
	struct bw_block *dst, v;
	struct key_it it;
	__u32 idx, w;
	__u64 hash;

	if (key_begin(l, p, &it))
		return;
	while (key_next(l, &it, &hash, &idx)) {
		memset(&v, 0, sizeof(v));
		bw_block_set(&v, hash, l->hdr.probes[it.ap.region]);
		dst = bw_block_at(mem, idx);
		for (w = 0; w < BW_BLOCK_WORDS; w++)
			__atomic_fetch_or(&dst->w[w], v.w[w], __ATOMIC_RELAXED);
	}
}

/* ---- the set ------------------------------------------------------------ */

static int normalize(const struct bw_prefix *in, struct bw_prefix *p)
{
	if (in->family > BW_V6 || in->plen > (in->family == BW_V4 ? 32 : 128))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->family = in->family;
	p->plen = in->plen;
	if (in->family == BW_V4) {
		p->lo = bw_mask_v4((__u32)in->lo, in->plen);
		return 0;
	}
	p->hi = bw_mask64(in->hi, in->plen);
	p->lo = in->plen > 64 ? bw_mask64(in->lo, in->plen - 64) : 0;
	return 0;
}

int bw_live_layout(struct bw_live *l, const void *mem)
{
	struct bw_prefix p;
	__u32 done;
	size_t i;
	int err;

	bw_live_blk_clear(&l->blocks);
	l->nkeys = 0;
	memcpy(&l->hdr, mem, sizeof(l->hdr));
	bw_dns_consts_init(&l->hdr, bw_filter_dns(mem), &l->dc);
	l->have_hdr = true;
	for (i = 0; i < l->ent_cap; i++) {
		if (!l->ent[i].refs)
			continue;
		ent_prefix(&l->ent[i], &p);
		err = keys_in(l, mem, &p, &done);
		if (err == -ENOMEM)
			return err;
		l->ent[i].nkeys = err ? 0 : done;
	}
	return bw_live_names_layout(l, mem);
}

int bw_live_add(struct bw_live *l, void *mem, const struct bw_prefix *in,
		__u64 expires)
{
	struct bw_live_ent *e;
	struct bw_prefix p;
	__u32 done = 0;
	int err = normalize(in, &p);

	if (err)
		return err;
	e = ent_find(l, &p);
	if (e) {
		if (e->refs == ~0U)
			return -E2BIG;
		e->refs++;
		if (!e->expires != !expires)
			l->nexpiring -= !expires;
		e->expires = !e->expires || !expires ? 0
			     : e->expires > expires  ? e->expires
						     : expires;
		return 0;
	}
	if (ent_grow(l))
		return -ENOMEM;
	if (l->have_hdr) {
		err = keys_in(l, mem, &p, &done);
		if (err) {
			keys_out(l, NULL, &p, done);
			return err;
		}
	}
	e = ent_put(l->ent, l->ent_cap, &p);
	e->hi = p.hi;
	e->lo = p.lo;
	e->family = p.family;
	e->plen = p.plen;
	e->refs = 1;
	e->expires = expires;
	e->nkeys = done;
	l->nent++;
	l->nexpiring += !!expires;
	if (mem && done)
		keys_set(l, mem, &p);
	return 0;
}

static void take_out(struct bw_live *l, void *mem, struct bw_live_ent *e)
{
	struct bw_prefix p;

	ent_prefix(e, &p);
	if (l->have_hdr && e->nkeys)
		keys_out(l, mem, &p, e->nkeys);
	ent_drop(l, e);
}

int bw_live_del(struct bw_live *l, void *mem, const struct bw_prefix *in)
{
	struct bw_live_ent *e;
	struct bw_prefix p;

	if (normalize(in, &p))
		return -ENOENT;
	e = ent_find(l, &p);
	if (!e)
		return -ENOENT;
	if (--e->refs)
		return 0;
	e->refs = 1; /* still findable while its keys go */
	take_out(l, mem, e);
	return 0;
}

bool bw_live_has(const struct bw_live *l, const struct bw_prefix *in,
		 __u32 *refs)
{
	const struct bw_live_ent *e;
	struct bw_prefix p;

	if (normalize(in, &p))
		return false;
	e = ent_find(l, &p);
	if (refs)
		*refs = e ? e->refs : 0;
	return e != NULL;
}

size_t bw_live_expire(struct bw_live *l, void *mem, __u64 now)
{
	size_t n = bw_live_names_expire(l, mem, now), i = 0;

	if (!l->nexpiring)
		return n;
	/* A drop shifts later entries up: look at slot i again after one. */
	while (i < l->ent_cap) {
		if (l->ent[i].refs && l->ent[i].expires &&
		    l->ent[i].expires <= now) {
			take_out(l, mem, &l->ent[i]);
			n++;
			continue;
		}
		i++;
	}
	return n;
}

void bw_live_reapply(const struct bw_live *l, void *mem)
{
	bw_live_blocks_or(&l->blocks, mem);
}

void bw_live_snapshot(const struct bw_live *l, struct bw_live_rec *out)
{
	bw_live_blocks_snapshot(&l->blocks, out);
}

int bw_live_rebase(struct bw_live *l, void *mem, struct bw_live_rec *recs,
		   size_t n)
{
	bw_live_blocks_rebase(&l->blocks, mem, recs, n,
			      bw_regions_end(&l->hdr, bw_filter_dns(mem)));
	l->stale = false;
	return 0;
}

void bw_live_stats(const struct bw_live *l, struct bw_live_stats *s)
{
	size_t i;

	s->entries = bw_live_count(l);
	s->names = l->names.n;
	s->keys = l->nkeys;
	s->blocks = l->blocks.n;
	s->bytes = l->bytes + l->names.bytes + l->blocks.bytes;
	s->next_expiry = bw_live_names_next_expiry(l);
	s->unplaced = l->names.unplaced;
	for (i = 0; i < l->ent_cap; i++) {
		if (!l->ent[i].refs)
			continue;
		s->unplaced += !l->ent[i].nkeys;
		if (l->ent[i].expires &&
		    (!s->next_expiry || l->ent[i].expires < s->next_expiry))
			s->next_expiry = l->ent[i].expires;
	}
}

int bw_live_each(const struct bw_live *l,
		 int (*fn)(void *ctx, const struct bw_prefix *p, __u32 refs,
			   __u64 expires),
		 void *ctx)
{
	struct bw_prefix p;
	size_t i;
	int err;

	for (i = 0; i < l->ent_cap; i++) {
		if (!l->ent[i].refs)
			continue;
		ent_prefix(&l->ent[i], &p);
		err = fn(ctx, &p, l->ent[i].refs, l->ent[i].expires);
		if (err)
			return err;
	}
	return 0;
}
