/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A live set's state (live.h says what it is and does; live_names.h does
 * its names): the types alone, shared by live.c and live_names.c.
 */
#ifndef __BW_LIVE_SET_H
#define __BW_LIVE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/live_blocks.h"

struct bw_live_name;

/* The names of a live set, open addressing on the name. */
struct bw_live_names {
	struct bw_live_name *ent;
	size_t cap, n;
	size_t bytes;	 /* held for the table and the names */
	__u64 nexpiring; /* entries with an expiry */
	size_t unplaced; /* no region for them in the layout */
};

struct bw_live_ent;

struct bw_live {
	struct bw_hdr hdr; /* the layout the keys are for */
	bool have_hdr;	   /* false: entries kept, no keys yet */
	/*
	 * The bases are not those of the filter in mem (it was replaced by
	 * one this set was only ORed into): a delete updates the set but
	 * writes nothing until bw_live_rebase() gives true bases.
	 */
	bool stale;
	/* Entries, open addressing on the prefix. */
	struct bw_live_ent *ent;
	size_t ent_cap, nent;
	struct bw_live_names names; /* live_names.h */
	/* The name regions of the layout, as the data path has them. */
	struct bw_dns_consts dc;
	struct bw_live_blocks blocks; /* those with live keys */
	size_t nkeys;	 /* keys held (an entry's, once per entry) */
	size_t bytes;	 /* held for the entries */
	__u64 nexpiring; /* entries with an expiry */
};

#endif /* __BW_LIVE_SET_H */
