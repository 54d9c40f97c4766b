/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The DNS rows of the bench: query names and the structures that hold them
 * (dns_names.c), the timed table (dns.c).
 *
 * A list of n names: name i has dns_labels(i) labels (2, 4 or 8 in turn).
 * Query names of L labels: the listed ones (blocked), and dns_name(L, i)
 * for i >= n (allowed). Every label but the TLD starts with a letter that
 * says the name's label count and the label's place from the right, so no
 * suffix of an allowed name (nor of a listed one) is a listed name: every
 * structure must block exactly the listed names.
 */
#ifndef __BW_BENCH_DNS_H
#define __BW_BENCH_DNS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "bench.h"
#include "kernel/filter_map.h"

#define DNS_LABEL_COUNTS 3
#define DNS_MAX_SIZES 4
/* Bytes per name in the harness's table (dnsbench.bpf.c NAME_SLOT). */
#define DNS_NAME_SLOT 72
#define DNS_KEY_LEN 255 /* dnsdist's key: the wire name, zero-padded */

extern const unsigned int dns_label_counts[DNS_LABEL_COUNTS];

/* Labels of list entry i. */
unsigned int dns_labels(__u64 i);

/* Name i of L labels, dotted (no trailing dot); its length. */
size_t dns_name(unsigned int L, __u64 i, char *out);

/*
 * bloomwall's filter for the n list names, as format 3 lays it out: the
 * header, the info block, the DNS block (action: enum bw_dns_action), one
 * name region
 * (subtree entries, or exact ones) sized with bw_size_region at the
 * default rate, as the builder sizes it for a list of one kind. No address
 * regions. r gets memlock, kernel memory growth and build time.
 */
int dns_make_filter(__u64 n, bool subtree, __u8 action,
		    struct bw_filter_map *fm, struct bench_row *r);

/* dnsdist's hash map of the n names (key DNS_KEY_LEN bytes): an fd. */
int dns_make_hash(__u64 n, struct bench_row *r);

/* What filter fm answers for a dotted name, as the data path tests it. */
bool dns_predict(const void *mem, const char *name, size_t len);

#define DNS_ROWS 8
#define DNS_SETS (DNS_MAX_SIZES * DNS_LABEL_COUNTS)

enum { F_SUB, F_EXACT, F_N }; /* the two bloomwall filters */

/* One table: n list names, queries of L labels. */
struct dns_set {
	__u64 n;
	unsigned int L;
	__u32 nb, na;	  /* blocked and allowed query names */
	__u64 blk0, all0; /* dns_name's i of the first of each */
	int bw_ref;	  /* the row the ratios are to */
	struct bench_row rows[DNS_ROWS];
	int nrows;
	int filt[DNS_ROWS]; /* F_* for bloomwall rows, -1 otherwise */
	__u8 *predict[F_N][2];
};

/* The tables measured (dns.c), printed by dns_print.c. */
extern struct dns_set dns_sets[DNS_SETS];
extern int dns_nsets;

/* Options of the DNS part (bench_cfg carries the rest). */
struct dns_cfg {
	__u64 sizes[DNS_MAX_SIZES];
	int nsizes;
};

int bench_dns(const struct bench_cfg *cfg, const struct dns_cfg *dc);

#define DNS_FRAME_MAX 256

/* A query frame (IPv4, UDP 40000 -> 53, RD, A IN) for a wire name: its length. */
__u32 dns_query_frame(__u8 *frame, const __u8 *wire, __u32 wl);

/* dns_flood.c: DNS answers per second on a veth pair, one core. */
int bench_dns_flood(const struct bench_cfg *cfg);
void print_dns_flood(FILE *f);

/* dns_serve.c: the end-to-end run's pieces (tests/bench/dnsperf.sh). */
int dns_print_names(__u64 n);
int dns_serve(const char *spec, __u64 n);
void print_dns(FILE *f);
void print_dns_targets(FILE *f);

#endif /* __BW_BENCH_DNS_H */
