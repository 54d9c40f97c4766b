/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * add by a swap (no watch takes it, ops/handover.h): the entries' bits
 * set in a copy of the running filter and kept in the copy's record area
 * (records.h), the copy swapped in under the lock every writer takes: the
 * entries and their record go in together or not at all. An address or
 * prefix is set as the keys that cover it at one of the filter's target
 * lengths (in verify mode put into the running exact trie first); a name
 * into the filter's name region. With an expiry, each records when it
 * ends: a new one replaces the old, none makes the entry permanent.
 */
#ifndef __BW_OPS_ADD_H
#define __BW_OPS_ADD_H

#include <stdbool.h>
#include <linux/types.h>

#include "filter/bloom.h"
#include "lists/list.h"

struct bw_add_req {
	const char *iface;
	int ifindex;
	int n;
	char *const *given; /* n entries as given (said in warnings) */
	const struct bw_prefix *keys; /* n addresses, or */
	const struct bw_list *names;  /* n names (checked), in order */
	__u64 now, expires;	      /* now, and when they end (0: never) */
};

struct bw_add_result {
	/* n of each, the caller's: */
	struct bw_add_plan *plan; /* addresses: the keys that cover each */
	__u32 *fresh;		  /* keys (a name: 1) that set a bit */
	bool *unexpired; /* it had an expiry that this add, without, ended */
	__u64 generation;
	__u64 entries; /* addresses: the filter's entries now */
	__u64 kept;    /* entries (and names) the records keep as adds */
	double worst,
		target; /* the touched regions' highest rate, and theirs */
};

/*
 * rq's addresses or names added: 0; 1 when the running filter has no name
 * region for one of the names (nothing added: a rebuild can,
 * ops/rebuild.h); or -errno (said; nothing added). A /0, or a prefix the
 * filter's target lengths cannot cover in place, is refused.
 */
int bw_add(const struct bw_add_req *rq, struct bw_add_result *res);

#endif /* __BW_OPS_ADD_H */
