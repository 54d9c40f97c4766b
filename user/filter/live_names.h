/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Live names (live.h): names kept in a running filter's name regions on
 * top of what it was built from, set and taken out in place as live
 * prefixes are. A name is one key (its exact or subtree key,
 * bw_name_entry_key), so its one block shares the set's blocks with the
 * prefixes' keys: bases, snapshots and rebases hold for both.
 *
 * Names are checked and folded (lists/names.h) by the caller; an entry is
 * the name and whether it is a subtree.
 *
 * int functions return 0 or -errno.
 */
#ifndef __BW_LIVE_NAMES_H
#define __BW_LIVE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/live_set.h"

/* Sets up l's names, none yet (bw_live_init). */
void bw_live_names_init(struct bw_live *l);

/* Frees l's names (bw_live_free). */
void bw_live_names_free(struct bw_live *l);

/*
 * Keeps the name until bw_live_del_name (adds count, as for prefixes);
 * expires: Unix seconds it ends (0: never; a later or a never of a second
 * add wins). mem: the filter to set its key in (NULL: only kept).
 * -ENOENT (the layout has no name region for it), -EINVAL (len 0 or past
 * 255), -ENOMEM; nothing changed on error.
 */
int bw_live_add_name(struct bw_live *l, void *mem, const char *name, size_t len,
		     bool subtree, __u64 expires);

/* One add less; the last takes it out of mem in place. -ENOENT: not live. */
int bw_live_del_name(struct bw_live *l, void *mem, const char *name, size_t len,
		     bool subtree);

/* Whether the name is live (its expiry in *expires when not NULL). */
bool bw_live_has_name(const struct bw_live *l, const char *name, size_t len,
		      bool subtree, __u64 *expires);

/* Sets a live name's expiry (0: never): -ENOENT when not live. */
int bw_live_name_expiry(struct bw_live *l, const char *name, size_t len,
			bool subtree, __u64 expires);

/*
 * The names' keys for the set's layout (live.c's bw_live_layout, after the
 * header is taken): bases read from mem. -ENOMEM.
 */
int bw_live_names_layout(struct bw_live *l, const void *mem);

/* Takes out the names whose expiry is at or before now; how many. */
size_t bw_live_names_expire(struct bw_live *l, void *mem, __u64 now);

/* The earliest expiry of a live name (0: none). */
__u64 bw_live_names_next_expiry(const struct bw_live *l);

/* Calls fn for each name (stops at non-zero, returned). */
int bw_live_each_name(const struct bw_live *l,
		      int (*fn)(void *ctx, const char *name, size_t len,
				bool subtree, __u32 refs, __u64 expires),
		      void *ctx);

#endif /* __BW_LIVE_NAMES_H */
