// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The open-addressing table (table.h). A slot's home is its hash's low
 * bits; its tag holds them, so home = tag & mask.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "bw_hash.h"

#define MIN_CAP 16
#define MAX_CAP (1UL << 31)
#define TAG_FULL 0x80000000U

void bw_table_init(struct bw_table *t, size_t size,
		   __u64 (*hash)(const void *key),
		   bool (*eq)(const void *slot, const void *key))
{
	*t = (struct bw_table){ .size = size, .hash = hash, .eq = eq };
}

void bw_table_init_u64(struct bw_table *t, size_t size)
{
	bw_table_init(t, size, NULL, NULL);
}

void bw_table_free(struct bw_table *t)
{
	free(t->slot);
	bw_table_init(t, t->size, t->hash, t->eq);
}

void bw_table_clear(struct bw_table *t)
{
	if (t->cap)
		memset(t->slot, 0, t->cap * t->size);
	t->n = 0;
}

static inline char *slot_at(const struct bw_table *t, size_t i)
{
	return t->slot + i * t->size;
}

static inline __u32 *tag_at(const struct bw_table *t, size_t i)
{
	return (__u32 *)slot_at(t, i);
}

static inline __u32 tag_of(const struct bw_table *t, const void *key)
{
	__u64 k, h;

	if (t->hash) {
		h = t->hash(key);
	} else {
		memcpy(&k, key, sizeof(k));
		h = bw_mix64(k);
	}
	return TAG_FULL | (__u32)h;
}

static inline bool holds(const struct bw_table *t, size_t i, const void *key)
{
	return t->eq ? t->eq(slot_at(t, i), key)
		     : !memcmp(slot_at(t, i) + BW_TABLE_U64_KEY, key,
			       sizeof(__u64));
}

/*
 * Whether key is there: at *i if so, else *i is where it would go.
 * Inlined: every lookup and put runs it.
 */
static __always_inline bool probe(const struct bw_table *t, const void *key,
				  __u32 tag, size_t *i)
{
	size_t mask = t->cap - 1, j;
	__u32 at;

	for (j = tag & mask; (at = *tag_at(t, j)); j = (j + 1) & mask)
		if (at == tag && holds(t, j, key)) {
			*i = j;
			return true;
		}
	*i = j;
	return false;
}

void *bw_table_find(const struct bw_table *t, const void *key)
{
	size_t i;

	if (!t->n || !probe(t, key, tag_of(t, key), &i))
		return NULL;
	return slot_at(t, i);
}

/* Doubles the table (or makes its first slots). */
static int grow(struct bw_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : MIN_CAP, mask = cap - 1, i, j;
	char *slot;
	__u32 tag;

	if (cap > MAX_CAP)
		return -ENOMEM;
	slot = calloc(cap, t->size);
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		tag = *tag_at(t, i);
		if (!tag)
			continue;
		for (j = tag & mask; *(__u32 *)(slot + j * t->size);
		     j = (j + 1) & mask)
			;
		memcpy(slot + j * t->size, slot_at(t, i), t->size);
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

void *bw_table_put(struct bw_table *t, const void *key, bool *added)
{
	__u32 tag = tag_of(t, key);
	size_t i = 0;

	*added = false;
	if (t->cap && probe(t, key, tag, &i))
		return slot_at(t, i);
	if ((t->n + 1) * 4 > t->cap * 3) {
		if (grow(t))
			return NULL;
		probe(t, key, tag, &i);
	}
	*tag_at(t, i) = tag;
	t->n++;
	*added = true;
	if (!t->hash)
		memcpy(slot_at(t, i) + BW_TABLE_U64_KEY, key, sizeof(__u64));
	return slot_at(t, i);
}

size_t bw_table_del(struct bw_table *t, void *slot)
{
	size_t mask = t->cap - 1, i, j, home, at;
	__u32 tag;

	at = i = (size_t)((char *)slot - t->slot) / t->size;
	/* A slot moves back into the hole unless that is before its home. */
	for (j = (i + 1) & mask; (tag = *tag_at(t, j)); j = (j + 1) & mask) {
		home = tag & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			memcpy(slot_at(t, i), slot_at(t, j), t->size);
			i = j;
		}
	}
	memset(slot_at(t, i), 0, t->size);
	t->n--;
	return at;
}

void *bw_table_next(const struct bw_table *t, size_t *i)
{
	for (; *i < t->cap; (*i)++)
		if (*tag_at(t, *i))
			return slot_at(t, (*i)++);
	return NULL;
}
