/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * One section of the table: build (set.c), check and time (run.c).
 */
#ifndef __BW_BENCH_SET_H
#define __BW_BENCH_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bench.h"

struct bench;

/* Builds every structure for keys, checks every verdict, runs the trials. */
/* keys: packed IPv4 keys, or struct bench_v6 when s->family is BW_V6. */
int run_set(const struct bench_cfg *cfg, struct bench_set *s, const void *keys,
	    size_t n, bool mixed);

/* Runs each checked row once per source; fills wrong, checked and fpr. */
int verify_set(struct bench_set *s, __u8 *frame, __u32 stride);

/* All scenarios, cfg->trials trials, rows interleaved in each trial. */
int time_set(struct bench_set *s, struct bench *skel, __u64 *srcs,
	     const __u8 *frame, const struct bench_cfg *cfg);

#endif /* __BW_BENCH_SET_H */
