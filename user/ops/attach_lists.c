// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The attach operation (attach_lists.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <linux/if_link.h>

#include <bpf/bpf.h>

#include "base/log.h"
#include "kernel/attach.h"
#include "kernel/hook.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "kernel/prog.h"
#include "kernel/running.h"
#include "ops/attach_lists.h"

/*
 * Pins left without a program on the hook (an interrupted attach or
 * detach, a re-created interface) go, under the lock; pins of a program
 * that runs on another interface (a rename) are that one's.
 */
static int check_pins(const struct bw_attach_req *rq, bool clean)
{
	char moved[IF_NAMESIZE];

	if (!bw_pins_left(rq->iface, moved, sizeof(moved)))
		return 0;
	if (moved[0]) {
		pr_warn("%s: the bloomwall program pinned for %s runs on %s (renamed?); detach it there with 'bloomwall detach %s' first\n",
			rq->iface, rq->iface, moved, moved);
		return -EEXIST;
	}
	if (!clean)
		return 0;
	pr_warn("note: %s: removing the pins an earlier bloomwall left under %s/%s (nothing of it runs there)\n",
		rq->iface, BW_PIN_ROOT, rq->iface);
	return bw_unpin_all(rq->iface);
}

/* Refuses an interface that bloomwall (or anything but a dispatcher) holds. */
static int check_free(const struct bw_attach_req *rq, bool clean)
{
	char name[BPF_OBJ_NAME_LEN];
	struct bw_xdp_info x;
	int fd;

	fd = bw_hook_find(rq->ifindex, &x);
	if (fd >= 0) {
		close(fd);
		pr_warn("bloomwall is already attached to %s; use 'bloomwall reload %s LIST...' or 'bloomwall detach %s'\n",
			rq->iface, rq->iface, rq->iface);
		return -EEXIST;
	}
	if (fd != -ENOENT) {
		pr_warn("%s: cannot query its XDP programs: %s\n", rq->iface,
			bw_errno_hint(fd));
		return fd;
	}
	bw_prog_name(x.prog_id, name, sizeof(name));
	/* libxdp's dispatcher is made for sharing: it gets one more program. */
	if (x.prog_id && strcmp(name, "xdp_dispatcher")) {
		pr_warn("%s already has an XDP program that is not bloomwall's (id %u, '%s'); bloomwall will not replace it. Remove it first, e.g. 'ip link set dev %s %s off'.\n",
			rq->iface, x.prog_id, name, rq->iface,
			x.attach_mode == XDP_ATTACHED_SKB ? "xdpgeneric"
							  : "xdp");
		return -EEXIST;
	}
	return check_pins(rq, clean);
}

/* The lists are read and the filter built before the lock is taken. */
static int build(const struct bw_attach_req *rq, struct bw_list *allow,
		 struct bw_built *b)
{
	const struct bw_build_args *ba = rq->args;
	__u16 flags = (ba->match ?: BW_F_MATCH_SRC) |
		      (ba->monitor ? BW_F_MONITOR : 0);
	struct bw_rec_source src[BW_MAX_ALLOW_FILES];
	struct bw_build_req req;
	int err = 0;

	/* What each allowlist file was, for the filter's records. */
	if (ba->nallow)
		err = bw_load_allow_src(rq->iface, ba->allow, ba->nallow,
					ba->mask_host_bits, allow, src);
	if (err)
		return err;
	bw_build_req_from_args(&req, rq->iface, ba, rq->lists, rq->nlists,
			       BW_DEFAULT_FPR, flags, 1);
	if (rq->origin)
		req.origin = rq->origin;
	req.allow_src = ba->nallow ? src : NULL;
	req.allow_names = allow->ndom > 0;
	req.room = rq->room;
	return bw_build_lists(&req, b);
}

/*
 * The name allowlist of the program just attached: the lists' @@ entries
 * and --allow's names. A query in between meets the filter without them,
 * as one before the attach met no filter.
 */
static int fill_allow_names(const struct bw_attach_req *rq,
			    const struct bw_built *b,
			    const struct bw_list *allow)
{
	struct bw_running r;
	int err;

	if (!b->allow_names.ndom && !allow->ndom)
		return 0;
	err = bw_running_open(rq->iface, rq->ifindex, 0, &r);
	if (err)
		return err;
	err = bw_stage_allow_names(rq->iface, r.maps.allow_names,
				   &b->allow_names, allow);
	bw_running_close(&r);
	return err;
}

int bw_attach_lists(const struct bw_attach_req *rq,
		    struct bw_attach_result *res)
{
	struct bw_built b = BW_BUILT_INIT;
	struct bw_list allow;
	int lock = -1, err;

	memset(res, 0, sizeof(*res));
	bw_list_init(&allow);
	err = check_free(rq, false);
	if (err)
		goto out;
	err = build(rq, &allow, &b);
	if (!err) {
		res->built = true;
		res->build = b.fig;
		lock = bw_lock_acquire();
		err = lock < 0 ? lock : check_free(rq, true);
		if (err)
			goto out;
		if (rq->before_swap)
			err = rq->before_swap(rq->ctx, &b.fig);
		if (!err && rq->before_swap_filter)
			err = rq->before_swap_filter(rq->ctx, &b.filter);
	}
	if (!err)
		err = bw_attach(rq->iface, rq->ifindex, rq->mode, rq->own_link,
				rq->egress, &b,
				rq->args->nallow ? &allow : NULL, &res->attach);
	/* Attached: a failure here was said, and is no reason to undo. */
	if (!err) {
		res->attached = true;
		fill_allow_names(rq, &b, &allow);
	}
	if (err)
		pr_warn("%s: nothing attached\n", rq->iface);
out:
	bw_list_free(&allow);
	bw_built_close(&b);
	bw_lock_release(lock);
	return err;
}
