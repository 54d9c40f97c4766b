/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Structures under test, each created and filled from the same keys
 * ((addr << 8) | plen, host order). int functions return a file descriptor
 * (>= 0) or -errno; make_bloomwall returns 0 or -errno.
 */
#ifndef __BW_BENCH_MAPS_H
#define __BW_BENCH_MAPS_H

#include <stddef.h>
#include <linux/types.h>

#include "bench.h"
#include "lists/cidr.h"
#include "kernel/swap.h"

#define XDPFILT_PATH "/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_ip.o"

struct bpf_object;

/* Create+fill cost of one structure (maps.c). */
struct cost {
	long long mem;
	__u64 t0;
};

void cost_begin(struct cost *c);
void cost_end(const struct cost *c, struct bench_row *r, int fd);
/* Batched updates, one by one where batches are refused. */
int update_many(int fd, void *keys, size_t ksz, void *vals, size_t vsz,
		size_t n);

int make_hash(const __u64 *keys, size_t n, struct bench_row *r);
int make_lpm(const __u64 *keys, size_t n, struct bench_row *r);
int make_kbloom(const __u64 *keys, size_t n, struct bench_row *r);
int make_xdpfilter(const __u64 *keys, size_t n, struct bench_row *r,
		   struct bpf_object **objp);
int make_bloomwall(const __u64 *keys, size_t n, unsigned int max_len,
		   struct bw_filter_map *fm, struct bench_row *r,
		   struct bw_cidr_stats *st);

int make_bloomwall6(const struct bench_v6 *keys, size_t n,
		    struct bw_filter_map *fm, struct bench_row *r,
		    struct bw_cidr_stats *st);

/* maps6.c: the IPv6 twins, keyed by the /128 (wire order). */
int make_hash6(const struct bench_v6 *keys, size_t n, struct bench_row *r);
int make_lpm6(const struct bench_v6 *keys, size_t n, struct bench_row *r);
int make_kbloom6(const struct bench_v6 *keys, size_t n, struct bench_row *r);
int make_xdpfilter6(const struct bench_v6 *keys, size_t n, struct bench_row *r,
		    struct bpf_object **objp);

#endif /* __BW_BENCH_MAPS_H */
