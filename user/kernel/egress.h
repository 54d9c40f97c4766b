/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An interface's TC egress hook (attach --egress): bloomwall's SCHED_CLS
 * program on the clsact qdisc's egress side, at its own handle and
 * priority, through libbpf's bpf_tc_* calls (netlink). The program is
 * loaded with the XDP program, from one object, for the same filter
 * (bw_prog_load_pair): one filter map, two hooks.
 *
 * The hook is the truth here too: what runs at bloomwall's handle is read
 * from the interface (bpf_tc_query), and from the program its maps.
 *
 * int functions return 0 or -errno and print nothing.
 */
#ifndef __BW_EGRESS_H
#define __BW_EGRESS_H

#include <stdbool.h>
#include <linux/types.h>

#include "bloomwall.h"

/* Where bloomwall's filter sits among the egress hook's filters. */
#define BW_TC_HANDLE 0xb1f
#define BW_TC_PRIORITY 0xb1f

/* The program name bpftool lists for the egress program. */
#define BW_TC_PROG_NAME "bloomwall_tc"

/* What an interface's egress hook runs of bloomwall's. */
struct bw_egress {
	int prog_fd; /* -1: nothing of ours at BW_TC_HANDLE */
	__u32 prog_id;
	int stats;	 /* its own maps: egress_stats, */
	int who;	 /* egress_who (-1: not found) */
	int dns;	 /* egress_dns (-1: a program from before it) */
	__u32 filter_id; /* the filter map it reads (0: none found) */
};

#define BW_EGRESS_INIT                                           \
	{                                                        \
		.prog_fd = -1, .stats = -1, .who = -1, .dns = -1 \
	}

void bw_egress_close(struct bw_egress *e);

/*
 * What ifindex's egress hook runs at bloomwall's handle: 0 with e filled,
 * -ENOENT when nothing runs there or it is not bloomwall's program.
 */
int bw_egress_find(int ifindex, struct bw_egress *e);

/*
 * Puts prog_fd at bloomwall's handle on ifindex's egress hook (the clsact
 * qdisc is created if the interface has none), replacing what is there:
 * one netlink request, the kernel swaps the filter's program atomically.
 */
int bw_egress_attach(int ifindex, int prog_fd);

/*
 * Takes bloomwall's filter off ifindex's egress hook. The clsact qdisc
 * stays (other filters may be on it). -ENOENT when none was there.
 */
int bw_egress_detach(int ifindex);

/*
 * The kernel memory of both programs' maps, each map once, as bpftool
 * counts it (bytes_memlock): *all for the maps of xdp_fd and tc_fd (-1:
 * none), *tc_alone for those only tc_fd has. 0 or -errno.
 */
int bw_hooks_memlock(int xdp_fd, int tc_fd, long long *all,
		     long long *tc_alone);

/* One row of who tried: a local source and its packets to listed places. */
struct bw_who_row {
	struct bw_who_key key;
	__u64 packets;
};

/*
 * The sources in egress_who (fd) with the most packets, at most max of
 * them, most first: their number, or -errno. stats_fd: egress_stats,
 * whose CPUs' latest sources are added (-1: none, as for ingress_who; a
 * program from before them has none there either).
 */
int bw_who_top(int fd, int stats_fd, struct bw_who_row *rows, int max);

#endif /* __BW_EGRESS_H */
