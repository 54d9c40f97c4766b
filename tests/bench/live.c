// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Live entries in place (user/filter/live.c) against today's rebuild and
 * swap, side by side in one run: a filter of 10M listed random addresses
 * (1M with BENCH_QUICK) in a real filter map; LIVE_N entries added in
 * place through its mmap (atomic ORs), then deleted in place (each block
 * recomputed from its base and remaining keys, atomic stores), one at a
 * time as a decision source sends them; and what `remove` does for one
 * change: rebuild the filter from the parsed list (bw_cidr_prepare,
 * bw_plan_filter, bw_filter_create, bw_fill_filter) and swap it in
 * (bw_filter_commit). Also the memory the live set holds per key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_extra.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/live.h"
#include "kernel/swap.h"
#include "lists/cidr.h"
#include "lists/list.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"

#define LIVE_N 100000
#define LIVE_REBUILDS 3

struct live_result {
	__u64 listed, live;
	__u32 keys_per_entry;
	double add_s, del_s;  /* for all LIVE_N, one at a time */
	double rebuild_s;     /* median of LIVE_REBUILDS */
	double bytes_per_key; /* held by the set with LIVE_N in */
	double bytes_per_blk;
	bool done;
};

static struct live_result live_res[2];
static int nlive;

static int build_map(const struct bw_list *in, struct bw_filter_map *fm)
{
	struct bw_build_opts bo;
	struct bw_plan plan;
	struct bw_list out;
	int err;

	err = bw_cidr_prepare(in, NULL, &out, NULL);
	if (err)
		return err;
	bw_build_opts_init(&bo);
	bo.seed = 1;
	err = bw_plan_filter(&out, &bo, &plan);
	if (!err)
		err = bw_filter_create(plan.nblocks, fm);
	if (!err)
		bw_fill_filter(fm->mem, &plan, &out);
	bw_list_free(&out);
	return err;
}

/* What `remove` costs per change: a rebuild from the list and a swap. */
static int rebuild_swap(const struct bw_list *l, struct live_result *r)
{
	struct bloomwall *skel = bloomwall__open_and_load();
	double t[LIVE_REBUILDS], min;
	int kept = -1, i, err = 0;
	struct bw_installer keeper = { bw_keep_prog, &kept, NULL };
	struct bw_maps maps;
	__u64 t0;

	if (!skel)
		return -errno;
	bw_maps_from_skel(skel, &maps);
	for (i = 0; i < LIVE_REBUILDS && !err; i++) {
		struct bw_filter_map fm = BW_FILTER_MAP_INIT;

		t0 = now_ns();
		err = build_map(l, &fm);
		if (!err)
			err = bw_filter_commit(&maps, &fm, &keeper);
		t[i] = (now_ns() - t0) / 1e9;
		bw_filter_close(&fm);
	}
	if (!err)
		finish_stats(t, LIVE_REBUILDS, &r->rebuild_s, &min);
	if (kept >= 0)
		close(kept);
	bloomwall__destroy(skel);
	return err;
}

/* Entries not in the list: addresses past the listed part of the perm. */
static struct bw_prefix live_entry(__u64 listed, __u64 i, __u8 plen)
{
	struct bw_prefix p = { .family = BW_V4, .plen = plen };

	p.lo = bench_perm((__u32)(listed + i)) &
	       (__u32)(0xffffffff00000000ULL >> plen);
	return p;
}

