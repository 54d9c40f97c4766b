/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Putting bloomwall into the kernel and taking it out: filters built from
 * lists into new block maps (attach and reload share this), the program
 * attached through libxdp (or a plain bpf_link when libxdp cannot), the
 * state of an interface's XDP hook, and detach.
 *
 * Functions print what failed in operator words and return 0 or -errno.
 */
#ifndef __BW_ATTACH_H
#define __BW_ATTACH_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "build.h"
#include "cidr.h"
#include "cli.h"
#include "swap.h"

struct bw_build_req {
	const char *iface;
	char **lists;
	int nlists;
	struct bw_build_opts opts; /* fpr, seed, flags (BW_F_VERIFY: verify) */
	struct bw_cidr_opts cidr;  /* --max-lengths */
	bool skip_invalid;
	bool mask_host_bits;
	__u8 exact_slot;  /* verify mode: the slot the new trie goes into */
	__u64 generation; /* of the new filter */
};

/* What a build makes: the filter and, in verify mode, its exact trie. */
struct bw_built {
	struct bw_filter_map filter;
	int exact_fd;	     /* -1 without verify */
	__u64 exact_entries; /* merged prefixes in the trie */
};

#define BW_BUILT_INIT                                        \
	{                                                    \
		.filter = BW_FILTER_MAP_INIT, .exact_fd = -1 \
	}

void bw_built_close(struct bw_built *b);

/*
 * Request from the verb's arguments: its lists, --fpr (else fpr), --seed
 * (else random), --skip-invalid, --max-lengths, --mask-host-bits, --verify
 * (adds BW_F_VERIFY to flags; exact_slot 0).
 */
void bw_build_req_init(struct bw_build_req *req, const struct bw_args *a,
		       double fpr, __u16 flags, __u64 generation);

/*
 * Reads every list (addresses, prefixes, ranges), merges and expands the
 * prefixes to at most --max-lengths target lengths per family (cidr.h),
 * sizes and fills a new mmapped inner map and, in verify mode, a new exact
 * trie of the merged prefixes, and prints a one-line summary. Nothing in the
 * kernel changes: the caller commits b or closes it. On failure b is closed.
 */
int bw_build_lists(const struct bw_build_req *req, struct bw_built *b);

/* Where a reload swaps a built filter in, and what else it changes. */
struct bw_swap {
	const char *iface;
	const struct bw_maps *maps; /* what the new program shares */
	const struct bw_installer
		*installer; /* where it goes: bw_hook_installer */
	int exact_fd; /* the exact tries' outer map, -1 if none is pinned */
	int allow_fd; /* -1: the allowlist stays as it is */
	const struct bw_list *allow; /* the new allowlist (allow_fd >= 0) */
	__u64 old_generation;	     /* for the messages */
};

/*
 * Says that a failed reload left iface's running filter as it was
 * (generation 0: one the CLI could not read).
 */
void bw_say_unchanged(const char *iface, __u64 generation);

/*
 * Swaps b in, in the order that never shows a packet a half-applied state:
 * b's exact trie into its slot (the one the running filter does not use)
 * and the new allowlist entries first; then the filter, one update; then
 * the trie slot(s) no filter names any more are cleared and the allowlist
 * entries not in the new list deleted. Fails before the swap with nothing
 * changed (but allowlist additions, which it says). Prints what it did.
 */
int bw_swap_in(const struct bw_swap *s, const struct bw_built *b);

/*
 * Reads allowlist files (same formats as the lists, no expansion) into l,
 * finished. Bad lines: file:line, -EINVAL. More than BW_ALLOW_MAX entries:
 * -E2BIG. Says what failed.
 */
int bw_load_allow(const char *iface, const char *const *files, int n,
		  bool mask_host_bits, struct bw_list *l);

/*
 * Opens a pinned map of iface (allow, exact): fd, or -errno after saying
 * what is missing and what to do.
 */
int bw_open_pinned_map(const char *iface, const char *name);

