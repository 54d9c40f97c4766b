/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The exact LPM tries beside the Bloom filter: the allowlist (one trie,
 * changed in place) and verify mode's exact blocklist (one trie per filter
 * generation, in the slot of the `exact` ARRAY_OF_MAPS that the filter's
 * header names). Keys are struct bw_lpm_key from include/bw_layout.h: both
 * families in one trie, the family part of every key, so that no prefix
 * of one family covers an address of the other.
 *
 * int functions return 0 or -errno and print nothing unless they say so.
 */
#ifndef __BW_LPM_H
#define __BW_LPM_H

#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

#define BW_PIN_ALLOW bw_textify(BW_MAP_ALLOW)
#define BW_PIN_EXACT bw_textify(BW_MAP_EXACT)

/* Trie key of a prefix (host bits cleared), and back. */
void bw_lpm_key_of(struct bw_lpm_key *k, const struct bw_prefix *p);
void bw_lpm_prefix_of(const struct bw_lpm_key *k, struct bw_prefix *p);

/* Prefix i of a list: the IPv4 ones first, then the IPv6 ones. */
void bw_list_prefix(const struct bw_list *l, size_t i, struct bw_prefix *p);

/*
 * A new LPM trie (BPF_F_NO_PREALLOC: memory per entry, max_entries is only
 * a cap) with bloomwall's key and a one-byte value. An fd or -errno.
 */
int bw_lpm_create(const char *name, __u32 max_entries);

/* Inserts every prefix of l. 0 or -errno (the kernel's, e.g. -E2BIG). */
int bw_lpm_fill(int fd, const struct bw_list *l);

/* Entries in a trie, counted by walking its keys; -errno on failure. */
long long bw_lpm_count(int fd);

/* Whether a trie has any entry: one lookup, where counting walks them all. */
bool bw_lpm_has_entries(int fd);

/* Kernel memory charged to a map ("memlock:" in its fdinfo); -errno. */
long long bw_map_memlock(int fd);

/* The size of a map's values, as the kernel keeps them; -errno. */
long long bw_map_value_size(int fd);

/* A new, empty outer map of the exact tries (BW_EXACT_SLOTS): fd or -errno. */
int bw_exact_outer_create(void);

/* Opens the trie in a slot; -ENOENT when the slot is empty. */
int bw_exact_open(int outer_fd, __u32 slot);
/* Puts a trie into a slot (replacing what was there). */
int bw_exact_set(int outer_fd, __u32 slot, int trie_fd);
/* Empties a slot; an empty slot is fine. */
int bw_exact_clear(int outer_fd, __u32 slot);

/* Does the trie hold an entry covering this address (longest match)? */
int bw_lpm_match(int fd, const struct bw_prefix *addr);

/*
 * A pinned allowlist or exact tries (name BW_PIN_ALLOW, BW_PIN_EXACT) with
 * keys of another size than struct bw_lpm_key, made by a bloomwall from
 * before the family was part of the key: used with today's keys, none of
 * their entries would ever match. Says so and returns -ESTALE; 0 for any
 * other pin or a trie of today's keys.
 */
int bw_lpm_pin_check(int fd, const char *iface, const char *name);

/*
 * The key of bloomwall's tries before the family was part of it: the
 * prefix length and 16 address bytes, IPv4 as ::ffff:a.b.c.d with its
 * length plus 96. A program whose allowlist has it is an older bloomwall's.
 */
struct bw_lpm_key_v1 {
	__u32 prefixlen;
	__u8 addr[16];
};

/* Whether the trie fd has the older key (struct bw_lpm_key_v1). */
bool bw_lpm_is_v1(int fd);

/* The prefix of an older key. */
void bw_lpm_prefix_of_v1(const struct bw_lpm_key_v1 *k, struct bw_prefix *p);

#endif /* __BW_LPM_H */
