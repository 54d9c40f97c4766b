/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Filter maps in the kernel: a BPF_MAP_TYPE_ARRAY of 64-byte blocks
 * (BPF_F_MMAPABLE) sized for one filter, mapped into the CLI's memory so
 * the builder writes it, and status, query and add read it, at memory
 * speed. A program is loaded for each one (prog.h).
 *
 * int functions return 0 or -errno.
 */
#ifndef __BW_FILTER_MAP_H
#define __BW_FILTER_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The kernel name of every filter map: how a program's filter is found. */
#define BW_FILTER_MAP_NAME "bw_filter"

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
 * Creates an mmapable block map of nblocks and maps it read-write (zeroed).
 * Says what failed (-ENOMEM, -E2BIG, -EPERM).
 */
int bw_filter_create(__u32 nblocks, struct bw_filter_map *m);

/*
 * Opens the map with this id and maps it (read-only unless writable).
 * -ENOENT when it is gone, -EINVAL when it is no block map. Prints nothing.
 */
int bw_filter_open_id(__u32 id, bool writable, struct bw_filter_map *m);

/* bw_filter_open_id() for a map fd, which m owns from now on (closed). */
int bw_filter_open_fd(int fd, bool writable, struct bw_filter_map *m);

/*
 * A new filter map of src's size plus extra blocks, mapped read-write,
 * holding a copy of src's blocks (the extra ones zeroed): a change is made
 * on the copy and swapped in, so the running filter never changes in place.
 */
int bw_filter_clone(const struct bw_filter_map *src, __u32 extra,
		    struct bw_filter_map *dst);

/* Unmaps and closes; safe on a map never opened. */
void bw_filter_close(struct bw_filter_map *m);

/*
 * Kernel id of a program, map or link fd; 0 on error. Here, at the bottom
 * of the kernel layer, because a filter map is the first object to need it.
 */
__u32 bw_obj_id(int fd);

#endif /* __BW_FILTER_MAP_H */
