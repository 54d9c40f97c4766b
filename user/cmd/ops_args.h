/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The options of the operations verbs, watch and stats: their ids (from
 * BW_OPT_OPS_FIRST on, clear of cli.h's own), what they parse into, and
 * their parser, which cli.c hands every id of that range.
 */
#ifndef __BW_OPS_ARGS_H
#define __BW_OPS_ARGS_H

#include <stdbool.h>

enum bw_ops_opt_id {
	BW_OPT_OPS_FIRST = 512,
	BW_OPT_PROMETHEUS = BW_OPT_OPS_FIRST,
	BW_OPT_INTERVAL,
	BW_OPT_IMAGE,
	BW_OPT_DETACH_ON_EXIT,
	BW_OPT_METRICS_FILE,
	BW_OPT_DEBOUNCE,
	BW_OPT_ALLOW_SHRINK,
};

struct bw_ops_args {
	bool prometheus;	  /* stats --prometheus */
	double interval;	  /* stats: rates every SECS; watch: its tick */
	const char *image;	  /* watch --image FILE */
	bool detach_on_exit;	  /* watch --detach-on-exit */
	const char *metrics_file; /* watch --metrics-file PATH */
	double debounce;	  /* watch --debounce SECS */
	bool debounce_set;
	bool allow_shrink; /* watch --allow-shrink */
};

/* 0, or -BW_EUSAGE after saying what is wrong with verb's option id. */
int bw_ops_opt(const char *verb, struct bw_ops_args *o, int id,
	       const char *arg);

#endif /* __BW_OPS_ARGS_H */
