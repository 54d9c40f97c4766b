/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * allow and unallow: entries (addresses and names, lists/entry.h) into or
 * out of the allowlists an interface runs, under the lock every writer
 * takes; all of one command's entries, or none.
 *
 * Addresses: the allowlist is an LPM trie the data path consults on a
 * Bloom hit only. A change makes a new trie (the old entries, changed)
 * that goes in with a new program, in one swap of the program on the
 * hook: a packet meets the old allowlist or the new one.
 *
 * Names: the program's hash map allow_names (kernel/allow_names.h)
 * changes in place; the filter's BW_DNS_F_ALLOW, which tells the data
 * path to look, is set once the map has an entry and cleared once it has
 * none.
 *
 * One command makes one swap: a copy of the filter (the flag as the names
 * need it, the change recorded, provenance.h) with a program that has the
 * new trie when the addresses changed. The names change before it; when
 * one cannot or the swap fails, the names this command changed are put
 * back, and the old trie never left: a failed command changes neither
 * allowlist. Only a SIGKILL between the names' change and the swap leaves
 * the names changed and the rest not (the other signals wait).
 */
#ifndef __BW_ALLOW_H
#define __BW_ALLOW_H

#include <stdbool.h>

#include "lists/entry.h"

struct bw_allow_req {
	const char *iface;
	int ifindex;
	bool on; /* allow; false: unallow */
	/* Addresses and names (checked), in the order given. */
	const struct bw_entries *entries;
};

struct bw_allow_result {
	/*
	 * One an entry, the caller's: entry i changed its allowlist (allowed:
	 * it was not there; unallowed: it was), and no entry before it in
	 * the command is the same.
	 */
	bool *changed;
	int changed_n;	   /* entries added or removed */
	long long entries; /* in the address allowlist now */
	long long names;   /* in the name allowlist now */
	bool locked;	   /* it got as far as taking the lock */
};

/*
 * rq's entries allowed or unallowed, all of them or none: 0 or -errno
 * (said; the names changed were put back). The entries' results stand
 * only on 0. The signals that end a command wait while the name map and
 * the filter disagree.
 */
int bw_allow(const struct bw_allow_req *rq, struct bw_allow_result *res);

#endif /* __BW_ALLOW_H */
