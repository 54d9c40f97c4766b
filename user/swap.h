/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Filter maps in the kernel: create an inner map of the plan's size, mmap it
 * so the builder writes at memory speed, and swap it into the outer map's
 * one slot with a single update. Also opens the running filter for status,
 * query and add.
 */
#ifndef __BW_SWAP_H
#define __BW_SWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bw_filter_map {
	int fd;	    /* -1 when not open */
	void *mem;  /* mmapped blocks, NULL when not mapped */
	size_t len; /* bytes mapped */
	__u32 nblocks;
	__u32 id; /* kernel map id */
};

#define BW_FILTER_MAP_INIT \
	{                  \
		.fd = -1   \
	}

/*
 * Creates an mmapable inner map of nblocks and maps it read-write (zeroed).
 * Returns 0 or -errno (-ENOMEM / -E2BIG with a message saying so).
 */
int bw_filter_create(__u32 nblocks, struct bw_filter_map *m);

/* Unmaps and closes; safe on a map never opened. */
void bw_filter_close(struct bw_filter_map *m);

/*
 * Puts the inner map into slot 0 of the outer map: from the next packet on,
 * every packet sees the new filter. The kernel frees the old one after its
 * last reader. Returns 0 or -errno.
 */
int bw_filter_commit(int outer_fd, const struct bw_filter_map *m);

/*
 * Opens the filter now in slot 0 of the outer map and maps it (read-only
 * unless writable). -ENOENT if the slot is empty.
 */
int bw_filter_open_current(int outer_fd, bool writable,
			   struct bw_filter_map *m);

#endif /* __BW_SWAP_H */
