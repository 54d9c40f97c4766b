// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Parsing the options of watch and stats (ops_args.h).
 */

#include "cmd/args.h"
#include "base/log.h"
#include "cmd/ops_args.h"

int bw_ops_opt(const char *verb, struct bw_ops_args *o, int id, const char *arg)
{
	switch (id) {
	case BW_OPT_PROMETHEUS:
		o->prometheus = true;
		return 0;
	case BW_OPT_INTERVAL:
		return bw_parse_seconds(verb, "--interval", arg, 0.01,
					&o->interval);
	case BW_OPT_IMAGE:
		o->image = arg;
		return 0;
	case BW_OPT_DETACH_ON_EXIT:
		o->detach_on_exit = true;
		return 0;
	case BW_OPT_METRICS_FILE:
		o->metrics_file = arg;
		return 0;
	case BW_OPT_DEBOUNCE:
		o->debounce_set = true;
		return bw_parse_seconds(verb, "--debounce", arg, 0.0,
					&o->debounce);
	case BW_OPT_ALLOW_SHRINK:
		o->allow_shrink = true;
		return 0;
	}
	pr_warn("bloomwall %s: internal error: unhandled option\n", verb);
	return -BW_EUSAGE;
}
