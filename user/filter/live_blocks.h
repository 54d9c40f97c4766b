/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The live set's blocks (live.h): each block with live keys, its base and
 * its keys' hashes, in a table on the block index; and how a block is
 * written back into a filter in place.
 */
#ifndef __BW_LIVE_BLOCKS_H
#define __BW_LIVE_BLOCKS_H

#include "filter/live.h"

#define BW_LIVE_INLINE_KEYS 2

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
struct bw_live_blk *bw_live_blk_find(const struct bw_live *l, __u32 idx);

/*
 * The block idx, made when missing (its base read from mem, zero when mem
 * is NULL); NULL without memory.
 */
struct bw_live_blk *bw_live_blk_get(struct bw_live *l, __u32 idx, __u8 probes,
				    const void *mem);

/* Adds a key's hash to b: 0 or -ENOMEM. */
int bw_live_blk_push(struct bw_live *l, struct bw_live_blk *b, __u64 hash);

/* Takes one of the key's hash out of b (if there). */
void bw_live_blk_pop(struct bw_live_blk *b, __u64 hash);

/* Drops b (no keys left) from the set. */
void bw_live_blk_drop(struct bw_live *l, struct bw_live_blk *b);

/* Drops every block. */
void bw_live_blk_clear(struct bw_live *l);

/* b's base with all its keys' bits. */
void bw_live_blk_bits(const struct bw_live_blk *b, bool with_base,
		      struct bw_block *out);

/* Writes b as base | keys into mem, word by word (64-bit atomic stores). */
void bw_live_blk_write(const struct bw_live_blk *b, void *mem);

/* ORs b's keys into mem (64-bit atomic ORs). */
void bw_live_blk_or(const struct bw_live_blk *b, void *mem);

#endif /* __BW_LIVE_BLOCKS_H */
