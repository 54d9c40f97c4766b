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
#include "lists/entry.h"

struct bw_add_req {
	const char *iface;
	int ifindex;
	/* Addresses and names (checked), each with when it ends (0: never). */
	const struct bw_entries *entries;
	char *const *given; /* the entries as given (said in warnings) */
	const char *owner;  /* --owner (filter/owners.h), NULL: anonymous */
	__u64 now;
};

/* A request of names only: said as names (the CLI takes one kind). */
static inline bool bw_add_by_name(const struct bw_add_req *rq)
{
	return !bw_entries_count(rq->entries, BW_ENTRY_PREFIX);
}

struct bw_add_result {
	/* One an entry, the caller's: */
	struct bw_add_plan *plan; /* an address's: the keys that cover it */
	__u32 *fresh;		  /* keys (a name: 1) that set a bit */
	bool *unexpired; /* it had an expiry that this add, without, ended */
	bool *had;	 /* it was an add the filter kept before */
	__u64 generation;
	__u64 entries; /* addresses: the filter's entries now */
	__u64 kept;    /* entries (and names) the records keep as adds */
	/*
	 * The touched regions' highest rate, and their target: the name
	 * regions' for a request of names, else the filter's.
	 */
	double worst, target;
	/*
	 * BW_ADD_GROW: the part (filter/rate.h) the entries would take past
	 * its target, its rate with them by the model, and its target.
	 */
	int grow_part;
	double grow_rate, grow_target;
};

/* bw_add's returns besides 0 and -errno: nothing added, a rebuild can. */
enum {
	BW_ADD_NO_REGION = 1, /* no name region for a name asked */
	BW_ADD_GROW = 2,      /* past the target rate in place: grow it */
};

/*
 * rq's entries added: 0; BW_ADD_NO_REGION when the running filter has no
 * name region for one of the names, BW_ADD_GROW when the keys they would
 * set take a part of it past its target false-positive rate by the model
 * (filter/rate.h; res->grow_*): nothing added either way, a rebuild can
 * (ops/rebuild.h); or -errno (said; nothing added). A /0, or a prefix the
 * filter's target lengths cannot cover in place, is refused.
 */
int bw_add(const struct bw_add_req *rq, struct bw_add_result *res);

#endif /* __BW_OPS_ADD_H */
