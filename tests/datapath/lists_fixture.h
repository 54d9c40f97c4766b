/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Filters built from list files by the CLI's own build (bw_build_lists)
 * and swapped into the datapath fixture by its own swap (bw_swap_in), for
 * the tests of CIDR edges, the allowlist, verify mode and its swaps, and
 * the real lists (test_edges.c, test_allowlist.c, test_verify.c,
 * test_verify_swap.c, test_data_files.c).
 *
 * Addresses are struct bw_prefix in host byte order, as in user/lists/list.h;
 * both families are numbered as 128-bit integers (lf_addr_num).
 */
#ifndef __BW_LISTS_FIXTURE_H
#define __BW_LISTS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "ops/reload.h"
#include "kernel/running.h"
#include "datapath.h"
#include "lists/list.h"

typedef unsigned __int128 u128;

#define LF_SEED 0x5eed

/* A private directory for list files; removed by lf_tmp_cleanup(). */
bool lf_tmp_setup(void);
void lf_tmp_cleanup(void);
/* Its path, valid between setup and cleanup. */
const char *lf_tmp_dir(void);

/*
 * Writes a NULL-terminated list of lines to name in the directory; returns
 * its path (one of four static buffers) or NULL after a failed assertion.
 */
char *lf_write_list(const char *name, const char *const *lines);

/* A build request as reload makes it: fixed seed, source match. */
void lf_req_init(struct bw_build_req *req, char **files, int n, bool verify,
		 __u8 slot, __u64 generation);

/* The skeleton's outer map of exact tries and its allowlist trie. */
int lf_exact_fd(struct bw_dp *dp);
int lf_allow_fd(struct bw_dp *dp);

/* The CLI's swap into the fixture's maps; allow NULL leaves it alone. */
int lf_swap_in(struct bw_dp *dp, const struct bw_built *b,
	       const struct bw_list *allow);

/*
 * Builds files into b (verify or not) as generation gen, in the exact
 * slot the running filter does not name, and swaps it in.
 */
bool lf_build_swap(struct bw_dp *dp, char **files, int n, bool verify,
		   __u64 gen, struct bw_built *b);

/* The drop outcome of a packet from family (BW_V4 or BW_V6). */
static inline enum bw_outcome lf_drop(int family)
{
	return family == BW_V4 ? BW_OUT_DROP_V4 : BW_OUT_DROP_V6;
}

/*
 * Runs one packet from src (to 192.0.2.1 or 2001:db8::1) through
 * bw_dp_expect: its action and every counter delta.
 */
bool lf_expect(struct bw_dp *dp, const struct bw_prefix *src,
	       enum bw_outcome want);

/* Runs every address; counts drops (XDP_DROP) in *drops. */
void lf_run_all(struct bw_dp *dp, const struct bw_prefix *a, size_t n,
		size_t *drops);

/* Address arithmetic on both families as 128-bit numbers. */
u128 lf_addr_num(const struct bw_prefix *p);
struct bw_prefix lf_addr_at(int family, u128 n);
/* Host part of a prefix: all ones below its length. */
u128 lf_span_of(const struct bw_prefix *p);

/*
 * Outcome of an address outside every listed prefix, from the filter in
 * memory: pass on a Bloom miss, else a drop, or false_pos in verify mode.
 */
enum bw_outcome lf_outside(const void *mem, const struct bw_prefix *a);

/* Reproducible random numbers (xorshift64*, one fixed seed a process). */
__u64 lf_rnd(void);

/* Reads list files as the CLI does (prefixes, ranges), finished. */
bool lf_load_src(char *const *files, int n, struct bw_list *l);

/* First, last and one random address of prefix p. */
void lf_probes_of(const struct bw_prefix *p, struct bw_prefix out[3]);

/* Packets from inside every prefix of src (lf_probes_of) not dropped. */
size_t lf_member_misses(struct bw_dp *dp, const struct bw_list *src);

/* The acceptance lists, under the data dir: paths[i] and files[i]. */
#define LF_NREAL 4
#define LF_PATH_MAX 512
void lf_real_lists(const char *dir, char paths[LF_NREAL][LF_PATH_MAX],
		   char *files[LF_NREAL]);

#endif /* __BW_LISTS_FIXTURE_H */
