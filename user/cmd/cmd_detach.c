// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall detach IFACE: program off the hook, pins removed.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>

#include "kernel/attach.h"
#include "cmd/cli.h"
#include "cmd/cmd_detach.h"
#include "kernel/hook.h"
#include "base/log.h"
#include "base/output.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "kernel/running.h"

/*
 * The hook runs no bloomwall program: remove what pins it left, unless
 * they name a program that runs on another interface (a rename).
 */
static int detach_leftovers(const struct bw_args *a)
{
	char moved[IF_NAMESIZE];

	if (!bw_pins_left(a->iface, moved, sizeof(moved))) {
		pr_warn("bloomwall is not attached to %s; nothing to detach (see 'bloomwall status')\n",
			a->iface);
		return -ENOENT;
	}
	if (moved[0]) {
		pr_warn("%s: bloomwall is not attached here; the program pinned for %s runs on %s (renamed?): 'bloomwall detach %s' detaches it\n",
			a->iface, a->iface, moved, moved);
		return -ENOENT;
	}
	if (bw_unpin_all(a->iface))
		return -EIO;
	bw_out_bool("interface_gone", NULL, !a->ifindex);
	bw_out_bool("pins_removed", NULL, true);
	if (!a->ifindex)
		bw_out_text(
			"%s: the interface is gone; removed the pins it left behind\n",
			a->iface);
	else
		bw_out_text(
			"%s: bloomwall was not attached; removed the pins left behind\n",
			a->iface);
	return 0;
}

static int do_detach(struct bw_args *a)
{
	struct bw_running r;
	int lock, err;

	bw_out_string("iface", NULL, a->iface);
	/* A vanished interface is fine only if it left pins to clean. */
	if (!a->ifindex && !bw_pin_dir_exists(a->iface))
		return bw_parse_iface(a->iface, &a->ifindex);
	err = bw_check_privileges("detach");
	if (err)
		return err;
	lock = bw_lock_acquire();
	if (lock < 0)
		return lock;
	err = bw_running_open(a->iface, a->ifindex,
			      BW_RUN_QUIET | BW_RUN_OLD_OK, &r);
	if (err == -ENOENT) {
		err = detach_leftovers(a);
		goto out;
	}
	if (!err)
		err = bw_detach(&r);
	if (!err) {
		bw_out_bool("interface_gone", NULL, false);
		bw_out_bool("pins_removed", NULL, true);
		bw_out_text("%s: bloomwall detached, pins removed\n", a->iface);
	}
	bw_running_close(&r);
out:
	bw_lock_release(lock);
	return err;
}

const struct bw_verb bw_verb_detach = {
	.name = "detach",
	.summary = "detach bloomwall from IFACE and remove its pins",
	.details =
		"Another XDP program on IFACE is never touched. Pins that IFACE left behind\n"
		"(the interface is gone or was re-created, or a command was interrupted)\n"
		"are removed; pins of a program that now runs on another interface (IFACE\n"
		"was renamed) are kept, and the message names that interface.\n"
		"With --json: {\"iface\", \"interface_gone\", \"pins_removed\"}.\n",
	.opts = NULL,
	.pos = { .iface_may_vanish = true },
	.run = do_detach,
};
