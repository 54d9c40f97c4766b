/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query --why, the answer: the running filter's verdict for one target
 * explained from what the list scan found (filter/why.h).
 */
#ifndef __BW_WHY_OUT_H
#define __BW_WHY_OUT_H

#include "filter/why.h"

struct bw_running;

/*
 * The answer for target i of w: the running filter's verdict explained
 * (text lines "  why: ..." after query's own line, and the JSON object
 * "why"). rec: the filter's records (runtime adds).
 */
void bw_why_out(const struct bw_why *w, int i, const struct bw_running *rn,
		const struct bw_records *rec);

#endif /* __BW_WHY_OUT_H */
