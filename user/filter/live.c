// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live entries in place (live.h): the entries, in a table on the prefix
 * (base/table.h); their keys, recomputed from the plan when needed
 * (bw_add_plan, bloom.h); the blocks in live_blocks.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/live.h"
#include "filter/live_blocks.h"
#include "lists/cidr.h"

struct bw_live_ent {
	__u32 tag; /* the table's */
	__u32 refs;
	__u64 hi, lo;
	__u64 expires; /* Unix seconds, 0: never */
	__u32 nkeys;   /* in the layout; 0: none (no target length) */
	__u8 family, plen;
};

/* ---- entries ------------------------------------------------------------ */

static __u64 ent_hash(const void *key)
{
	const struct bw_prefix *p = key;

	return bw_mix64(p->hi ^
			bw_mix64(p->lo ^ ((__u64)p->family << 8 | p->plen)));
}

static bool ent_is(const void *slot, const void *key)
{
	const struct bw_live_ent *e = slot;
	const struct bw_prefix *p = key;

	return e->hi == p->hi && e->lo == p->lo && e->family == p->family &&
	       e->plen == p->plen;
}

static void ent_prefix(const struct bw_live_ent *e, struct bw_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->hi = e->hi;
	p->lo = e->lo;
	p->family = e->family;
	p->plen = e->plen;
}

void bw_live_init(struct bw_live *l)
{
	memset(l, 0, sizeof(*l));
	bw_table_init(&l->ent, sizeof(struct bw_live_ent), ent_hash, ent_is);
	bw_live_names_init(l);
	bw_live_blocks_init(&l->blocks);
}

void bw_live_free(struct bw_live *l)
{
	bw_live_blk_clear(&l->blocks);
	bw_live_names_free(l);
	bw_table_free(&l->ent);
	bw_live_init(l);
}

/* Frees e's slot; the index a walk goes on from (bw_table_del). */
static size_t ent_drop(struct bw_live *l, struct bw_live_ent *e)
{
	l->nexpiring -= !!e->expires;
	return bw_table_del(&l->ent, e);
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
	struct bw_live_ent *e;
	struct bw_prefix p;
	size_t i = 0;
	__u32 done;
	int err;

	bw_live_blk_clear(&l->blocks);
	l->nkeys = 0;
	memcpy(&l->hdr, mem, sizeof(l->hdr));
	bw_dns_consts_init(&l->hdr, bw_filter_dns(mem), &l->dc);
	l->have_hdr = true;
	while ((e = bw_table_next(&l->ent, &i))) {
		ent_prefix(e, &p);
		err = keys_in(l, mem, &p, &done);
		if (err == -ENOMEM)
			return err;
		e->nkeys = err ? 0 : done;
	}
	return bw_live_names_layout(l, mem);
}

int bw_live_add(struct bw_live *l, void *mem, const struct bw_prefix *in,
		__u64 expires)
{
	struct bw_live_ent *e;
	struct bw_prefix p;
	__u32 done = 0;
	bool added;
	int err = normalize(in, &p);

	if (err)
		return err;
	e = bw_table_put(&l->ent, &p, &added);
	if (!e)
		return -ENOMEM;
	if (!added) {
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
	if (l->have_hdr) {
		err = keys_in(l, mem, &p, &done);
		if (err) {
			keys_out(l, NULL, &p, done);
			bw_table_del(&l->ent, e);
			return err;
		}
	}
	e->hi = p.hi;
	e->lo = p.lo;
	e->family = p.family;
	e->plen = p.plen;
	e->refs = 1;
	e->expires = expires;
	e->nkeys = done;
	l->nexpiring += !!expires;
	if (mem && done)
		keys_set(l, mem, &p);
	return 0;
}

/* Takes e out (of mem too); the index a walk goes on from. */
static size_t take_out(struct bw_live *l, void *mem, struct bw_live_ent *e)
{
	struct bw_prefix p;

	ent_prefix(e, &p);
	if (l->have_hdr && e->nkeys)
		keys_out(l, mem, &p, e->nkeys);
	return ent_drop(l, e);
}

int bw_live_del(struct bw_live *l, void *mem, const struct bw_prefix *in)
{
	struct bw_live_ent *e;
	struct bw_prefix p;

	if (normalize(in, &p))
		return -ENOENT;
	e = bw_table_find(&l->ent, &p);
	if (!e)
		return -ENOENT;
	if (!--e->refs)
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
	e = bw_table_find(&l->ent, &p);
	if (refs)
		*refs = e ? e->refs : 0;
	return e != NULL;
}

size_t bw_live_expire(struct bw_live *l, void *mem, __u64 now)
{
	size_t n = bw_live_names_expire(l, mem, now), i = 0;
	struct bw_live_ent *e;

	while (l->nexpiring && (e = bw_table_next(&l->ent, &i))) {
		if (e->expires && e->expires <= now) {
			i = take_out(l, mem, e);
			n++;
		}
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
	const struct bw_live_ent *e;
	size_t i = 0;

	s->entries = bw_live_count(l);
	s->names = l->names.n;
	s->keys = l->nkeys;
	s->blocks = l->blocks.t.n;
	s->bytes = bw_table_bytes(&l->ent) + bw_table_bytes(&l->names) +
		   l->name_bytes + l->blocks.bytes;
	s->next_expiry = bw_live_names_next_expiry(l);
	s->unplaced = l->names_unplaced;
	while ((e = bw_table_next(&l->ent, &i))) {
		s->unplaced += !e->nkeys;
		if (e->expires &&
		    (!s->next_expiry || e->expires < s->next_expiry))
			s->next_expiry = e->expires;
	}
}

int bw_live_each(const struct bw_live *l,
		 int (*fn)(void *ctx, const struct bw_prefix *p, __u32 refs,
			   __u64 expires),
		 void *ctx)
{
	const struct bw_live_ent *e;
	struct bw_prefix p;
	size_t i = 0;
	int err;

	while ((e = bw_table_next(&l->ent, &i))) {
		ent_prefix(e, &p);
		err = fn(ctx, &p, e->refs, e->expires);
		if (err)
			return err;
	}
	return 0;
}
