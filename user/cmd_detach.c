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
#include "output.h"
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
	if (!err) {
		bw_out_bool("interface_gone", NULL, false);
		bw_out_bool("pins_removed", NULL, false);
		bw_out_text(
			"%s: detached a bloomwall program that had lost its pins ",
			a->iface);
		bw_out_u64("program_id", "(id %llu)\n", id);
	}
	return err;
}

static int do_detach(struct bw_args *a)
{
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
	if (!bw_pin_dir_exists(a->iface)) {
		err = detach_without_pins(a);
		goto out;
	}
	err = bw_detach(a->iface, a->ifindex);
	if (!err) {
		bw_out_bool("pins_removed", NULL, true);
		bw_out_text("%s: bloomwall detached, pins removed\n", a->iface);
	}
out:
	bw_lock_release(lock);
	return err;
}

const struct bw_verb bw_verb_detach = {
	.name = "detach",
	.summary = "detach bloomwall from IFACE and remove its pins",
	.details =
		"Another XDP program on IFACE is never touched. If IFACE no longer exists,\n"
		"the pins it left behind are removed.\n"
		"With --json: {\"iface\", \"interface_gone\", \"pins_removed\"}, and \"program_id\"\n"
		"when the program detached had lost its pins (then \"pins_removed\" is false).\n",
	.opts = NULL,
	.pos = { .iface_may_vanish = true },
	.run = do_detach,
};
