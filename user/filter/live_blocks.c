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

struct bw_live_blk *bw_live_blk_find(const struct bw_live *l, __u32 idx)
{
	size_t i;

	if (!l->blk_cap)
		return NULL;
	for (i = slot_of(idx, l->blk_cap); l->blk[i];
	     i = (i + 1) & (l->blk_cap - 1))
		if (l->blk[i]->idx == idx)
			return l->blk[i];
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
static int grow(struct bw_live *l)
{
	struct bw_live_blk **tab;
	size_t cap = l->blk_cap ? l->blk_cap * 2 : 64, i;

	if ((l->nblk + 1) * 2 <= l->blk_cap)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < l->blk_cap; i++)
		if (l->blk[i])
			put(tab, cap, l->blk[i]);
	free(l->blk);
	l->bytes += (cap - l->blk_cap) * sizeof(*tab);
	l->blk = tab;
	l->blk_cap = cap;
	return 0;
}

static void load_block(const void *mem, __u32 idx, struct bw_block *out)
{
	const struct bw_block *src = bw_block_at(mem, idx);
	int w;

	for (w = 0; w < BW_BLOCK_WORDS; w++)
		out->w[w] = __atomic_load_n(&src->w[w], __ATOMIC_RELAXED);
}

struct bw_live_blk *bw_live_blk_get(struct bw_live *l, __u32 idx, __u8 probes,
				    const void *mem)
{
	struct bw_live_blk *b = bw_live_blk_find(l, idx);

	if (b)
		return b;
	if (grow(l))
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
	put(l->blk, l->blk_cap, b);
	l->nblk++;
	l->bytes += sizeof(*b);
	return b;
}

int bw_live_blk_push(struct bw_live *l, struct bw_live_blk *b, __u64 hash)
{
	__u64 *k;
	__u32 cap;

	if (b->nkeys == b->cap) {
		cap = b->cap * 2;
		k = malloc(cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		memcpy(k, b->keys, b->nkeys * sizeof(*k));
		l->bytes += cap * sizeof(*k);
		if (b->keys != b->inl) {
			l->bytes -= b->cap * sizeof(*k);
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

static void blk_free(struct bw_live *l, struct bw_live_blk *b)
{
	if (b->keys != b->inl) {
		l->bytes -= b->cap * sizeof(*b->keys);
		free(b->keys);
	}
	l->bytes -= sizeof(*b);
	free(b);
}

void bw_live_blk_drop(struct bw_live *l, struct bw_live_blk *b)
{
	size_t mask = l->blk_cap - 1, i, j, home;

	for (i = slot_of(b->idx, l->blk_cap); l->blk[i] != b;
	     i = (i + 1) & mask)
		;
	/* Backward shift: what follows in the run moves up if it may. */
	for (j = (i + 1) & mask; l->blk[j]; j = (j + 1) & mask) {
		home = slot_of(l->blk[j]->idx, l->blk_cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			l->blk[i] = l->blk[j];
			i = j;
		}
	}
	l->blk[i] = NULL;
	l->nblk--;
	blk_free(l, b);
}

void bw_live_blk_clear(struct bw_live *l)
{
	size_t i;

	for (i = 0; i < l->blk_cap; i++)
		if (l->blk[i])
			blk_free(l, l->blk[i]);
	l->bytes -= l->blk_cap * sizeof(*l->blk);
	free(l->blk);
	l->blk = NULL;
	l->blk_cap = 0;
	l->nblk = 0;
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

/* ---- live.h: the set's blocks as a whole ------------------------------- */

void bw_live_reapply(const struct bw_live *l, void *mem)
{
	size_t i;

	for (i = 0; i < l->blk_cap; i++)
		if (l->blk[i])
			bw_live_blk_or(l->blk[i], mem);
}

void bw_live_snapshot(const struct bw_live *l, const void *mem,
		      struct bw_live_rec *out)
{
	const struct bw_block *src;
	size_t i, n = 0;
	int w;

	for (i = 0; i < l->blk_cap; i++) {
		if (!l->blk[i])
			continue;
		out[n].idx = l->blk[i]->idx;
		out[n].pad = 0;
		src = bw_block_at(mem, out[n].idx);
		for (w = 0; w < BW_BLOCK_WORDS; w++)
			out[n].base.w[w] =
				__atomic_load_n(&src->w[w], __ATOMIC_RELAXED);
		n++;
	}
}

static int rec_cmp(const void *a, const void *b)
{
	const struct bw_live_rec *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The blocks a key of the layout may be in: the address regions. */
static bool in_regions(const struct bw_live *l, __u32 idx)
{
	return idx >= BW_HDR_BLOCKS && idx < l->hdr.region_end[BW_REGIONS - 1];
}

int bw_live_rebase(struct bw_live *l, void *mem, struct bw_live_rec *recs,
		   size_t n)
{
	struct bw_live_rec key = { 0 }, *r;
	struct bw_block *dst;
	size_t i;
	int w;

	qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0; i < l->blk_cap; i++) {
		if (!l->blk[i])
			continue;
		key.idx = l->blk[i]->idx;
		r = n ? bsearch(&key, recs, n, sizeof(*recs), rec_cmp) : NULL;
		if (r)
			l->blk[i]->base = r->base;
		else
			memcpy(&l->blk[i]->base, bw_block_at(mem, key.idx),
			       sizeof(struct bw_block));
		bw_live_blk_write(l->blk[i], mem);
	}
	/* Blocks whose live keys all went since the snapshot: their base. */
	for (i = 0; i < n; i++) {
		if (!in_regions(l, recs[i].idx) ||
		    bw_live_blk_find(l, recs[i].idx))
			continue;
		dst = bw_block_at(mem, recs[i].idx);
		for (w = 0; w < BW_BLOCK_WORDS; w++)
			__atomic_store_n(&dst->w[w], recs[i].base.w[w],
					 __ATOMIC_RELAXED);
	}
	l->stale = false;
	return 0;
}
