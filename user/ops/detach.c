// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The detach operation (detach.h).
 */
#include <errno.h>
#include <string.h>
#include <net/if.h>

#include "base/log.h"
#include "kernel/attach.h"
#include "kernel/egress.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "kernel/running.h"
#include "ops/detach.h"

/*
 * The hook runs no bloomwall program: remove what pins it left, unless
 * they name a program that runs on another interface (a rename).
 */
static int detach_leftovers(const struct bw_detach_req *rq,
			    struct bw_detach_result *res)
{
	char moved[IF_NAMESIZE];
	struct bw_egress e;

	/* An attach --egress cut short after the egress hook. */
	if (rq->ifindex && !bw_egress_find(rq->ifindex, &e)) {
		bw_egress_close(&e);
		if (!bw_egress_detach(rq->ifindex))
			res->detached = true;
	}
	if (!bw_pins_left(rq->iface, moved, sizeof(moved))) {
		if (res->detached)
			return 0;
		pr_warn("bloomwall is not attached to %s; nothing to detach (see 'bloomwall status')\n",
			rq->iface);
		return -ENOENT;
	}
	if (moved[0]) {
		pr_warn("%s: bloomwall is not attached here; the program pinned for %s runs on %s (renamed?): 'bloomwall detach %s' detaches it\n",
			rq->iface, rq->iface, moved, moved);
		return -ENOENT;
	}
	if (bw_unpin_all(rq->iface))
		return -EIO;
	res->pins_removed = true;
	res->interface_gone = !rq->ifindex;
	return 0;
}

int bw_detach_iface(const struct bw_detach_req *rq,
		    struct bw_detach_result *res)
{
	struct bw_running r;
	int lock, err;

	memset(res, 0, sizeof(*res));
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	err = bw_running_open(rq->iface, rq->ifindex,
			      BW_RUN_QUIET | BW_RUN_OLD_OK, &r);
	if (err == -ENOENT) {
		err = detach_leftovers(rq, res);
		goto out;
	}
	if (!err)
		err = bw_detach(&r);
	if (!err) {
		res->detached = true;
		res->pins_removed = true;
	}
	bw_running_close(&r);
out:
	/* What a killed watch left: no watch holds it (said in lock.h). */
	bw_lock_watch_clear(rq->iface);
	bw_lock_release(lock);
	return err;
}
