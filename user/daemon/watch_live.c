// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The watch's live figures and rate check (watch_live.h). */
#include "daemon/live_view.h"
#include "daemon/watch_live.h"

void bw_watch_live_counts(struct bw_watch_counts *c, const struct bw_wlive *l,
			  struct bw_watch_cs *cs)
{
	struct bw_wlive_stats s;

	bw_wlive_stats(l, &s);
	c->live = true;
	c->live_entries = s.entries;
	c->live_keys = s.keys;
	c->live_bytes = s.bytes;
	c->live_adds = s.adds;
	c->live_deletes = s.deletes;
	c->live_expired = s.expired;
	c->cs = bw_watch_cs_metrics(cs);
}

int bw_watch_over_target(const struct bw_status_view *v)
{
	double target = bw_info_fpr(&v->info);
	int f;

	for (f = 0; f < BW_FAMILIES; f++)
		if (v->fam_fpr[f] > 2 * target)
			return f;
	return -1;
}
