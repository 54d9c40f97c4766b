/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Both hooks or neither: a change that puts programs on an interface's
 * XDP hook and its TC egress hook (attach --egress, a swap, detach) is
 * two kernel requests, and no kernel call changes two hooks at once. The
 * XDP hook is the commit point: once it runs the new program, the change
 * is made, and the egress hook follows it.
 *
 * A guard is a small child process forked before the first hook is
 * touched. It holds the lock (a flock belongs to the open file, which it
 * shares), the egress programs of both states (so neither is freed), and
 * one end of a socket pair. The command commits by sending on it when
 * both hooks are done; a command that ends any other way (killed, failed
 * midway) closes its end by exiting or by bw_guard_end(), and the guard
 * then gives the egress hook the program that goes with what the XDP hook
 * runs (one netlink request, which rolls forward or back as the XDP hook
 * says), and exits, which frees the lock. So once the lock is free, both
 * hooks are old or both new.
 *
 * The guard ignores the signals a terminal or a service manager sends to
 * a whole group (SIGINT, SIGTERM, SIGHUP): SIGKILL to the command's whole
 * process group or cgroup at once kills the guard too, and then the next
 * command that repairs (BW_RUN_REPAIR) brings the egress hook along.
 */
#ifndef __BW_HOOKS_GUARD_H
#define __BW_HOOKS_GUARD_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/* One end of a change: what the XDP hook runs, and the egress program with it. */
struct bw_hooks_state {
	__u32 xdp_id; /* bloomwall's XDP program; 0: none */
	int tc_fd;    /* the egress program that goes with it; -1: none */
};

struct bw_guard {
	pid_t pid; /* 0: no guard (nothing to guard, or no fork) */
	int fd;	   /* the command's end of the socket pair */
};

#define BW_GUARD_INIT              \
	{                          \
		.pid = 0, .fd = -1 \
	}

/*
 * Forks the guard of ifindex's change from old to new (iface: for its
 * messages). Nothing to guard (neither state has an egress program): no
 * fork, 0. The guard keeps no other descriptor of the command's: a
 * bpf_link the command holds unpinned dies with the command, as it would
 * without a guard. 0 or -errno (said); the caller holds the lock
 * (bw_lock_acquire), which the guard then holds with it.
 */
int bw_guard_start(struct bw_guard *g, const char *iface, int ifindex,
		   const struct bw_hooks_state *old,
		   const struct bw_hooks_state *new);

/*
 * Ends the guard and waits for it: committed, it exits at once; else it
 * first brings the egress hook to what the XDP hook runs (said).
 */
void bw_guard_end(struct bw_guard *g, bool committed);

#endif /* __BW_HOOKS_GUARD_H */
