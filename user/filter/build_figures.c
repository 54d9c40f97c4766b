// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A build's figures (build_figures.h).
 */
#include <string.h>

#include "filter/build_figures.h"

void bw_build_figures_get(const struct bw_build_req *req,
			  const struct bw_build *b, struct bw_build_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->label = req->label;
	f->plan = b->plan;
	f->sum = b->sum;
	f->fpr = req->opts.fpr;
	f->dns_action = req->opts.dns_action;
	f->dns_ttl = req->opts.dns_ttl;
	f->subdomains = req->subdomains;
}

__u64 bw_build_figures_entries(const struct bw_build_figures *f)
{
	return f->image ? f->plan.info.entries : f->sum.entries;
}

bool bw_build_figures_empty(const struct bw_build_figures *f)
{
	return !f->sum.entries && !f->sum.names.exact && !f->sum.names.subtree;
}
