/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Putting bloomwall into the kernel and taking it out: filters built from
 * lists into new inner maps (attach and reload share this), the program
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
#include "cli.h"
#include "swap.h"

struct bw_build_req {
	const char *iface;
	char **lists;
	int nlists;
	struct bw_build_opts opts; /* fpr, seed, flags */
	bool skip_invalid;
	__u64 generation; /* of the new filter */
};

/*
 * Request from the verb's arguments: its lists, --fpr (else fpr), --seed
 * (else random), --skip-invalid; flags as given.
 */
void bw_build_req_init(struct bw_build_req *req, const struct bw_args *a,
		       double fpr, __u16 flags, __u64 generation);

/*
 * Reads every list, sizes and fills a new mmapped inner map (m), and prints
 * a one-line summary. Nothing in the kernel changes: the caller commits m
 * or closes it. On failure m is closed.
 */
int bw_build_lists(const struct bw_build_req *req, struct bw_filter_map *m);

/* The XDP hook of an interface, as far as bloomwall cares. */
struct bw_xdp_info {
	__u32 prog_id; /* program on the hook (a dispatcher, maybe) */
	__u8 attach_mode; /* XDP_ATTACHED_* */
	bool dispatcher; /* libxdp dispatcher with our program in it */
	bool ours; /* our_id is attached, directly or not */
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
 * Opens the pinned outer map of iface and the filter in its slot (mapped
 * writable or not). Says what is missing and what to do. 0 or -errno.
 */
int bw_open_running(const char *iface, bool writable, int *outer_fd,
		    struct bw_filter_map *m);

/*
 * Loads the program with filter already in its slot, attaches it to
 * ifindex and pins prog, filter, stats (and link) under BW_PIN_ROOT/iface.
 * On failure everything is undone. The pin directory must not exist.
 */
int bw_attach(const char *iface, int ifindex, enum xdp_attach_mode mode,
	      const struct bw_filter_map *filter);

/*
 * Detaches bloomwall's program from ifindex (0: the interface is gone) and
 * removes its pins. Leaves another program alone and says so.
 */
int bw_detach(const char *iface, int ifindex);

#endif /* __BW_ATTACH_H */
