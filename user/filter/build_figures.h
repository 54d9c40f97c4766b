/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a build came to, kept past the build: the report prints it, watch
 * logs it.
 */
#ifndef __BW_BUILD_FIGURES_H
#define __BW_BUILD_FIGURES_H

#include <stdbool.h>
#include <linux/types.h>

#include "filter/builder.h"

/*
 * What a build came to, for its report (out/build_report.h) and for
 * watch's log line: a copy that outlives the bw_build. A filter taken
 * from an image has only its plan and image set.
 */
struct bw_build_figures {
	const char *label; /* the request's */
	const char *image; /* the image file the filter came from, or NULL */
	struct bw_plan plan;
	struct bw_build_summary sum;
	double fpr;
	__u8 dns_action;
	__u32 dns_ttl;
	bool subdomains;
	bool exact_trie;     /* verify mode's trie was made in the kernel */
	__u64 exact_entries; /* its prefixes */
};

/* f from req and b (exact_trie false: the kernel side sets it). */
void bw_build_figures_get(const struct bw_build_req *req,
			  const struct bw_build *b, struct bw_build_figures *f);

/* The entries a report names: keys at target lengths, or an image's. */
__u64 bw_build_figures_entries(const struct bw_build_figures *f);

/* The lists held no entries: the filter passes everything. */
bool bw_build_figures_empty(const struct bw_build_figures *f);

#endif /* __BW_BUILD_FIGURES_H */
