/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query --why's and the drop log's CrowdSec lines: the decisions of a
 * running watch's CrowdSec source covering an address, as ops/query.h
 * (bw_query_cs_why) read them from the watch's answer to "why"
 * (base/run_ask.h).
 */
#ifndef __BW_CS_WHY_H
#define __BW_CS_WHY_H

#include <stddef.h>

#include "ops/query.h"

/*
 * Prints the decisions w holds for its address i under query's line
 * ("  why: CrowdSec decision ID: ..." a decision; JSON: "crowdsec"
 * {"url", "decisions": [...], "more"}). Returns how many decisions cover
 * it: 0 (nothing printed) when none, or no watch with a source answered.
 */
int bw_cs_why_out(const struct bw_cs_why *w, size_t i);

#endif /* __BW_CS_WHY_H */
