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
	struct bw_prefix *added; /* in the order they were added */
	/*
	 * nadded of them, parallel to added (NULL only while nadded is 0):
	 * Unix seconds the entry ends ('add --timeout'), 0: never
	 * (BW_REC_ADDED_EXPIRES).
	 */
	__u64 *added_expires;
	size_t nadded, cap;
	/*
	 * Added entries the area marks as taken out in place
	 * (BW_REC_PREFIX_GONE, records_gone.h): not added any more; kept to
	 * say which, never written back.
	 */
	struct bw_prefix *gone;
	size_t ngone;
	/*
	 * Names added at run time, in the order they were added: domain
	 * entries (BW_DOM_SUBTREE or exact), checked and folded.
	 */
	struct bw_list names;
	/*
	 * names.ndom of them, parallel to names.dom (NULL only while
	 * names.ndom is 0): Unix seconds the name ends ('add --timeout'),
	 * 0: never (BW_REC_ADDED_NAME_EXPIRES).
	 */
	__u64 *names_expires;
	size_t names_cap; /* room in names_expires */
	/*
	 * Added names the area marks as taken out in place
	 * (BW_REC_NAME_GONE), flags as in names: not added any more; kept
	 * to say which, never written back.
	 */
	struct bw_list gone_names;
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

void bw_records_init(struct bw_records *r);
void bw_records_free(struct bw_records *r);

/*
 * The block the area starts at: the end of the last region, the name
 * regions' with BW_F_DNS (a filter that passed bw_filter_check, or a
 * planned one).
 */
__u32 bw_records_start(const void *mem);

/*
 * Appends p to the added entries, there or not (the reader), never
 * expiring: 0 or -ENOMEM.
 */
int bw_records_push_added(struct bw_records *r, const struct bw_prefix *p);

/* Index of p among the added entries, or -1. */
long bw_records_find(const struct bw_records *r, const struct bw_prefix *p);

/*
 * Whether a and b hold the same added entries in the same order, each
 * with the same expiry, and the same names, each with the same expiry.
 */
bool bw_records_same_added(const struct bw_records *a,
			   const struct bw_records *b);

/*
 * Appends a checked, folded name (flags 0 or BW_DOM_SUBTREE) to the added
 * names, there or not (the reader, a build of names known apart), never
 * expiring: 0 or -ENOMEM.
 */
int bw_records_push_name(struct bw_records *r, const char *name, size_t len,
			 __u8 flags);

/*
 * Appends a checked, folded name (flags 0 or BW_DOM_SUBTREE) to the added
 * names unless there: 1 if new (it never expires), 0 if not (its expiry
 * stays), -ENOMEM.
 */
int bw_records_add_name(struct bw_records *r, const char *name, size_t len,
			__u8 flags);

/*
 * As bw_records_add_name, and the name's expiry becomes expires (Unix
 * seconds, 0: never) whether it was there or not: a new timeout replaces
 * the old one, an add without one makes the name permanent, as
 * bw_records_add_until does for entries.
 */
int bw_records_add_name_until(struct bw_records *r, const char *name,
			      size_t len, __u8 flags, __u64 expires);

/* Index of the added name, or -1. */
long bw_records_find_name(const struct bw_records *r, const char *name,
			  size_t len, __u8 flags);

#endif /* __BW_RECORDS_H */
