// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The drop log's ring (log_ring.h).
 */
#include <errno.h>
#include <unistd.h>

#include "base/log.h"
#include "kernel/lock.h"
#include "kernel/prog.h"
#include "kernel/running.h"
#include "ops/log_ring.h"

/* The ring of what runs, and whether it logs; -errno (said) if nothing. */
static int open_ring(const struct bw_log_ring_req *rq, int *ring_id)
{
	struct bw_running r;
	int err, fd;

	err = bw_running_open(rq->iface, rq->ifindex, BW_RUN_OLD_OK, &r);
	if (err)
		return err;
	fd = r.maps.log_ring >= 0 ? dup(r.maps.log_ring) : -1;
	if (r.maps.log_ring < 0) {
		pr_warn("%s: its program has no drop log (attached by an older bloomwall); 'bloomwall reload %s LIST... --log-rate N' adds one\n",
			rq->iface, rq->iface);
		err = -ENOENT;
	} else if (!r.maps.log_rate) {
		pr_warn("%s: the drop log is off (--log-rate 0); turn it on with 'bloomwall reload %s LIST... --log-rate N'\n",
			rq->iface, rq->iface);
		err = -ENODATA;
	} else if (fd < 0) {
		err = -errno;
	}
	*ring_id = bw_obj_id(fd);
	bw_running_close(&r);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

int bw_log_ring_open(const struct bw_log_ring_req *rq, struct bw_log_ring *ring)
{
	ring->id = 0;
	ring->lock = -1;
	ring->fd = open_ring(rq, &ring->id);
	if (ring->fd < 0)
		return ring->fd;
	ring->lock = bw_lock_log_reader(rq->iface);
	if (ring->lock < 0) {
		close(ring->fd);
		ring->fd = -1;
		return ring->lock;
	}
	return 0;
}

bool bw_log_ring_live(const struct bw_log_ring_req *rq,
		      const struct bw_log_ring *ring)
{
	struct bw_running r;
	bool on;

	if (bw_running_open(rq->iface, rq->ifindex,
			    BW_RUN_OLD_OK | BW_RUN_QUIET, &r))
		return false;
	on = (int)bw_obj_id(r.maps.log_ring) == ring->id && r.maps.log_rate;
	bw_running_close(&r);
	return on;
}

void bw_log_ring_close(struct bw_log_ring *ring)
{
	if (ring->lock >= 0)
		bw_lock_release(ring->lock);
	if (ring->fd >= 0)
		close(ring->fd);
	ring->lock = ring->fd = -1;
}
