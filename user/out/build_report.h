/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The report of a build, from lists or an image: what the lists came to,
 * the filter's size and probes, as text or JSON.
 */
#ifndef __BW_BUILD_REPORT_H
#define __BW_BUILD_REPORT_H

#include "filter/builder.h"

/*
 * Prints a build's one line: "LABEL: filter generation N: ... target fpr
 * P%" (from an image: "... from image PATH: ..."), and with names a line
 * of them; JSON the object "filter" with the same figures ("names").
 * Then, with its exact trie, "LABEL: verify mode: ..." ("verify"). Warns
 * when the lists hold no entries.
 */
void bw_build_report(const struct bw_build_figures *f);

#endif /* __BW_BUILD_REPORT_H */
