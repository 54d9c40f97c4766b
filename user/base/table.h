/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One open-addressing hash table for every keyed set of user space (the
 * live set's entries, blocks and names; CrowdSec's ids, values and
 * strings): slots of a size the caller gives, linear probing, deletion by
 * backward shift (no tombstones: a table that churns stays as fast), and
 * doubled before it is more than 3/4 full. Nothing is allocated but in
 * growing.
 *
 * The caller gives the hash of a key and whether a slot holds a key; the
 * key may be anything the slot is found by (a prefix, a name and its
 * length). Every slot starts with a __u32 that is the table's, its tag (0:
 * free; else 31 bits of the hash), which the caller never writes (a slot
 * is filled field by field, never assigned whole): a probe compares a
 * slot only when the tags match, and growing or deleting hashes nothing
 * again. With bw_table_init_u64 the key is the __u64 at BW_TABLE_U64_KEY
 * (after the tag and 4 bytes of the caller's), mixed with bw_mix64
 * (bw_hash.h: the one 64-bit mixer).
 *
 * A slot pointer holds until the next put or delete (they move slots).
 */
#ifndef __BW_TABLE_H
#define __BW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bw_table {
	char *slot;  /* cap * size bytes, each starting with its tag */
	size_t size; /* of a slot */
	size_t cap;  /* 0 or a power of two, at most 2^31 */
	size_t n;    /* slots in use (read it, never write it) */
	__u64 (*hash)(const void *key);
	bool (*eq)(const void *slot, const void *key);
};

#define BW_TABLE_U64_KEY 8

/* An empty table of size-byte slots; nothing allocated yet. */
void bw_table_init(struct bw_table *t, size_t size,
		   __u64 (*hash)(const void *key),
		   bool (*eq)(const void *slot, const void *key));

/* The same, keyed by the __u64 at BW_TABLE_U64_KEY in the slot. */
void bw_table_init_u64(struct bw_table *t, size_t size);

/* Frees the table's memory; it is empty and can be used again. */
void bw_table_free(struct bw_table *t);

/* Empties the table, keeping its memory. */
void bw_table_clear(struct bw_table *t);

/* The slot holding key, or NULL. */
void *bw_table_find(const struct bw_table *t, const void *key);

/*
 * The slot holding key (*added false), or a new slot for it, all zero but
 * its tag (*added true: the caller writes the key into it, but with
 * bw_table_init_u64, where it is written). NULL without memory.
 */
void *bw_table_put(struct bw_table *t, const void *key, bool *added);

/*
 * Frees slot, moving back the slots after it in its run. Returns the
 * slot's index: a walk (bw_table_next) that goes on from there misses no
 * slot (one moved from the table's start to its end is seen again).
 */
size_t bw_table_del(struct bw_table *t, void *slot);

/*
 * The next slot in use at or after index *i (0 to start), *i moved past
 * it; NULL at the end: for (i = 0; (s = bw_table_next(t, &i));).
 */
void *bw_table_next(const struct bw_table *t, size_t *i);

/* Bytes the table holds. */
static inline size_t bw_table_bytes(const struct bw_table *t)
{
	return t->cap * t->size;
}

#endif /* __BW_TABLE_H */
