/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * status' Egress section (attach --egress): the TC egress program, its
 * counters, who tried (the local sources of the packets it stopped), and
 * the kernel memory of both hooks.
 */
#ifndef __BW_EGRESS_VIEW_H
#define __BW_EGRESS_VIEW_H

struct bw_status_view;

void bw_status_out_egress(const struct bw_status_view *v);

#endif /* __BW_EGRESS_VIEW_H */
