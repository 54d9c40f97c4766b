// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live names (live_names.h): a table on the name (base/table.h), each
 * entry's one key placed in the set's layout (its name region, from the
 * DNS block as bw_dns_consts_init reads it for the data path), in the
 * set's blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/live_blocks.h"
#include "filter/live_names.h"

struct bw_live_name {
	__u32 tag; /* the table's */
	__u32 refs;
	char *name;
	__u64 expires; /* Unix seconds, 0: never */
	__u64 hash;    /* its key in the layout */
	__u32 idx;     /* its block in the layout, 0: none */
	__u8 len, subtree, probes;
};

/* What the table finds a name by. */
struct name_key {
	const char *name;
	size_t len;
	bool subtree;
};

static __u64 name_hash(const void *key)
{
	const struct name_key *k = key;
	__u64 h = 0xcbf29ce484222325ULL ^ k->subtree; /* FNV-1a */
	size_t i;

	for (i = 0; i < k->len; i++)
		h = (h ^ (__u8)k->name[i]) * 0x100000001b3ULL;
	return bw_mix64(h);
}

static bool name_is(const void *slot, const void *key)
{
	const struct bw_live_name *e = slot;
	const struct name_key *k = key;

	return e->len == k->len && e->subtree == k->subtree &&
	       !memcmp(e->name, k->name, k->len);
}

void bw_live_names_init(struct bw_live *l)
{
	bw_table_init(&l->names, sizeof(struct bw_live_name), name_hash,
		      name_is);
	l->name_bytes = 0;
	l->names_expiring = 0;
	l->names_unplaced = 0;
}

void bw_live_names_free(struct bw_live *l)
{
	struct bw_live_name *e;
	size_t i = 0;

	while ((e = bw_table_next(&l->names, &i)))
		free(e->name);
	bw_table_free(&l->names);
	bw_live_names_init(l);
}

static struct bw_live_name *find(const struct bw_live *l, const char *name,
				 size_t len, bool subtree)
{
	struct name_key k = { name, len, subtree };

	return bw_table_find(&l->names, &k);
}

/* Frees e's slot; the index a walk goes on from (bw_table_del). */
static size_t drop(struct bw_live *l, struct bw_live_name *e)
{
	l->names_expiring -= !!e->expires;
	l->names_unplaced -= !e->idx;
	l->name_bytes -= e->len;
	free(e->name);
	return bw_table_del(&l->names, e);
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
	struct name_key k = { name, len, subtree };
	struct bw_live_name *e;
	bool added;
	int err = 0;

	if (!len || len > 255)
		return -EINVAL;
	e = bw_table_put(&l->names, &k, &added);
	if (!e)
		return -ENOMEM;
	if (!added) {
		if (e->refs == ~0U)
			return -E2BIG;
		e->refs++;
		if (e->expires && !expires)
			l->names_expiring--;
		if (e->expires && expires && expires < e->expires)
			expires = e->expires;
		e->expires = e->expires ? expires : 0;
		return 0;
	}
	e->name = malloc(len);
	e->len = (__u8)len;
	e->subtree = subtree;
	if (e->name)
		memcpy(e->name, name, len);
	if (!e->name)
		err = -ENOMEM;
	else if (l->have_hdr && !place(l, e))
		err = -ENOENT;
	else if (e->idx && key_in(l, mem, e))
		err = -ENOMEM;
	if (err) {
		free(e->name);
		bw_table_del(&l->names, e);
		return err;
	}
	e->refs = 1;
	e->expires = expires;
	l->name_bytes += len;
	l->names_expiring += !!expires;
	l->names_unplaced += !e->idx;
	if (mem && e->idx)
		key_set(e, mem);
	return 0;
}

int bw_live_del_name(struct bw_live *l, void *mem, const char *name, size_t len,
		     bool subtree)
{
	struct bw_live_name *e = find(l, name, len, subtree);

	if (!e)
		return -ENOENT;
	if (--e->refs)
		return 0;
	if (e->idx)
		key_out(l, mem, e);
	drop(l, e);
	return 0;
}

bool bw_live_has_name(const struct bw_live *l, const char *name, size_t len,
		      bool subtree, __u64 *expires)
{
	const struct bw_live_name *e = find(l, name, len, subtree);

	if (expires)
		*expires = e ? e->expires : 0;
	return e != NULL;
}

int bw_live_name_expiry(struct bw_live *l, const char *name, size_t len,
			bool subtree, __u64 expires)
{
	struct bw_live_name *e = find(l, name, len, subtree);

	if (!e)
		return -ENOENT;
	l->names_expiring += !!expires - !!e->expires;
	e->expires = expires;
	return 0;
}

int bw_live_names_layout(struct bw_live *l, const void *mem)
{
	struct bw_live_name *e;
	size_t i = 0;

	l->names_unplaced = 0;
	while ((e = bw_table_next(&l->names, &i))) {
		if (!place(l, e)) {
			l->names_unplaced++;
			continue;
		}
		if (key_in(l, mem, e))
			return -ENOMEM;
	}
	return 0;
}

size_t bw_live_names_expire(struct bw_live *l, void *mem, __u64 now)
{
	struct bw_live_name *e;
	size_t n = 0, i = 0;

	while (l->names_expiring && (e = bw_table_next(&l->names, &i))) {
		if (!e->expires || e->expires > now)
			continue;
		if (e->idx)
			key_out(l, mem, e);
		i = drop(l, e);
		n++;
	}
	return n;
}

__u64 bw_live_names_next_expiry(const struct bw_live *l)
{
	const struct bw_live_name *e;
	__u64 next = 0;
	size_t i = 0;

	while (l->names_expiring && (e = bw_table_next(&l->names, &i)))
		if (e->expires && (!next || e->expires < next))
			next = e->expires;
	return next;
}

int bw_live_each_name(const struct bw_live *l,
		      int (*fn)(void *ctx, const char *name, size_t len,
				bool subtree, __u32 refs, __u64 expires),
		      void *ctx)
{
	const struct bw_live_name *e;
	size_t i = 0;
	int err;

	while ((e = bw_table_next(&l->names, &i))) {
		err = fn(ctx, e->name, e->len, e->subtree, e->refs, e->expires);
		if (err)
			return err;
	}
	return 0;
}
