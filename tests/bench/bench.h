/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bench.h - shared pieces of the `make bench` harness: the address sets,
 * the rows of the table, timing and memory probes.
 *
 * Addresses: a list of n random addresses is perm(0 .. n-1), where perm is a
 * seeded bijection on 32 bits; perm(n ..) are then guaranteed non-members,
 * with no set to search. The frame's destination is perm(0xffffffff), which
 * no list contains (xdp-filter looks up the destination too).
 */
#ifndef __BW_BENCH_H
#define __BW_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "lists/list.h"
#include "kernel/swap.h"

#define BENCH_SEED 0x5eed1e55U
#define BENCH_SRCS_MAX (1U << 20) /* cold: ~1M distinct sources */
#define BENCH_WARM (1U << 12)	  /* warm: 4096 distinct sources */
#define BENCH_MAX_TRIALS 15
#define BENCH_MAX_SIZES 4
/* Largest random list: what the builder and the LPM trie still take. */
#define BENCH_MAX_SIZE 50000000ULL
#define BENCH_MAX_ROWS 16
#define BENCH_FRAME_LEN 64

/* Columns: unlisted warm/cold, listed warm/cold. */
enum bench_scen {
	SC_UW,
	SC_UC,
	SC_LW,
	SC_LC,
	SC_N,
};

/* How a row's verdicts are checked. */
enum bench_check {
	CK_NONE,    /* floors: nothing to check */
	CK_EXACT,   /* drop exactly the listed sources */
	CK_PREDICT, /* drop exactly what the builder predicts */
	CK_NO_FN,   /* kernel Bloom map: every listed source dropped */
};

struct bench_row {
	char name[48];
	int prog_fd;
	bool direct; /* run without the harness (floor rows) */
	bool tc;     /* a TC program: egress, tests the destination */
	enum bench_check check;
	const __u8 *predict[2]; /* CK_PREDICT: [0] unlisted, [1] listed */
	/* Map cost, < 0 when not applicable. */
	long long memlock;  /* bytes, /proc/self/fdinfo "memlock:" */
	long long measured; /* bytes, kmem_bytes() growth across create+fill */
	double load_s;	    /* create + fill seconds */
	double fpr;	    /* hits among the unlisted cold set */
	__u64 entries;	    /* keys the structure holds */
	/* Results. */
	double t[SC_N][BENCH_MAX_TRIALS];
	double med[SC_N], min[SC_N];
	__u64 checked, wrong;
};

/* An IPv6 address as two host-order numbers (bw_hash_v6's hi and lo). */
struct bench_v6 {
	__u64 hi, lo;
};

/* One table section: a list, its address sets and its rows. */
struct bench_set {
	char label[64];
	int family;    /* BW_V4 (listed, unlisted) or BW_V6 (listed6, ...) */
	__u64 n;       /* list entries */
	__u32 *listed; /* network order, nl of them */
	__u32 nl;
	__u32 *unlisted; /* network order, nu of them */
	__u32 nu;
	struct bench_v6 *listed6, *unlisted6; /* BW_V6: nl and nu of them */
	struct bench_row rows[BENCH_MAX_ROWS];
	int nrows;
	char note[256];
	/*
	 * bytes_memlock of bloomwall's filter map alone, and of every map
	 * its XDP and TC egress programs use (the filter once), -1: unknown.
	 */
	long long mem_filter, mem_hooks;
};

struct bench_cfg {
	bool quick;
	int trials;
	__u32 repeat_warm, repeat_cold;
	__u64 sizes[BENCH_MAX_SIZES];
	int nsizes;
	__u64 sizes6[BENCH_MAX_SIZES]; /* IPv6 random list sizes */
	int nsizes6;
	const char *data_dir; /* the real lists: $BW_DATA_DIR or tests/data */
	const char *mixed_path;
	const char *results_path;
	const char *veth;    /* "nsA:devA:nsB:devB" or NULL */
	int cpu;	     /* core the measurements run on */
	__u32 verify_stride; /* check every Nth source (1: all) */
	const char *parts;   /* which parts to run, NULL: all */
	bool bloom_only;     /* skip the exact structures: a quick A/B */
};

/* util.c */
__u32 bench_perm(__u32 i);
__u64 now_ns(void);
long long kmem_bytes(void);
long long fd_memlock(int fd);
void settle_memory(void);
int pin_cpu(int cpu);
void build_frame(__u8 *frame, __u32 saddr);
void build_frame6(__u8 *frame, const struct bench_v6 *saddr);
void put_v6(__u8 *p, const struct bench_v6 *a);
struct bench_v6 bench_v6_addr(__u64 i);
int run_prog(int prog_fd, const __u8 *frame, __u32 repeat, __u32 *retval,
	     double *ns);
void finish_stats(double *t, int n, double *med, double *min);
void *bench_alloc(size_t n);

/* table.c */
void print_set(FILE *f, const struct bench_set *s, int bw_row);
void print_header(FILE *f, const struct bench_cfg *cfg, int argc, char **argv);

#endif /* __BW_BENCH_H */
