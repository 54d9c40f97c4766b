/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The name allowlist: the program's BPF hash map allow_names (name key ->
 * __u8), keyed with seed BW_NAME_ALLOW_SEED so that it outlives filters.
 * An exact allow entry is the name's exact key, a subtree one its subtree
 * key. The value says who put the entry there, as bits: the operator
 * (allow IFACE NAME, --allow FILE) or the block lists' "@@||name^" lines,
 * so that a reload replaces the lists' entries and keeps the operator's.
 *
 * Every function takes fd -1 (a program from before names) as an empty
 * map that cannot change. int functions return 0 or -errno.
 */
#ifndef __BW_ALLOW_NAMES_H
#define __BW_ALLOW_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/list.h"

#define BW_ALLOW_NAME_OPERATOR (1U << 0) /* allow NAME, --allow FILE */
#define BW_ALLOW_NAME_LIST (1U << 1)	 /* a block list's @@||name^ */

/* The map key of an allow entry. */
__u64 bw_allow_name_key(const char *name, size_t len, bool subtree);

/* Whether some entry has one of these bits. */
bool bw_allow_names_any(int fd, __u8 bits);

/* Entries with one of these bits, by kind unknown: their number. */
size_t bw_allow_names_count(int fd, __u8 bits);

/* Whether the map has the entry (exact or subtree) for name. */
bool bw_allow_name_present(int fd, const char *name, size_t len, bool subtree);

/* The entries the map has room for (its max_entries); 0 for fd -1. */
__u32 bw_allow_names_max(int fd);

/*
 * Sets bit on each allow entry of l (its domain entries: exact or subtree
 * as flagged), adding the entries that are missing. -ENOSPC when full.
 */
int bw_allow_names_stage(int fd, const struct bw_list *l, __u8 bit);

/*
 * Clears bit from every entry that is not in l, deleting those left with
 * no bit: after the swap, what the new lists no longer hold goes.
 */
int bw_allow_names_prune(int fd, const struct bw_list *l, __u8 bit);

/* Sets (on) or clears one entry's bit; 1 when it changed, 0 when not. */
int bw_allow_name_set(int fd, const char *name, size_t len, bool subtree,
		      __u8 bit, bool on);

/*
 * The allow entry a query name meets, as the data path looks: the exact
 * key of the name, then the subtree key of the name and each parent. 1 on
 * a match (*subtree and *labels: which entry, the suffix's labels), 0 if
 * none.
 */
int bw_allow_names_match(int fd, const char *name, size_t len, bool *subtree,
			 int *labels);

/*
 * The capacity for n entries with room: twice n, at least
 * BW_ALLOW_NAMES_MIN, at most BW_ALLOW_MAX.
 */
__u32 bw_allow_names_room(size_t n);

/*
 * For a swap whose name allowlist must take need entries while it is
 * staged and hold hold entries after it: *out -1 when fd has room for need
 * and twice hold (the room attach gives; or is as large as it gets), else
 * a new map with room for twice the larger (bw_allow_names_room()) with
 * fd's entries, for the new program. 0 or -errno.
 */
int bw_allow_names_resized(int fd, size_t need, size_t hold, int *out);

#endif /* __BW_ALLOW_NAMES_H */
