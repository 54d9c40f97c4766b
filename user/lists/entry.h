/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Entries added at run time ('bloomwall add'), of either kind: an address
 * prefix or a DNS name (exact, or its subtree), each with when it ends.
 * A set of them keeps its names' bytes in one arena beside the entries,
 * so an entry is 40 bytes whatever its kind. A set looks an entry up by
 * a scan, or once indexed (bw_entries_index) through a hash table
 * (base/table.h) that pushes keep up to date: R lookups among N entries
 * cost O(N + R), not O(R x N).
 */
#ifndef __BW_ENTRY_H
#define __BW_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "base/table.h"
#include "lists/list.h"

/* What an entry is; as a mask, which kinds a count takes. */
enum bw_entry_kind {
	BW_ENTRY_PREFIX = 1,
	BW_ENTRY_NAME = 2,
	BW_ENTRY_ANY = BW_ENTRY_PREFIX | BW_ENTRY_NAME,
};

struct bw_entry {
	union {
		struct bw_prefix p; /* BW_ENTRY_PREFIX */
		/*
		 * BW_ENTRY_NAME: checked and folded, in the set's arena;
		 * flags 0 or BW_DOM_SUBTREE.
		 */
		struct bw_domain d;
	};
	__u64 expires; /* Unix seconds it ends, 0: never */
	__u8 kind;     /* BW_ENTRY_PREFIX or BW_ENTRY_NAME */
};

/* An entry as looked up or pushed: a prefix, or a name's text. */
struct bw_entry_key {
	__u8 kind;
	__u8 len, flags; /* a name's; flags 0 or BW_DOM_SUBTREE */
	const char *name;
	struct bw_prefix p;
};

struct bw_entries {
	struct bw_entry *v;
	size_t n, cap;
	char *names; /* the arena: names back to back */
	size_t names_len, names_cap;
	bool indexed;	    /* ix holds every entry */
	struct bw_table ix; /* entry index by key, when indexed */
};

static inline struct bw_entry_key bw_key_prefix(const struct bw_prefix *p)
{
	return (struct bw_entry_key){ .kind = BW_ENTRY_PREFIX, .p = *p };
}

/* A name (len at most BW_NAME_MAX) by its text, flags as bw_entry's. */
static inline struct bw_entry_key bw_key_name(const char *name, size_t len,
					      __u8 flags)
{
	return (struct bw_entry_key){ .kind = BW_ENTRY_NAME,
				      .len = (__u8)len,
				      .flags = flags & BW_DOM_SUBTREE,
				      .name = name };
}

static inline const char *bw_entry_name(const struct bw_entries *s,
					const struct bw_entry *e)
{
	return s->names + e->d.off;
}

static inline bool bw_entry_is_name(const struct bw_entry *e)
{
	return e->kind == BW_ENTRY_NAME;
}

/* Entry i of s as a key (a name's text in s's arena). */
struct bw_entry_key bw_entries_key(const struct bw_entries *s, size_t i);

/* Whether entry i of s is k. */
bool bw_entries_is(const struct bw_entries *s, size_t i,
		   const struct bw_entry_key *k);

void bw_entries_init(struct bw_entries *s);
void bw_entries_free(struct bw_entries *s);

/* Appends k until expires (there or not): 0 or -ENOMEM. */
int bw_entries_push(struct bw_entries *s, struct bw_entry_key k, __u64 expires);

/* The first entry of s that is k, or -1: by the index when built. */
long bw_entries_find(const struct bw_entries *s, struct bw_entry_key k);

/*
 * Builds the index of s, which pushes keep and any other change drops:
 * 0 or -ENOMEM (s is then scanned, as before).
 */
int bw_entries_index(struct bw_entries *s);

/* Drops the index (after a change of the entries' order). */
void bw_entries_unindex(struct bw_entries *s);

/*
 * Keeps the entries whose drop[i] is false, in order: how many went.
 * The arena keeps the dropped names' bytes, freed with the set.
 */
size_t bw_entries_filter(struct bw_entries *s, const bool *drop);

/* The entries of the kinds (enum bw_entry_kind, a mask). */
size_t bw_entries_count(const struct bw_entries *s, int kinds);

/* Takes entry i out, keeping the order of the others. */
void bw_entries_drop(struct bw_entries *s, size_t i);

/* The prefixes first, then the names, each kind in its order. */
int bw_entries_group(struct bw_entries *s);

/*
 * Entry i as an operator writes it: the prefix, or the name ("*." a
 * subtree), into buf (room for BW_NAME_MAX + 3); returns buf.
 */
const char *bw_entries_str(const struct bw_entries *s, size_t i, char *buf,
			   size_t len);

#endif /* __BW_ENTRY_H */
