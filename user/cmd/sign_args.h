/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The options of signed images (build --sign-key --serial, load, inspect
 * and watch --verify-key, --allow-rollback, keygen --force): their ids
 * (from BW_OPT_SIGN_FIRST on, clear of cli.h's and ops_args.h's), what
 * they parse into and their parser, which cli.c hands every id of that
 * range. The tables are in sign_opts.h.
 */
#ifndef __BW_SIGN_ARGS_H
#define __BW_SIGN_ARGS_H

#include <stdbool.h>
#include <linux/types.h>

enum bw_sign_opt_id {
	BW_OPT_SIGN_FIRST = 768,
	BW_OPT_SIGN_KEY = BW_OPT_SIGN_FIRST,
	BW_OPT_SERIAL,
	BW_OPT_VERIFY_KEY,
	BW_OPT_ALLOW_ROLLBACK,
	BW_OPT_FORCE,
};

struct bw_sign_args {
	const char *sign_key; /* build --sign-key SECRET */
	__u64 serial;	      /* build --serial N */
	bool serial_set;
	const char *verify_key; /* --verify-key PUBLIC */
	bool allow_rollback;	/* load, watch --allow-rollback */
	bool force;		/* keygen --force */
};

/* 0, or -BW_EUSAGE after saying what is wrong with verb's option id. */
int bw_sign_opt(const char *verb, struct bw_sign_args *s, int id,
		const char *arg);

#endif /* __BW_SIGN_ARGS_H */
