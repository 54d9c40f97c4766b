/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The parts of the bench beyond the per-packet table: the real mixed list
 * (mixed.c), build and swap times (swap.c), the veth drop rate (veth.c),
 * one packet through the CLI's own program (cost.c) and the check of the
 * targets (targets.c).
 */
#ifndef __BW_BENCH_EXTRA_H
#define __BW_BENCH_EXTRA_H

#include <stdio.h>

#include "bench.h"

/* The list file's own entries (addresses and CIDRs): LPM trie, bloomwall. */
int mixed_set(const struct bench_cfg *cfg, struct bench_set *s,
	      const char *path);

/* List file -> swapped-in filter: parse, build, swap, one core. */
int bench_build_swap(const struct bench_cfg *cfg);

/* Frames per second dropped on a veth link: bloomwall vs XDP_DROP. */
int bench_veth(const struct bench_cfg *cfg);
/* UDP through the stack to a file's addresses (tests/bench/egress.sh). */
int udp_send(const char *spec);

/* ns/packet through the program as the CLI swaps it: small, real, verify. */
int bench_prog_cost(const struct bench_cfg *cfg);
void print_prog_cost(FILE *f);

/* ns/packet with the drop log off, rate-limited and writing (droplog.c). */
int bench_droplog(const struct bench_cfg *cfg);
void print_droplog(FILE *f);

/* Live entries in place against rebuild and swap (live.c). */
int bench_live(const struct bench_cfg *cfg);
void print_live(FILE *f);

/* Sections 2 and 3 of the output. */
void print_extra(FILE *f);
void print_swap_results(FILE *f);
void print_veth_results(FILE *f);

/* The signature check of the image at path (n entries), signed here (sign.c). */
int bench_sign_image(const char *path, __u64 n);
void print_sign_results(FILE *f);

/* Median seconds from list file to swapped filter for n entries, or -1. */
double swap_total_median(__u64 n);

void print_targets(FILE *f, const struct bench_set *sets, int nsets,
		   int trials);

#endif /* __BW_BENCH_EXTRA_H */
