// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall detach IFACE: program off the hook, pins removed.
 */
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_detach.h"
#include "base/output.h"
#include "ops/detach.h"
#include "ops/status.h"
#include "out/op_report.h"

static int do_detach(struct bw_args *a)
{
	struct bw_detach_req rq = { .iface = a->iface, .ifindex = a->ifindex };
	struct bw_detach_result res;
	int err;

	bw_out_string("iface", NULL, a->iface);
	/* A vanished interface is fine only if it left pins to clean. */
	if (!a->ifindex && !bw_status_pinned(a->iface))
		return bw_parse_iface(a->iface, &a->ifindex);
	err = bw_check_privileges("detach");
	if (err)
		return err;
	err = bw_detach_iface(&rq, &res);
	bw_detach_report(a->iface, &res);
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
