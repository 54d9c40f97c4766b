/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What a build is asked for (builder.h): lists, options, kept entries. */
#ifndef __BW_BUILD_REQ_H
#define __BW_BUILD_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/bloom.h"
#include "filter/live_room.h"
#include "filter/records.h"
#include "lists/cidr.h"
#include "lists/entry.h"
#include "lists/list.h"

struct bw_build_req {
	const char *label;	  /* what messages name: the interface */
	const char *const *lists; /* list files ('-' is standard input) */
	int nlists;
	struct bw_build_opts opts; /* fpr, seed, flags (BW_F_VERIFY: verify) */
	struct bw_cidr_opts cidr;  /* --max-lengths */
	bool skip_invalid;
	bool mask_host_bits;
	/*
	 * Entries kept from 'bloomwall add', prefixes and names, each with
	 * its expiry, built in as list entries are; NULL: none.
	 */
	const struct bw_entries *added;
	/*
	 * The adds, prefixes and names, go in the records but not in the
	 * blocks: a watch sets them as live entries, taken out in place
	 * when they end or are removed (daemon/live.h). Target lengths and
	 * room are chosen for them as for the lists' entries; the name
	 * regions get room for the names (and exist for them).
	 */
	bool adds_live;
	/*
	 * Live entries the filter must have target lengths and room for
	 * besides the lists (live_room.h; those adds_live leaves out count
	 * too), set by the caller's hook, not the build; NULL: none.
	 */
	const struct bw_live_room *room;
	bool subdomains;      /* --subdomains: every name entry is a subtree */
	unsigned int threads; /* reading each list: bw_list_opts.threads */
	/*
	 * The name allowlist map has entries besides the lists' own (allow
	 * NAME, --allow FILE): BW_DNS_F_ALLOW whatever the lists hold.
	 */
	bool allow_names;
	__u8 exact_slot;  /* verify mode: the slot the new trie goes into */
	__u64 generation; /* of the new filter */
	/*
	 * Provenance (provenance.h): enum bw_origin, BW_ORIGIN_ATTACH by
	 * default; 0 for an image, which records no time and no mtimes so
	 * that the same lists give the same bytes.
	 */
	__u8 origin;
	/*
	 * The allowlist files (--allow FILE) recorded with the filter: each
	 * as allow_src says it was read (NULL: the build reads each once
	 * more for its record). Without any (nallow_files 0), keep_allow's
	 * recorded allowlist files (a rebuild keeping the allowlist), if set.
	 */
	const char *const *allow_files;
	int nallow_files;
	const struct bw_rec_source *allow_src;
	const struct bw_records *keep_allow;
	/*
	 * A rebuild that is a change (bloomwall remove: enum bw_change_verb,
	 * 0 for none): the filter keeps prev's origin and records the change
	 * (records.h, BW_REC_CHANGE) rather than a new origin.
	 */
	__u8 change;
	const struct bw_records *prev;
};

/* Defaults: fpr BW_DEFAULT_FPR, a random seed, --match src, generation 1. */
void bw_build_req_init(struct bw_build_req *req, const char *label);

#endif /* __BW_BUILD_REQ_H */
