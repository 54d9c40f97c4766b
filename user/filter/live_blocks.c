// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The live set's blocks (live_blocks.h): open addressing on the block
 * index, linear probing, deletion by backward shift (no tombstones).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/live_blocks.h"

static size_t slot_of(__u32 idx, size_t cap)
{
	return (size_t)(bw_mix64(idx) & (cap - 1));
}

struct bw_live_blk *bw_live_blk_find(const struct bw_live_blocks *t, __u32 idx)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = slot_of(idx, t->cap); t->blk[i]; i = (i + 1) & (t->cap - 1))
		if (t->blk[i]->idx == idx)
			return t->blk[i];
	return NULL;
}

static void put(struct bw_live_blk **tab, size_t cap, struct bw_live_blk *b)
{
	size_t i = slot_of(b->idx, cap);

	while (tab[i])
		i = (i + 1) & (cap - 1);
	tab[i] = b;
}

/* Room for one more block at a load of at most a half. */
static int grow(struct bw_live_blocks *t)
{
	struct bw_live_blk **tab;
	size_t cap = t->cap ? t->cap * 2 : 64, i;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->blk[i])
			put(tab, cap, t->blk[i]);
	free(t->blk);
	t->bytes += (cap - t->cap) * sizeof(*tab);
	t->blk = tab;
	t->cap = cap;
	return 0;
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
	struct bw_live_blk *b = bw_live_blk_find(t, idx);

	if (b)
		return b;
	if (grow(t))
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->idx = idx;
	b->probes = probes;
	b->keys = b->inl;
	b->cap = BW_LIVE_INLINE_KEYS;
	if (mem)
		load_block(mem, idx, &b->base);
	put(t->blk, t->cap, b);
	t->n++;
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
	size_t mask = t->cap - 1, i, j, home;

	for (i = slot_of(b->idx, t->cap); t->blk[i] != b; i = (i + 1) & mask)
		;
	/* Backward shift: what follows in the run moves up if it may. */
	for (j = (i + 1) & mask; t->blk[j]; j = (j + 1) & mask) {
		home = slot_of(t->blk[j]->idx, t->cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->blk[i] = t->blk[j];
			i = j;
		}
	}
	t->blk[i] = NULL;
	t->n--;
	blk_free(t, b);
}

void bw_live_blk_clear(struct bw_live_blocks *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->blk[i])
			blk_free(t, t->blk[i]);
	t->bytes -= t->cap * sizeof(*t->blk);
	free(t->blk);
	t->blk = NULL;
	t->cap = 0;
	t->n = 0;
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
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->blk[i])
			bw_live_blk_or(t->blk[i], mem);
}

void bw_live_blocks_snapshot(const struct bw_live_blocks *t, const void *mem,
			     struct bw_live_rec *out)
{
	size_t i, n = 0;

	for (i = 0; i < t->cap; i++) {
		if (!t->blk[i])
			continue;
		out[n].idx = t->blk[i]->idx;
		out[n].pad = 0;
		load_block(mem, out[n].idx, &out[n].base);
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
	size_t i;

	qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0; i < t->cap; i++) {
		if (!t->blk[i])
			continue;
		key.idx = t->blk[i]->idx;
		r = n ? bsearch(&key, recs, n, sizeof(*recs), rec_cmp) : NULL;
		if (r)
			t->blk[i]->base = r->base;
		else
			load_block(mem, key.idx, &t->blk[i]->base);
		bw_live_blk_write(t->blk[i], mem);
	}
	/* Blocks whose live keys all went since the snapshot: their base. */
	for (i = 0; i < n; i++)
		if (recs[i].idx >= BW_HDR_BLOCKS && recs[i].idx < end &&
		    !bw_live_blk_find(t, recs[i].idx))
			store_block(mem, recs[i].idx, &recs[i].base);
}
