/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The allowlist as a whole: every change makes a new trie (read the old
 * one, change the copy, fill a new trie) that goes in with a new program
 * in one swap, so a packet meets the old allowlist or the new one, never
 * half of a change, and a killed command leaves the old one whole.
 *
 * int functions return 0 or -errno and print nothing.
 */
#ifndef __BW_ALLOWLIST_H
#define __BW_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

/*
 * Every entry of an allowlist trie, into l (initialised), finished; also of
 * one an older bloomwall keyed without the family (lpm.h).
 */
int bw_allow_read(int fd, struct bw_list *l);

/* A new allowlist trie holding l's entries: its fd, or -errno. */
int bw_allow_create(const struct bw_list *l);

/* Whether the finished list l holds exactly the prefix p. */
bool bw_list_has(const struct bw_list *l, const struct bw_prefix *p);

/*
 * Entries of the finished list a that are not in the finished list b, and
 * of b that are not in a.
 */
void bw_list_diff(const struct bw_list *a, const struct bw_list *b,
		  size_t *only_a, size_t *only_b);

#endif /* __BW_ALLOWLIST_H */
