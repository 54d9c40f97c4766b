/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * status' Egress section (attach --egress): the TC egress program, its
 * counters, who tried (the local sources of the packets it stopped), and
 * the kernel memory of both hooks.
 */
#ifndef __BW_EGRESS_VIEW_H
#define __BW_EGRESS_VIEW_H

#include <stdio.h>

struct bw_status_view;

void bw_status_out_egress(const struct bw_status_view *v);

/*
 * The metrics of the same: bloomwall_kernel_memory_bytes{iface} (both
 * programs' maps), and with an egress program
 * bloomwall_egress_packets_total{iface, counter} (egress_stats' fields)
 * and bloomwall_egress_tried_packets{iface, source} (who tried, the top
 * BW_STATUS_WHO; a gauge: the LRU forgets a source it has no room for).
 */
void bw_egress_metrics_write(FILE *f, const struct bw_status_view *v);

#endif /* __BW_EGRESS_VIEW_H */
