/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * allow and unallow: entries into or out of the allowlist an interface
 * runs, under the lock every writer takes.
 *
 * Addresses: the allowlist is an LPM trie the data path consults on a
 * Bloom hit only. A change makes a new trie (the old entries, changed)
 * that goes in with a new program, in one swap of the program on the
 * hook: a packet meets the old allowlist or the new one, and a killed
 * command changes nothing.
 *
 * Names: the program's hash map allow_names (kernel/allow_names.h)
 * changes in place; the filter's BW_DNS_F_ALLOW, which tells the data
 * path to look, is set (a copy of the filter swapped in with a program
 * that knows it) once the map has an entry, and cleared once it has none.
 * That swap also records the change (provenance.h), so a command changes
 * both or neither: when an entry cannot change or the swap fails, the
 * entries it changed are put back.
 */
#ifndef __BW_ALLOW_H
#define __BW_ALLOW_H

#include <stdbool.h>

#include "lists/list.h"

struct bw_allow_req {
	const char *iface;
	int ifindex;
	bool on; /* allow; false: unallow */
	int n;
	const struct bw_prefix *addrs; /* n addresses, or */
	const struct bw_list *names;   /* n names (checked), in order */
};

struct bw_allow_result {
	/*
	 * n of them, the caller's: entry i changed the allowlist. Addresses:
	 * allowed, neither there before nor earlier in addrs; unallowed: it
	 * was there. Names: set or cleared by this entry.
	 */
	bool *changed;
	int changed_n;	   /* entries added or removed */
	long long entries; /* in the allowlist now */
	bool locked;	   /* it got as far as taking the lock */
};

/* rq's addresses allowed or unallowed: 0 or -errno (said). */
int bw_allow_addrs(const struct bw_allow_req *rq, struct bw_allow_result *res);

/*
 * rq's names allowed or unallowed, all of them or none: 0 or -errno
 * (said; what changed was put back). The signals that end a command wait
 * while the map and the filter disagree.
 */
int bw_allow_names(const struct bw_allow_req *rq, struct bw_allow_result *res);

#endif /* __BW_ALLOW_H */
