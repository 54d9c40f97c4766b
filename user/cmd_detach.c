// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall detach IFACE: program off the hook, pins removed.
 */
#include <errno.h>
#include <stdio.h>

#include "attach.h"
#include "cli.h"
#include "hook.h"
#include "log.h"
#include "pin.h"

/* No pins: maybe a bloomwall program whose pins were lost, else nothing. */
static int detach_without_pins(const struct bw_args *a)
{
	__u32 id = a->ifindex ? bw_unpinned_prog(a->ifindex) : 0;
	int err;

	if (!id) {
		pr_warn("bloomwall is not attached to %s; nothing to detach (see 'bloomwall status')\n",
			a->iface);
		return -ENOENT;
	}
	err = bw_detach_unpinned(a->iface, a->ifindex, id);
	if (!err)
		printf("%s: detached a bloomwall program that had lost its pins (id %u)\n",
		       a->iface, id);
	return err;
}

static int do_detach(struct bw_args *a)
{
	int lock, err;

	/* A vanished interface is fine only if it left pins to clean. */
	if (!a->ifindex && !bw_pin_dir_exists(a->iface))
		return bw_parse_iface(a->iface, &a->ifindex);
	err = bw_check_privileges("detach");
	if (err)
		return err;
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	if (!bw_pin_dir_exists(a->iface)) {
		err = detach_without_pins(a);
		goto out;
	}
	err = bw_detach(a->iface, a->ifindex);
	if (!err)
		printf("%s: bloomwall detached, pins removed\n", a->iface);
out:
	bw_lock_release(lock);
	return err;
}

const struct bw_verb bw_verb_detach = {
	.name = "detach",
	.summary = "detach bloomwall from IFACE and remove its pins",
	.details =
		"Another XDP program on IFACE is never touched. If IFACE no longer exists,\n"
		"the pins it left behind are removed.\n",
	.opts = NULL,
	.pos = { .iface_may_vanish = true },
	.run = do_detach,
};
