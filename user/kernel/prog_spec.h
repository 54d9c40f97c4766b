/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The program made for one filter: before the load, the filter's header,
 * its regions' and DNS block's constants and the drop log's rate go into
 * the skeleton's .rodata, so the verifier inlines them (prog.h).
 */
#ifndef __BW_PROG_SPEC_H
#define __BW_PROG_SPEC_H

#include <linux/types.h>

#include "kernel/filter_map.h"

struct bloomwall;

/*
 * The drop log's rate (events a second per CPU, 0: off) for every program
 * this process loads from now on, in place of the running program's:
 * --log-rate. -1 takes that back. Rates above BW_LOG_RATE_MAX are cut.
 */
void bw_prog_set_log_rate(long rate);

/*
 * The rate a new program gets: the one set, else known (a running
 * program's, -1: none), else BW_LOG_RATE_DEFAULT.
 */
__u32 bw_prog_log_rate(long known);

/* log_consts for a rate (0: all zero, no logging code). */
struct bw_log_consts;
void bw_log_consts_init(__u32 rate, struct bw_log_consts *lc);

/* The kernel's HZ, from the coarse clock's resolution. */
__u32 bw_kernel_hz(void);

/*
 * Gives an opened, not yet loaded skeleton filter m's header as its
 * constants (filter_hdr, region_consts and dns_consts in .rodata, and
 * log_consts for bw_prog_log_rate(-1)): the
 * program is made for one filter, and must be loaded again when the header
 * or the DNS block changes (the name allowlist's flag too). -EINVAL for a
 * map that holds no valid filter, or whose header says BW_F_DNS without a
 * DNS block in the map.
 */
int bw_prog_specialise(struct bloomwall *skel, const struct bw_filter_map *m);

/* The drop log's constants and the program's variant bit, for a rate. */
void bw_prog_specialise_log(struct bloomwall *skel, __u32 rate);

#endif /* __BW_PROG_SPEC_H */
