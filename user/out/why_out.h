/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query --why, the answer: the running filter's verdict for one target
 * explained from what the list scan found (filter/why.h).
 */
#ifndef __BW_WHY_OUT_H
#define __BW_WHY_OUT_H

#include "ops/query.h"

/*
 * The answer for argument i (q) of what query read (qr, its scan of the
 * lists qr->why): the running filter's verdict explained (text lines
 * "  why: ..." after query's own line, and the JSON object "why").
 */
void bw_why_out(const struct bw_query_result *qr, const struct bw_query_arg *q,
		int i);

#endif /* __BW_WHY_OUT_H */
