// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Kept adds taken out of the running filter's records in place (remove_mark.h). */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "filter/records_gone.h"
#include "kernel/filter_map.h"
#include "kernel/lock.h"
#include "kernel/running.h"
#include "ops/remove_mark.h"

/* Every entry in one walk of the area: a bulk remove is linear. */
static int mark_all(const struct bw_mark_req *rq, struct bw_filter_map *m,
		    struct bw_mark_result *res)
{
	long k = bw_records_mark_gone_all(m->mem, m->nblocks, rq->entries,
					  res->found);

	if (k < 0) {
		pr_warn("%s: the running filter's records cannot be read: %s; nothing removed\n",
			rq->iface, strerror((int)-k));
		return (int)k;
	}
	res->marked = (size_t)k;
	return 0;
}

static int mark_locked(const struct bw_mark_req *rq, struct bw_mark_result *res)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_running r;
	int err;

	err = bw_running_open(rq->iface, rq->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err) {
		res->generation = bw_running_info(&r)->generation;
		err = bw_filter_open_id(r.filter.id, true, &m);
		if (err)
			pr_warn("%s: cannot open the running filter to write: %s\n",
				rq->iface, bw_errno_hint(err));
	}
	if (!err)
		err = mark_all(rq, &m, res);
	bw_filter_close(&m);
	bw_running_close(&r);
	return err;
}

int bw_remove_mark(const struct bw_mark_req *rq, struct bw_mark_result *res)
{
	int lock, err;

	res->marked = 0;
	res->watch_gone = false;
	memset(res->found, 0, rq->entries->n * sizeof(*res->found));
	lock = bw_lock_acquire();
	err = lock < 0 ? lock : mark_locked(rq, res);
	bw_lock_release(lock);
	if (!err && res->marked)
		res->watch_gone = bw_lock_watch_holder(rq->iface) <= 0;
	return err;
}
