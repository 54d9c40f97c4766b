/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The record area a filter carries after its last region (the format is
 * in include/bw_layout.h): the entries added at run time, the list files
 * and build options it was built from, and any record of a type this
 * bloomwall does not know, kept as it was: in memory, as records_read.h
 * reads them and records_write.h writes them. No bpf(): the same code
 * serves a mmapped filter map and a test's buffer.
 */
#ifndef __BW_RECORDS_H
#define __BW_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/owners.h"
#include "lists/entry.h"
#include "lists/list.h"

/* Longest list path a record keeps (PATH_MAX). */
#define BW_REC_PATH_MAX 4096

/*
 * What a list was when the filter was read from it (BW_REC_SOURCE); known
 * is false for a list an older filter recorded by its path alone
 * (BW_REC_LIST).
 */
struct bw_rec_src {
	bool known;
	struct bw_rec_source s;
};

struct bw_records {
	/*
	 * The entries added at run time, prefixes and names, each with its
	 * expiry (BW_REC_ADDED_EXPIRES, BW_REC_ADDED_NAME_EXPIRES): in the
	 * order they were added, as read the prefixes first.
	 */
	struct bw_entries added;
	/*
	 * Added entries the area marks as taken out in place
	 * (BW_REC_PREFIX_GONE, BW_REC_NAME_GONE; records_gone.h): not added
	 * any more; kept to say which, never written back.
	 */
	struct bw_entries gone;
	/*
	 * The owners of added prefixes that have them (BW_REC_OWNERS): an
	 * entry without claims has the anonymous owner alone. As read,
	 * those of added entries alone.
	 */
	struct bw_owners owners;
	bool have_build;
	struct bw_rec_build build;
	bool have_dns;
	struct bw_rec_dns dns;
	char **lists; /* paths, as the build opened them */
	int nlists;
	struct bw_rec_src *src; /* nlists of them: lists[i]'s is src[i] */
	bool have_origin;
	struct bw_rec_origin origin; /* when and how it was built */
	/* Allowlist files (--allow FILE) as read (BW_REC_ALLOW_SOURCE). */
	char **allow;
	struct bw_rec_src *allow_src; /* nallow of them, all known */
	int nallow;
	bool have_change;
	struct bw_rec_change change; /* the last change since the build */
	bool have_sized;
	struct bw_rec_sized sized; /* what the build sized the regions for */
	bool have_image;
	struct bw_rec_image image; /* the image it came from (BW_REC_IMAGE) */
	/* Records of types this bloomwall does not know, heads and bodies. */
	void *other;
	size_t other_len, other_cap;
	__u32 nother;
};

/*
 * Added entries of record areas visited since the program started (read,
 * walked, marked), and add log records whose heads were walked: what the
 * unit tests count, to show that a change of R entries visits O(R) of
 * them, not every one an area holds.
 */
extern __u64 bw_records_visits;

void bw_records_init(struct bw_records *r);
void bw_records_free(struct bw_records *r);

/*
 * The block the area starts at: the end of the last region, the name
 * regions' with BW_F_DNS (a filter that passed bw_filter_check, or a
 * planned one).
 */
__u32 bw_records_start(const void *mem);

/* Index of k among the added entries, or -1. */
static inline long bw_records_find(const struct bw_records *r,
				   struct bw_entry_key k)
{
	return bw_entries_find(&r->added, k);
}

/*
 * Whether a and b hold the same added entries, each with the same
 * expiry, the prefixes in the same order and the names in the same order,
 * and the same owners' claims.
 */
bool bw_records_same_added(const struct bw_records *a,
			   const struct bw_records *b);

#endif /* __BW_RECORDS_H */
