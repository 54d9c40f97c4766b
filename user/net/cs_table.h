/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The tables under the decision set (cs_decisions.h), each a table of
 * base/table.h: decision id to slot, value to the count of decisions
 * naming it, and interned strings (origins and scenarios repeat: a
 * million decisions have a handful); and the heap of decision ends.
 * A zeroed table is empty.
 */
#ifndef __BW_CS_TABLE_H
#define __BW_CS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "base/table.h"
#include "lists/list.h"

struct bw_cs_idmap {
	struct bw_table t; /* of struct bw_cs_idslot */
};

/* The value of id, or -1. */
long bw_cs_idmap_get(const struct bw_cs_idmap *m, __s64 id);
/* Sets id to val: 0 or -ENOMEM. */
int bw_cs_idmap_put(struct bw_cs_idmap *m, __s64 id, __u32 val);
void bw_cs_idmap_del(struct bw_cs_idmap *m, __s64 id);
void bw_cs_idmap_free(struct bw_cs_idmap *m);

struct bw_cs_valmap {
	struct bw_table t; /* of struct bw_cs_valslot */
};

/* The count of p (0 when absent). */
__u32 bw_cs_valmap_get(const struct bw_cs_valmap *m, const struct bw_prefix *p);
/* Adds one to p's count: the new count, or -ENOMEM. */
long bw_cs_valmap_inc(struct bw_cs_valmap *m, const struct bw_prefix *p);
/* Takes one from p's count (removed at 0): the new count. */
__u32 bw_cs_valmap_dec(struct bw_cs_valmap *m, const struct bw_prefix *p);
void bw_cs_valmap_free(struct bw_cs_valmap *m);

struct bw_cs_strtab {
	char **s; /* by index */
	size_t n, cap;
	struct bw_table h; /* of struct bw_cs_strslot, on the string */
};

/* The index of str (added when new), or -ENOMEM. */
long bw_cs_strtab_intern(struct bw_cs_strtab *t, const char *str);
static inline const char *bw_cs_strtab_get(const struct bw_cs_strtab *t,
					   __u32 i)
{
	return i < t->n ? t->s[i] : "";
}
void bw_cs_strtab_free(struct bw_cs_strtab *t);

/* Decision ends, soonest first (a binary min-heap). */
struct bw_cs_heap {
	struct bw_cs_end {
		__s64 until_ms;
		__s64 id;
	} * t;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int bw_cs_heap_push(struct bw_cs_heap *h, __s64 until_ms, __s64 id);
/* Removes t[0] (the soonest); h->n must not be 0. */
void bw_cs_heap_pop(struct bw_cs_heap *h);
/* Makes a heap of t[0..n) again (after the caller rewrote it). */
void bw_cs_heap_heapify(struct bw_cs_heap *h);
void bw_cs_heap_free(struct bw_cs_heap *h);

#endif /* __BW_CS_TABLE_H */
