// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The live set's blocks (live_blocks.h), in a table (base/table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/live_blocks.h"

static __u64 idx_hash(const void *key)
{
	return bw_mix64(*(const __u32 *)key);
}

static bool blk_is(const void *slot, const void *key)
{
	return ((const struct bw_live_slot *)slot)->idx == *(const __u32 *)key;
}

void bw_live_blocks_init(struct bw_live_blocks *t)
{
	bw_table_init(&t->t, sizeof(struct bw_live_slot), idx_hash, blk_is);
	t->bytes = 0;
}

struct bw_live_blk *bw_live_blk_find(const struct bw_live_blocks *t, __u32 idx)
{
	struct bw_live_slot *s = bw_table_find(&t->t, &idx);

	return s ? s->b : NULL;
}

static void load_block(const void *mem, __u32 idx, struct bw_block *out)
{
	const struct bw_block *src = bw_block_at(mem, idx);
	int w;

	for (w = 0; w < BW_BLOCK_WORDS; w++)
		out->w[w] = __atomic_load_n(&src->w[w], __ATOMIC_RELAXED);
}

struct bw_live_blk *bw_live_blk_get(struct bw_live_blocks *t, __u32 idx,
				    __u8 probes, const void *mem)
{
	size_t was = bw_table_bytes(&t->t);
	struct bw_live_slot *s;
	struct bw_live_blk *b;
	bool added;

	s = bw_table_put(&t->t, &idx, &added);
	if (!s)
		return NULL;
	t->bytes += bw_table_bytes(&t->t) - was;
	if (!added)
		return s->b;
	b = calloc(1, sizeof(*b));
	if (!b) {
		bw_table_del(&t->t, s);
		return NULL;
	}
	b->idx = idx;
	b->probes = probes;
	b->keys = b->inl;
	b->cap = BW_LIVE_INLINE_KEYS;
	if (mem)
		load_block(mem, idx, &b->base);
	s->idx = idx;
	s->b = b;
	t->bytes += sizeof(*b);
	return b;
}

int bw_live_blk_push(struct bw_live_blocks *t, struct bw_live_blk *b,
		     __u64 hash)
{
	__u64 *k;
	__u32 cap;

	if (b->nkeys == b->cap) {
		cap = b->cap * 2;
		k = malloc(cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		memcpy(k, b->keys, b->nkeys * sizeof(*k));
		t->bytes += cap * sizeof(*k);
		if (b->keys != b->inl) {
			t->bytes -= b->cap * sizeof(*k);
			free(b->keys);
		}
		b->keys = k;
		b->cap = cap;
	}
	b->keys[b->nkeys++] = hash;
	return 0;
}

void bw_live_blk_pop(struct bw_live_blk *b, __u64 hash)
{
	__u32 i;

	for (i = 0; i < b->nkeys; i++)
		if (b->keys[i] == hash) {
			b->keys[i] = b->keys[--b->nkeys];
			return;
		}
}

static void blk_free(struct bw_live_blocks *t, struct bw_live_blk *b)
{
	if (b->keys != b->inl) {
		t->bytes -= b->cap * sizeof(*b->keys);
		free(b->keys);
	}
	t->bytes -= sizeof(*b);
	free(b);
}

void bw_live_blk_drop(struct bw_live_blocks *t, struct bw_live_blk *b)
{
	bw_table_del(&t->t, bw_table_find(&t->t, &b->idx));
	blk_free(t, b);
}

void bw_live_blk_clear(struct bw_live_blocks *t)
{
	struct bw_live_slot *s;
	size_t i = 0;

	while ((s = bw_table_next(&t->t, &i)))
		blk_free(t, s->b);
	t->bytes -= bw_table_bytes(&t->t);
	bw_table_free(&t->t);
}

void bw_live_blk_bits(const struct bw_live_blk *b, bool with_base,
		      struct bw_block *out)
{
	__u32 i;

	if (with_base)
		*out = b->base;
	else
		memset(out, 0, sizeof(*out));
	for (i = 0; i < b->nkeys; i++)
		bw_block_set(out, b->keys[i], b->probes);
}

void bw_live_blk_write(const struct bw_live_blk *b, void *mem)
{
	struct bw_block *dst = bw_block_at(mem, b->idx), v;
	int w;

	bw_live_blk_bits(b, true, &v);
	/*
	 * Each word is a subset of the one it replaces (plus keys not yet
	 * there) and holds every live key's bits: a reader that sees some
	 * words old and some new finds every live key.
	 */
	for (w = 0; w < BW_BLOCK_WORDS; w++)
		__atomic_store_n(&dst->w[w], v.w[w], __ATOMIC_RELAXED);
}

void bw_live_blk_or(const struct bw_live_blk *b, void *mem)
{
	struct bw_block *dst = bw_block_at(mem, b->idx), v;
	int w;

	bw_live_blk_bits(b, false, &v);
	for (w = 0; w < BW_BLOCK_WORDS; w++)
		if (v.w[w])
			__atomic_fetch_or(&dst->w[w], v.w[w], __ATOMIC_RELAXED);
}

void bw_live_blocks_or(const struct bw_live_blocks *t, void *mem)
{
	struct bw_live_slot *s;
	size_t i = 0;

	while ((s = bw_table_next(&t->t, &i)))
		bw_live_blk_or(s->b, mem);
}

void bw_live_blocks_snapshot(const struct bw_live_blocks *t,
			     struct bw_live_rec *out)
{
	struct bw_live_slot *s;
	size_t i = 0, n = 0;

	while ((s = bw_table_next(&t->t, &i))) {
		out[n].idx = s->idx;
		out[n].pad = 0;
		out[n].base = s->b->base;
		n++;
	}
}

static int rec_cmp(const void *a, const void *b)
{
	const struct bw_live_rec *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void store_block(void *mem, __u32 idx, const struct bw_block *v)
{
	struct bw_block *dst = bw_block_at(mem, idx);
	int w;

	for (w = 0; w < BW_BLOCK_WORDS; w++)
		__atomic_store_n(&dst->w[w], v->w[w], __ATOMIC_RELAXED);
}

void bw_live_blocks_rebase(struct bw_live_blocks *t, void *mem,
			   struct bw_live_rec *recs, size_t n, __u32 end)
{
	struct bw_live_rec key = { 0 }, *r;
	struct bw_live_slot *s;
	size_t i = 0;

	qsort(recs, n, sizeof(*recs), rec_cmp);
	while ((s = bw_table_next(&t->t, &i))) {
		key.idx = s->idx;
		r = n ? bsearch(&key, recs, n, sizeof(*recs), rec_cmp) : NULL;
		if (r)
			s->b->base = r->base;
		else
			load_block(mem, key.idx, &s->b->base);
		bw_live_blk_write(s->b, mem);
	}
	/* Blocks whose live keys all went since the snapshot: their base. */
	for (i = 0; i < n; i++)
		if (recs[i].idx >= BW_HDR_BLOCKS && recs[i].idx < end &&
		    !bw_live_blk_find(t, recs[i].idx))
			store_block(mem, recs[i].idx, &recs[i].base);
}
