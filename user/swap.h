/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Filter maps in the kernel: create a block map of the plan's size, mmap it
 * so the builder writes at memory speed, load a program that reads it, and
 * hand that program over to be installed (on the interface, in one atomic
 * update). Also opens the running filter for status, query and add.
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
 * Creates an mmapable block map of nblocks and maps it read-write (zeroed).
 * Returns 0 or -errno (-ENOMEM / -E2BIG with a message saying so).
 */
int bw_filter_create(__u32 nblocks, struct bw_filter_map *m);

/* Unmaps and closes; safe on a map never opened. */
void bw_filter_close(struct bw_filter_map *m);

/* The maps every program instance shares, as fds. */
struct bw_maps {
	int filter; /* slot 0: the id of the current filter map, for the CLI */
	int stats;
	int allow;
	int exact;
};

#define BW_MAPS_INIT                                                \
	{                                                           \
		.filter = -1, .stats = -1, .allow = -1, .exact = -1 \
	}

void bw_maps_close(struct bw_maps *mp);

struct bloomwall;

/* The maps of a loaded skeleton, borrowed: closed with the skeleton. */
void bw_maps_from_skel(const struct bloomwall *skel, struct bw_maps *mp);

/*
 * Gives an opened, not yet loaded skeleton filter m's header as its
 * constants (filter_hdr in .rodata): the program is made for one filter,
 * and must be loaded again when the header changes (bw_filter_commit).
 */
int bw_prog_specialise(struct bloomwall *skel, const struct bw_filter_map *m);

/*
 * The header a loaded bloomwall program was specialised with (its .rodata
 * copy). 0, or -errno (-ENOENT: no such map, not one of ours).
 */
struct bw_hdr;
int bw_prog_header(int prog_fd, struct bw_hdr *hdr);

/*
 * Loads the XDP program for filter m, sharing mp's maps. Its fd, or -errno
 * (the verifier's log goes to libbpf's print callback).
 */
int bw_prog_load(const struct bw_maps *mp, const struct bw_filter_map *m);

/*
 * Puts a loaded program where packets meet it, replacing the one there in
 * one atomic step, or fails with nothing changed. It takes its own
 * reference; the caller closes prog_fd.
 */
struct bw_installer {
	int (*install)(void *ctx, int prog_fd);
	void *ctx;
};

/*
 * An installer's install for programs run by hand (BPF_PROG_TEST_RUN), not
 * on an interface: fd_ptr is an int *, the newest program's fd (-1 to start
 * with), which replaces and closes the one before. The owner closes the last.
 */
int bw_keep_prog(void *fd_ptr, int prog_fd);

/*
 * Swaps filter m in: loads its program, has it installed (from the next
 * packet on, every packet sees the new filter) and puts m's id into slot 0
 * of filter. The kernel frees the old filter with the old program once the
 * packets in flight are through. On failure nothing has changed. 0 or
 * -errno.
 */
int bw_filter_commit(const struct bw_maps *mp, const struct bw_filter_map *m,
		     const struct bw_installer *in);

/*
 * Opens the filter whose id is in slot 0 of the filter map (registry_fd)
 * and maps it (read-only unless writable). -ENOENT if there is none.
 */
int bw_filter_open_current(int registry_fd, bool writable,
			   struct bw_filter_map *m);

#endif /* __BW_SWAP_H */
