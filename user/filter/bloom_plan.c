// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A whole filter: the address regions (bloom_size.c, bloom.c), then the
 * name regions after them (bloom_names.c).
 */
#include <string.h>

#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/bloom_plan.h"
#include "filter/bloom_size.h"

int bw_plan_filter(const struct bw_list *l, const struct bw_build_opts *o,
		   struct bw_plan *plan)
{
	int err;

	err = bw_plan_prefixes(l, o, plan);
	if (err)
		return err;
	err = bw_plan_names(l, o, plan);
	if (err)
		return err;
	plan->info.entries = l->n4 + l->n6;
	plan->info.source_entries = l->n4 + l->n6;
	bw_info_set_fpr(&plan->info, o->fpr);
	return 0;
}

void bw_fill_filter(void *mem, const struct bw_plan *plan,
		    const struct bw_list *l)
{
	memcpy(mem, &plan->hdr, sizeof(plan->hdr));
	memcpy(bw_block_at(mem, 1), &plan->info, sizeof(plan->info));
	bw_fill_prefixes(mem, l);
	bw_fill_names(mem, plan, l);
}
