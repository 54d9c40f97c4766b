/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query's answer for one argument, from what ops/query.h read: the data
 * path's decision, in its order, by the flags the running program was
 * loaded with; text a line ("ADDR  drop (in blocklist /32 region)"),
 * JSON the fields of the argument's object, which the caller has open.
 */
#ifndef __BW_QUERY_VIEW_H
#define __BW_QUERY_VIEW_H

#include "ops/query.h"

/* An address (addr as given): {address, verdict, reason, region, ...}. */
void bw_query_out_addr(const char *addr, const struct bw_query_result *qr,
		       const struct bw_query_arg *q);

/* A name (arg as given): {name, verdict, reason, entry, suffix, ...}. */
void bw_query_out_name(const char *arg, const struct bw_query_result *qr,
		       const struct bw_query_arg *q);

/*
 * query --why's first line for an address the filter holds: which hooks
 * drop it, in which direction, as which end of the packet ("  why:
 * dropped as a source on ingress (XDP), ..."; JSON "hooks" in the why
 * object the caller has open). Nothing for a hit that passes anyway.
 */
void bw_query_out_hooks(const struct bw_query_result *qr,
			const struct bw_query_arg *q);

#endif /* __BW_QUERY_VIEW_H */
