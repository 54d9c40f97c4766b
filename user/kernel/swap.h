/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The swap: a new filter (its map, and in verify mode its exact trie) goes
 * in where packets meet it, in one atomic step, or nothing changes. The
 * program loaded for the new filter replaces the running one on the hook
 * (or, in the tests, in a program run by hand); the exact trie and the
 * allowlist entries are staged before and cleaned up after, in the order
 * that never shows a packet a half-applied state. A change to the running
 * filter (add, allow, unallow) is made on a copy that is swapped in the
 * same way (bw_swap_running).
 */
#ifndef __BW_SWAP_H
#define __BW_SWAP_H

#include <stdbool.h>
#include <linux/types.h>

#include "filter/builder.h"
#include "kernel/filter_map.h"
#include "lists/list.h"
#include "kernel/prog.h"

/*
 * Puts a loaded program where packets meet it, replacing the one there in
 * one atomic step, or fails with nothing changed. It takes its own
 * reference; the caller closes prog_fd. maps: those prog_fd was loaded
 * with, or NULL when it made some of its own (bw_prog_load()).
 */
struct bw_installer {
	/*
	 * tc_fd: the egress program loaded with prog_fd for the same filter
	 * (with egress set), else -1; put on the egress hook in the same step.
	 */
	int (*install)(void *ctx, int prog_fd, int tc_fd,
		       const struct bw_maps *maps);
	void *ctx;
	/*
	 * Not NULL: the hook runs an egress program too (these are its own
	 * maps), and every filter swapped in gets one.
	 */
	const struct bw_egress *egress;
};

/*
 * An installer's install for programs run by hand (BPF_PROG_TEST_RUN), not
 * on an interface: fd_ptr is an int *, the newest program's fd (-1 to start
 * with), which replaces and closes the one before. The owner closes the last.
 */
int bw_keep_prog(void *fd_ptr, int prog_fd, int tc_fd,
		 const struct bw_maps *maps);

struct bw_running;

/*
 * An installer that replaces the program r's hook runs with the new one,
 * atomically (bw_hook_replace: the kernel refuses the swap if the hook no
 * longer runs r's program, -ESTALE), then has the pins name it. When r
 * runs an egress program, the new filter's replaces it right after, under
 * the same lock and a guard (hooks_guard.h); if that fails the XDP hook is
 * given its old program back. Killed or failed at any point, the command
 * leaves both hooks on the old filter or both on the new one once the lock
 * is free.
 */
void bw_hook_installer(const struct bw_running *r, struct bw_installer *in);

/*
 * Swaps filter m in: loads its program with mp's maps and has it installed
 * (from the next packet on, every packet sees the new filter). The kernel
 * frees the old filter with the old program once the packets in flight
 * are through. On failure nothing has changed.
 */
int bw_filter_commit(const struct bw_maps *mp, const struct bw_filter_map *m,
		     const struct bw_installer *in);

/* What a build put into the kernel: the filter and, in verify mode, its trie. */
struct bw_built {
	struct bw_filter_map filter;
	int exact_fd;	     /* -1 without verify */
	__u64 exact_entries; /* merged prefixes in the trie */
	/* The lists' allow entries (@@||name^), for the name allowlist. */
	struct bw_list allow_names;
	struct bw_build_figures fig; /* what it came to, for the report */
};

#define BW_BUILT_INIT                                        \
	{                                                    \
		.filter = BW_FILTER_MAP_INIT, .exact_fd = -1 \
	}

void bw_built_close(struct bw_built *b);

/* Where a swap puts a built filter in. */
struct bw_swap {
	const char *iface;
	/*
	 * The new program's maps: the running program's stats and exact
	 * tries' outer map, and its allowlist or a new one.
	 */
	const struct bw_maps *maps;
	const struct bw_installer *installer;
	__u64 old_generation; /* for the messages */
};

/*
 * Swaps b in: b's exact trie into its slot of the outer map (the one the
 * running filter does not use: no packet reads it yet), then the filter
 * and its program, one update; then the slot no filter names any more is
 * cleared. Fails before the swap with nothing changed (said).
 */
int bw_swap_in(const struct bw_swap *s, const struct bw_built *b);

/*
 * Says that a failed reload left iface's running filter as it was
 * (generation 0: one the CLI could not read).
 */
void bw_say_unchanged(const char *iface, __u64 generation);

/*
 * Sets or clears BW_F_ALLOW in a filter's header: the data path skips the
 * allowlist trie without it, so it must be set before the first entry
 * counts and cleared only once the trie is empty.
 */
void bw_set_allow_flag(void *filter_mem, bool on);

/* A change to the running filter: made on a copy that is swapped in. */
struct bw_edit {
	/* Changes the copy (nblocks, extra_blocks of them new); 0 or -errno. */
	int (*edit)(void *mem, __u32 nblocks, void *ctx);
	void *ctx;
	__u32 extra_blocks;
	int allow_fd;  /* >= 0: the new program's allowlist instead */
	bool allow_on; /* with allow_fd: whether it has entries */
};

/*
 * Swaps in a copy of r's running filter with e applied, and a program for
 * it, in place of r's program: one atomic step, so a killed command leaves
 * the old filter whole. The caller holds the lock. On failure nothing has
 * changed (said).
 */
int bw_swap_running(const struct bw_running *r, const struct bw_edit *e);

#endif /* __BW_SWAP_H */