/* Opens every pinned map a program shares (swap.h); closes all on failure. */
int bw_open_maps(const char *iface, struct bw_maps *mp);

/* The XDP hook of an interface, as far as bloomwall cares. */
struct bw_xdp_info {
	__u32 prog_id;	  /* program on the hook (a dispatcher, maybe) */
	__u8 attach_mode; /* XDP_ATTACHED_* */
	bool dispatcher;  /* libxdp dispatcher with our program in it */
	bool ours;	  /* our_id is attached, directly or not */
};

int bw_xdp_info(int ifindex, __u32 our_id, struct bw_xdp_info *x);
const char *bw_attached_mode_name(__u8 attach_mode);

/* Kernel id of a program or map fd; 0 on error. */
__u32 bw_obj_id(int fd);

/* Name of the program with this id into buf ("" when unknown). */
const char *bw_prog_name(__u32 id, char *buf, size_t len);

/*
 * The program directly on ifindex's hook if it is a bloomwall program
 * nobody pinned (its pins were lost, e.g. with a private bpffs): its id,
 * else 0.
 */
__u32 bw_unpinned_prog(int ifindex);

/* Detaches such a program (and only it) from ifindex. */
int bw_detach_unpinned(const char *iface, int ifindex, __u32 id);

/* Says why iface has no bloomwall pins and what to do; returns -ENOENT. */
int bw_explain_not_attached(const char *iface);

/*
 * Opens the pinned filter registry of iface and the filter it names (mapped
 * writable or not). Says what is missing and what to do. 0 or -errno.
 */
int bw_open_running(const char *iface, bool writable, int *registry_fd,
		    struct bw_filter_map *m);

/*
 * bw_open_running for reload, read-only: -EINVAL, quietly, when the filter
 * is there but not one this bloomwall can read (corrupt, or another format
 * version), so that a reload can replace it.
 */
int bw_open_running_or_invalid(const char *iface, int *registry_fd,
			       struct bw_filter_map *m);

/*
 * Sets or clears BW_F_ALLOW in a filter's header (a new one, or the running
 * one mmapped writable): the data path skips the allowlist trie without it,
 * so it must be set before the first entry counts and cleared only once the
 * trie is empty.
 */
void bw_set_allow_flag(void *filter_mem, bool on);

/*
 * Sets or clears BW_F_ALLOW in iface's running filter and loads the program
 * again for it (the data path reads the flags as constants of its own).
 * Nothing changes if the flag already says so; on failure the filter and
 * the program stay as they were.
 */
int bw_running_allow_flag(const char *iface, int ifindex, bool on);

/*
 * Loads the program with the built filter as its own map (and its exact
 * trie in slot b->filter header's exact_slot, in verify mode) and the
 * allowlist filled, attaches it to ifindex (through libxdp, or a bpf_link
 * of our own when own_link or when libxdp fails) and pins prog, filter,
 * stats, allow, exact (and link) under BW_PIN_ROOT/iface. allow may be
 * NULL. On failure everything is undone. The pin directory must not exist.
 */
int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      bool own_link, const struct bw_built *b,
	      const struct bw_list *allow);

/* How a reload puts its new program on the interface. */
struct bw_hook {
	const char *iface;
	int ifindex;
};

/*
 * An installer (swap.h) that replaces bloomwall's program on hook's
 * interface with the new one, atomically: bpf_link_update when bloomwall
 * holds the link, XDP_FLAGS_REPLACE on a plain attach. Behind a libxdp
 * dispatcher the new program is added before the old one is removed, so a
 * packet in between meets both filters, never neither. The prog pin then
 * names the new program (renamed into place). A program no longer on the
 * hook is only re-pinned.
 */
void bw_hook_installer(struct bw_hook *hook, struct bw_installer *in);

/*
 * Detaches bloomwall's program from ifindex (0: the interface is gone) and
 * removes its pins. Leaves another program alone and says so.
 */
int bw_detach(const char *iface, int ifindex);

#endif /* __BW_ATTACH_H */
