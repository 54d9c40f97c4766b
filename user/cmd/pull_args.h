/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * watch --url's options (daemon/pull.h): their ids (from BW_OPT_PULL_FIRST
 * on, above ops_args.h's and sign_args.h's) and their parser, which cli.c hands every id of
 * that range.
 */
#ifndef __BW_PULL_ARGS_H
#define __BW_PULL_ARGS_H

#include "daemon/pull.h"

enum bw_pull_opt_id {
	BW_OPT_PULL_FIRST = 1024,
	BW_OPT_URL = BW_OPT_PULL_FIRST,
	BW_OPT_CA_FILE,
	BW_OPT_CLIENT_CERT,
	BW_OPT_CLIENT_KEY,
	BW_OPT_CONNECT_TIMEOUT,
	BW_OPT_PULL_TIMEOUT,
	BW_OPT_STATE_DIR,
};

/* 0, or -BW_EUSAGE after saying what is wrong with option id. */
int bw_pull_opt(const char *verb, struct bw_pull_cfg *c, int id,
		const char *arg);

#endif /* __BW_PULL_ARGS_H */