static int in_place(struct bw_filter_map *fm, struct live_result *r, __u8 plen)
{
	struct bw_live_stats st;
	struct bw_prefix p;
	struct bw_live set;
	__u64 i, t0;
	int err;

	bw_live_init(&set);
	err = bw_live_layout(&set, fm->mem);
	t0 = now_ns();
	for (i = 0; i < r->live && !err; i++) {
		p = live_entry(r->listed, i, plen);
		err = bw_live_add(&set, fm->mem, &p, 0);
	}
	r->add_s = (now_ns() - t0) / 1e9;
	bw_live_stats(&set, &st);
	r->bytes_per_key = st.keys ? (double)st.bytes / st.keys : 0;
	r->bytes_per_blk = st.blocks ? (double)st.bytes / st.blocks : 0;
	r->keys_per_entry = (__u32)(st.entries ? st.keys / st.entries : 0);
	t0 = now_ns();
	for (i = 0; i < r->live && !err; i++) {
		p = live_entry(r->listed, i, plen);
		err = bw_live_del(&set, fm->mem, &p);
	}
	r->del_s = (now_ns() - t0) / 1e9;
	bw_live_free(&set);
	return err;
}

int bench_live(const struct bench_cfg *cfg)
{
	struct bw_filter_map fm = BW_FILTER_MAP_INIT;
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	__u64 n = cfg->quick ? 1000000 : 10000000, i;
	struct bw_list l;
	int err = 0, k;

	fprintf(stderr, "bench: live entries in place at %llu listed\n",
		(unsigned long long)n);
	bw_list_init(&l);
	for (i = 0; i < n && !err; i++) {
		p.lo = bench_perm((__u32)i);
		err = bw_list_push(&l, &p);
	}
	bw_list_finish(&l);
	if (!err)
		err = build_map(&l, &fm);
	/* /32 entries (one key each), /28 (16 keys: a decision's range). */
	for (k = 0; k < 2 && !err; k++) {
		struct live_result *r = &live_res[nlive++];

		r->listed = n;
		r->live = k ? LIVE_N / 16 : LIVE_N;
		err = in_place(&fm, r, k ? 28 : 32);
		if (!err && !k)
			err = rebuild_swap(&l, r);
		if (k)
			r->rebuild_s = live_res[0].rebuild_s;
		r->done = !err;
	}
	bw_filter_close(&fm);
	bw_list_free(&l);
	return err;
}

static void print_row(FILE *f, const struct live_result *r)
{
	double add = r->add_s > 0 ? r->live / r->add_s : 0;
	double del = r->del_s > 0 ? r->live / r->del_s : 0;
	double rb = r->rebuild_s > 0 ? 1 / r->rebuild_s : 0;

	fprintf(f,
		"| %llu | %llu x /%u (%u %s) | %.0f | %.0f | %.3f s: %.2f | %.0fx | %.1f B (%.0f B a block) |\n",
		(unsigned long long)r->listed, (unsigned long long)r->live,
		r->keys_per_entry == 1 ? 32 : 28, r->keys_per_entry,
		r->keys_per_entry == 1 ? "key" : "keys", add, del, r->rebuild_s,
		rb, rb > 0 ? del / rb : 0, r->bytes_per_key, r->bytes_per_blk);
}

void print_live(FILE *f)
{
	int i;

	if (!nlive || !live_res[0].done)
		return;
	fprintf(f, "### Live entries: in place against rebuild and swap\n\n");
	fprintf(f,
		"| listed | live entries | adds/s in place | deletes/s in place | rebuild and swap: s, changes/s | deletes in place / rebuild | memory per live key |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nlive; i++)
		if (live_res[i].done)
			print_row(f, &live_res[i]);
	fprintf(f,
		"\nIn place = user/filter/live.c on a real filter map through its mmap, one entry at a time: an add ORs its keys' bits in (atomic ORs) and keeps their hashes by block, with a copy of each block as built the first time a live key lands in it; a delete recomputes each of its blocks as that base | the remaining live keys and stores the words (atomic stores). "
		"Rebuild and swap = what `remove` (and a watch rebuild) does for a change, the list already parsed: bw_cidr_prepare + bw_plan_filter + bw_filter_create + bw_fill_filter + bw_filter_commit (the list's parse comes on top: see the build-and-swap table). "
		"Memory per live key = what the set holds (entries, hashes, block bases, tables) over its keys, with all the live entries in.\n\n");
}
