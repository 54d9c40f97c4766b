/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Live entries: prefixes kept in a running filter on top of what it was
 * built from, added and taken out in place, with no rebuild and no swap.
 * Plain memory, no bpf(): mem is the filter's blocks, the running map's
 * mapping or a buffer.
 *
 * An entry expands to keys as bw_add_plan() says (its shortest target
 * length at or below it). Each key's 64-bit hash is kept, grouped by the
 * block it lands in, and with each such block the BASE: a copy of the
 * block as it was the moment the first live key landed in it, i.e. the
 * block as built, without any live key. An add ORs its keys' bits into
 * mem with atomic 64-bit ORs. A delete recomputes each block of its keys
 * as base | the bits of every live key still in it, and writes the words
 * with atomic 64-bit stores: each new word is a subset of the old one and
 * holds every live key's bits, so a reader that sees some words old and
 * some new finds every live key (no false negative, ever, also
 * transiently), and the deleted key stops matching once the block is
 * written.
 *
 * The one rule: nothing else writes those blocks in place while a live
 * set owns them. A filter replaced under it (a swap) is taken over with
 * bw_live_reapply() and bw_live_rebase().
 *
 * int functions return 0 or -errno.
 */
#ifndef __BW_LIVE_H
#define __BW_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/live_blocks.h"
#include "filter/live_names.h"
#include "filter/live_set.h"
#include "lists/list.h"

/* Entries held: prefixes and names. */
static inline size_t bw_live_count(const struct bw_live *l)
{
	return l->ent.n + l->names.n;
}

/* What a live set holds (names among the entries). */
struct bw_live_stats {
	size_t entries, keys, blocks, bytes;
	size_t names;	   /* of the entries */
	__u64 next_expiry; /* Unix seconds, 0: none */
	/* Entries with no keys: no layout yet, or none for them in it. */
	size_t unplaced;
};

void bw_live_init(struct bw_live *l);
void bw_live_free(struct bw_live *l);

/*
 * Binds the set to mem's layout (its header), recomputing every entry's
 * keys; the bases are taken from mem as the keys land (copies of the
 * blocks before any live key is set in them): mem must then hold no live
 * key. Does not write mem. An entry the layout has no target length for
 * stays in the set, with no keys.
 */
int bw_live_layout(struct bw_live *l, const void *mem);

/*
 * Keeps p (its host bits cleared) until bw_live_del: a second add of the
 * same prefix counts (two deletes take it out); expires: Unix seconds it
 * ends (0: never; a later or a never of a second add wins). mem: the
 * filter to set its keys in (NULL: only kept, e.g. before a layout).
 * -ENOENT (no target length for it in the layout), -E2BIG (more than
 * BW_ADD_MAX_KEYS keys), -ENOMEM; nothing changed on error.
 */
int bw_live_add(struct bw_live *l, void *mem, const struct bw_prefix *p,
		__u64 expires);

/*
 * One add of p less; the last one takes it out of mem in place (unless
 * stale or mem is NULL). -ENOENT when p is not live.
 */
int bw_live_del(struct bw_live *l, void *mem, const struct bw_prefix *p);

/* Whether p is live (its adds count in *refs when not NULL). */
bool bw_live_has(const struct bw_live *l, const struct bw_prefix *p,
		 __u32 *refs);

/* Takes out every entry whose expiry is at or before now; how many. */
size_t bw_live_expire(struct bw_live *l, void *mem, __u64 now);

/* ORs every live key into mem (a filter of the set's layout). */
void bw_live_reapply(const struct bw_live *l, void *mem);

/* Blocks with live keys: how many bw_live_snapshot() writes. */
static inline size_t bw_live_nblocks(const struct bw_live *l)
{
	return l->blocks.t.n;
}

/*
 * The bases of the blocks with live keys (each block as it was before a
 * live key landed in it: on a new filter just laid out, the blocks as
 * built): out[bw_live_nblocks].
 */
void bw_live_snapshot(const struct bw_live *l, struct bw_live_rec *out);

/*
 * Takes the bases from a snapshot (recs, n; any order) of the filter that
 * now runs in mem: a block the snapshot lacks has its base read from mem
 * (no live key was set there); then writes every block with live keys as
 * base | keys, and the snapshot's blocks that have none left as their
 * base, with 64-bit atomic stores. Clears stale. recs may be modified
 * (sorted).
 */
int bw_live_rebase(struct bw_live *l, void *mem, struct bw_live_rec *recs,
		   size_t n);

void bw_live_stats(const struct bw_live *l, struct bw_live_stats *s);

/* Calls fn for each entry (stops at non-zero, returned). */
int bw_live_each(const struct bw_live *l,
		 int (*fn)(void *ctx, const struct bw_prefix *p, __u32 refs,
			   __u64 expires),
		 void *ctx);

#endif /* __BW_LIVE_H */
