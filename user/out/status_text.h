/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What status and inspect both print of a filter, through the output
 * layer (text and JSON alike): the address regions, the names, and the
 * words and rows they share.
 */
#ifndef __BW_STATUS_TEXT_H
#define __BW_STATUS_TEXT_H

#include <linux/types.h>

struct bw_status_view;

/* "src", "dst" or "both": the addresses --match tests. */
const char *bw_match_name(__u16 flags);

/* "ipv4" or "ipv6": a family's JSON key. */
const char *bw_status_family_key(int f);

/* A line whose value is the JSON value too: "    label    %'llu". */
void bw_status_kv_u64(const char *label, const char *key, unsigned long long v);

/* The regions' table and the per-family rates. */
void bw_status_out_regions(const struct bw_status_view *v);

/* The Names section. */
void bw_status_out_names(const struct bw_status_view *v);

#endif /* __BW_STATUS_TEXT_H */
