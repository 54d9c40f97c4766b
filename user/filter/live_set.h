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

#include "base/table.h"
#include "bloomwall.h"
#include "filter/live_blocks.h"

struct bw_live {
	struct bw_hdr hdr; /* the layout the keys are for */
	bool have_hdr;	   /* false: entries kept, no keys yet */
	/*
	 * The bases are not those of the filter in mem (it was replaced by
	 * one this set was only ORed into): a delete updates the set but
	 * writes nothing until bw_live_rebase() gives true bases.
	 */
	bool stale;
	struct bw_table ent;   /* the prefixes (live.c's struct bw_live_ent) */
	__u64 nexpiring;       /* prefixes with an expiry */
	struct bw_table names; /* live_names.c's struct bw_live_name */
	size_t name_bytes;     /* held for the names' text */
	__u64 names_expiring;  /* names with an expiry */
	size_t names_unplaced; /* no region for them in the layout */
	/* The name regions of the layout, as the data path has them. */
	struct bw_dns_consts dc;
	struct bw_live_blocks blocks; /* those with live keys */
	size_t nkeys; /* keys held (an entry's, once per entry) */
};

#endif /* __BW_LIVE_SET_H */
