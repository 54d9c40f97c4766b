/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * watch's CrowdSec options (--crowdsec URL and the rest): their ids (from
 * BW_OPT_CS_FIRST on, clear of cli.h's and ops_args.h's), what they parse
 * into, and their parser, which cli.c hands every id of that range. The
 * table of them is cmd_watch.c's.
 */
#ifndef __BW_CS_ARGS_H
#define __BW_CS_ARGS_H

#include <stdbool.h>

#include "daemon/crowdsec.h"

enum bw_cs_opt_id {
	BW_OPT_CS_FIRST = 1280,
	BW_OPT_CROWDSEC = BW_OPT_CS_FIRST,
	BW_OPT_CS_KEY_FILE,
	BW_OPT_CS_CERT,
	BW_OPT_CS_CERT_KEY,
	BW_OPT_CS_CA,
	BW_OPT_CS_UPDATE_FREQUENCY,
	BW_OPT_CS_TYPES,
	BW_OPT_CS_ORIGINS,
	BW_OPT_CS_SCENARIOS_IN,
	BW_OPT_CS_SCENARIOS_OUT,
	BW_OPT_CS_WIDEST,
	BW_OPT_CS_TIMEOUT,
};

struct bw_cs_args {
	struct bw_cs_cfg cfg;
	bool any; /* some CrowdSec option was given */
};

/* 0, or -BW_EUSAGE after saying what is wrong with verb's option id. */
int bw_cs_opt(const char *verb, struct bw_cs_args *a, int id, const char *arg);

/* The source's options, NULL without --crowdsec (-BW_EUSAGE in *err when
 * other CrowdSec options came without it, said). */
const struct bw_cs_cfg *bw_cs_args_cfg(const struct bw_cs_args *a, int *err);

#endif /* __BW_CS_ARGS_H */
