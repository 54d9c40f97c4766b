/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The report of a build from lists: what the lists came to, the filter's
 * size and probes, as text or JSON.
 */
#ifndef __BW_BUILD_REPORT_H
#define __BW_BUILD_REPORT_H

#include "filter/builder.h"

/*
 * Prints a build's one line: "LABEL: filter generation N: ... target fpr
 * P%"; JSON the object "filter" with the same figures. Warns when the lists
 * hold no entries.
 */
void bw_build_report(const struct bw_build_req *req, const struct bw_build *b);

#endif /* __BW_BUILD_REPORT_H */
