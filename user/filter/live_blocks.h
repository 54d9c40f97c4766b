/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The live set's blocks (live.h): each block with live keys, its base and
 * its keys' hashes, in a table on the block index; and how a block is
 * written back into a filter in place.
 */
#ifndef __BW_LIVE_BLOCKS_H
#define __BW_LIVE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "base/table.h"
#include "bloomwall.h"

#define BW_LIVE_INLINE_KEYS 2

/* The blocks with live keys. */
struct bw_live_blocks {
	struct bw_table t; /* of struct bw_live_slot, on the block index */
	size_t bytes;	   /* held for the blocks and their keys */
};

/* A block in the table: a pointer, so that it stays while others go. */
struct bw_live_slot {
	__u32 tag; /* the table's */
	__u32 idx;
	struct bw_live_blk *b;
};

/* Sets up an empty t. */
void bw_live_blocks_init(struct bw_live_blocks *t);

/* A block's base, as handed from a rebuild (bw_live_snapshot). */
struct bw_live_rec {
	__u32 idx;
	__u32 pad;
	struct bw_block base;
};

struct bw_live_blk {
	__u32 idx;    /* block index in the filter */
	__u8 probes;  /* of its region: every key in it has as many */
	__u8 pending; /* in a delete's list of blocks to write */
	__u16 pad;
	__u32 nkeys, cap;
	__u64 *keys; /* hashes, inl while cap is BW_LIVE_INLINE_KEYS */
	__u64 inl[BW_LIVE_INLINE_KEYS];
	struct bw_block base;
};

/* The block idx of the set, or NULL. */
struct bw_live_blk *bw_live_blk_find(const struct bw_live_blocks *t, __u32 idx);

/*
 * The block idx, made when missing (its base read from mem, zero when mem
 * is NULL); NULL without memory.
 */
struct bw_live_blk *bw_live_blk_get(struct bw_live_blocks *t, __u32 idx,
				    __u8 probes, const void *mem);

/* Adds a key's hash to b: 0 or -ENOMEM. */
int bw_live_blk_push(struct bw_live_blocks *t, struct bw_live_blk *b,
		     __u64 hash);

/* Takes one of the key's hash out of b (if there). */
void bw_live_blk_pop(struct bw_live_blk *b, __u64 hash);

/* Drops b (no keys left) from the set. */
void bw_live_blk_drop(struct bw_live_blocks *t, struct bw_live_blk *b);

/* Drops every block and frees the table. */
void bw_live_blk_clear(struct bw_live_blocks *t);

/* b's base with all its keys' bits. */
void bw_live_blk_bits(const struct bw_live_blk *b, bool with_base,
		      struct bw_block *out);

/* Writes b as base | keys into mem, word by word (64-bit atomic stores). */
void bw_live_blk_write(const struct bw_live_blk *b, void *mem);

/* ORs b's keys into mem (64-bit atomic ORs). */
void bw_live_blk_or(const struct bw_live_blk *b, void *mem);

/* ORs every block's keys into mem. */
void bw_live_blocks_or(const struct bw_live_blocks *t, void *mem);

/* Every block's base: out[t->t.n]. */
void bw_live_blocks_snapshot(const struct bw_live_blocks *t,
			     struct bw_live_rec *out);

/*
 * Bases from recs (sorted here), else from mem; every block written as
 * base | keys, recs' blocks without keys as their base (those below end).
 */
void bw_live_blocks_rebase(struct bw_live_blocks *t, void *mem,
			   struct bw_live_rec *recs, size_t n, __u32 end);

#endif /* __BW_LIVE_BLOCKS_H */
