// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * List file to swapped-in filter, on one core, with the CLI's own code:
 * parse (bw_list_load), build (bw_cidr_prepare, bw_plan_filter,
 * bw_filter_create, bw_fill_filter), swap (bw_filter_commit: the program
 * loaded for the new filter and the registry updated). The list files hold
 * random addresses
 * in dotted-quad lines, written to a temporary directory first. Beside it,
 * what `bloomwall load` does with an image of the same filter: read and
 * check it whole (bw_image_read_file), copy it into a new filter map,
 * commit; the target is at least 5x faster than from the list at 10M.
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
#include "filter/records.h"
#include "filter/records_write.h"
#include "lists/cidr.h"
#include "image/image.h"
#include "image/image_file.h"
#include "lists/list.h"
#include "kernel/swap.h"
#include "lists/list_load.h"
#include "bloomwall.h"
#include "bloomwall.skel.h"

#define SWAP_TRIALS 3
#define SWAP_SIZES 2

struct swap_result {
	__u64 n;
	double parse[SWAP_TRIALS], build[SWAP_TRIALS], swap[SWAP_TRIALS],
		total[SWAP_TRIALS], load[SWAP_TRIALS];
	int trials;
	__u32 nblocks;
};

static struct swap_result swap_res[SWAP_SIZES];
static int nswap;

static int write_list(const char *path, __u64 n)
{
	FILE *f = fopen(path, "w");
	__u64 i;
	__u32 a;

	if (!f)
		return -errno;
	fprintf(f, "# bench: %llu random addresses\n", (unsigned long long)n);
	for (i = 0; i < n; i++) {
		a = bench_perm(i);
		fprintf(f, "%u.%u.%u.%u\n", a >> 24, (a >> 16) & 0xff,
			(a >> 8) & 0xff, a & 0xff);
	}
	return fclose(f) ? -errno : 0;
}

/* Everything between the parsed list and a filled filter map. */
static int build(const struct bw_list *in, struct bw_filter_map *fm,
		 __u32 *nblocks)
{
	struct bw_build_opts bo;
	struct bw_records rec;
	struct bw_list out;
	struct bw_plan plan;
	int err;

	err = bw_cidr_prepare(in, NULL, &out, NULL);
	if (err)
		return err;
	bw_build_opts_init(&bo);
	err = bw_plan_filter(&out, &bo, &plan);
	/* A build's generation and build record: what an image must have. */
	bw_records_init(&rec);
	rec.have_build = true;
	memcpy(&rec.build.fpr_bits, &bo.fpr, sizeof(rec.build.fpr_bits));
	rec.build.flags = bo.flags;
	plan.info.generation = 1;
	if (!err)
		err = bw_filter_create(plan.nblocks + bw_records_blocks(&rec),
				       fm);
	if (!err) {
		*nblocks = plan.nblocks + bw_records_blocks(&rec);
		bw_fill_filter(fm->mem, &plan, &out);
		err = bw_records_write(fm->mem, *nblocks, &rec);
	}
	bw_list_free(&out);
	return err;
}

/* The newest program: kept as the CLI's installer would put it on the hook. */
static int kept_prog = -1;

/* The built filter as an image file, as `bloomwall build -o` writes it. */
static int write_image(const char *path, const struct bw_filter_map *fm,
		       __u32 nblocks)
{
	void *buf;
	size_t len;
	int err;

	err = bw_image_encode(fm->mem, nblocks, &buf, &len);
	if (err)
		return err;
	err = bw_image_write_file(path, buf, len);
	free(buf);
	return err;
}

/* What `load` does: read and check the image, copy it in, commit. */
static int load_image(const char *path, const struct bw_maps *maps)
{
	struct bw_installer keeper = { bw_keep_prog, &kept_prog, NULL };
	struct bw_filter_map fm = BW_FILTER_MAP_INIT;
	struct bw_image img;
	int err;

	err = bw_image_read_file(path, &img);
	if (err)
		return err;
	err = bw_filter_create(img.nblocks, &fm);
	if (!err) {
		memcpy(fm.mem, img.filter,
		       (size_t)img.nblocks * BW_BLOCK_BYTES);
		err = bw_filter_commit(maps, &fm, &keeper);
	}
	bw_filter_close(&fm);
	bw_image_free(&img);
	return err;
}

static int one_trial(const char *path, const char *img,
		     const struct bw_maps *maps, struct swap_result *r, int t)
{
	struct bw_filter_map fm = BW_FILTER_MAP_INIT;
	struct bw_installer keeper = { bw_keep_prog, &kept_prog, NULL };
	struct bw_list_opts lo = {};
	struct bw_list l;
	__u64 t0, t1, t2, t3, t4;
	int err;

	bw_list_init(&l);
	t0 = now_ns();
	err = bw_list_load(&l, path, &lo);
	t1 = now_ns();
	if (!err)
		err = build(&l, &fm, &r->nblocks);
	t2 = now_ns();
	if (!err)
		err = bw_filter_commit(maps, &fm, &keeper);
	t3 = now_ns();
	if (!err)
		err = write_image(img, &fm, r->nblocks);
	t4 = now_ns();
	if (!err)
		err = load_image(img, maps);
	r->load[t] = (now_ns() - t4) / 1e9;
	r->parse[t] = (t1 - t0) / 1e9;
	r->build[t] = (t2 - t1) / 1e9;
	r->swap[t] = (t3 - t2) / 1e9;
	r->total[t] = (t3 - t0) / 1e9;
	/* The slot keeps the map alive; the old one goes after its readers. */
	bw_filter_close(&fm);
	bw_list_free(&l);
	return err;
}

static int swap_size(const struct bw_maps *maps, const char *dir, __u64 n)
{
	struct swap_result *r = &swap_res[nswap++];
	char path[256], img[256];
	int t, err;

	snprintf(path, sizeof(path), "%s/list-%llu.txt", dir,
		 (unsigned long long)n);
	snprintf(img, sizeof(img), "%s/filter-%llu.img", dir,
		 (unsigned long long)n);
	r->n = n;
	fprintf(stderr, "bench: build and swap: writing %s\n", path);
	err = write_list(path, n);
	for (t = 0; t < SWAP_TRIALS && !err; t++) {
		err = one_trial(path, img, maps, r, t);
		r->trials = t + 1;
	}
	if (!err)
		err = bench_sign_image(img, n);
	unlink(path);
	unlink(img);
	return err;
}

int bench_build_swap(const struct bench_cfg *cfg)
{
	char dir[] = "/tmp/bwbench-XXXXXX";
	struct bloomwall *skel;
	struct bw_maps maps;
	int err = 0, i;

	skel = bloomwall__open_and_load();
	if (!skel)
		return -errno;
	bw_maps_from_skel(skel, &maps);
	if (!mkdtemp(dir)) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < SWAP_SIZES && !err; i++)
		err = swap_size(&maps, dir,
				cfg->quick ? 100000 * (i * 9 + 1)
					   : 1000000 * (i * 9 + 1));
	rmdir(dir);
out:
	if (kept_prog >= 0)
		close(kept_prog);
	kept_prog = -1;
	bloomwall__destroy(skel);
	return err;
}

static void print_swap(FILE *f, const struct swap_result *r)
{
	double p, pm, b, bm, s, sm, t, tm, l, lm;

	finish_stats((double *)r->parse, r->trials, &p, &pm);
	finish_stats((double *)r->build, r->trials, &b, &bm);
	finish_stats((double *)r->swap, r->trials, &s, &sm);
	finish_stats((double *)r->total, r->trials, &t, &tm);
	finish_stats((double *)r->load, r->trials, &l, &lm);
	fprintf(f,
		"| %llu | %.3f (%.3f) | %.3f (%.3f) | %.1f (%.1f) | %.3f (%.3f) | %.3f (%.3f) | %.1fx | %.1f MiB |\n",
		(unsigned long long)r->n, p, pm, b, bm, s * 1e6, sm * 1e6, t,
		tm, l, lm, l > 0 ? t / l : 0.0,
		r->nblocks * (double)BW_BLOCK_BYTES / (1 << 20));
}

void print_swap_results(FILE *f)
{
	int i;

	if (!nswap)
		return;
	fprintf(f,
		"### List file to swapped-in filter (one core, median (min) of %d)\n\n",
		SWAP_TRIALS);
	fprintf(f,
		"| entries | parse s | build s | swap us | total s | load of its image s | x faster | filter |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nswap; i++)
		print_swap(f, &swap_res[i]);
	fprintf(f,
		"\nparse = bw_list_load of the file; build = bw_cidr_prepare + bw_plan_filter + "
		"bw_filter_create + bw_fill_filter; swap = bw_filter_commit (load the program for the new filter; reload then replaces the program on the interface with one bpf_xdp_attach); "
		"load of its image = what `bloomwall load` does with an image of the same filter: bw_image_read_file (read, crc32 and checks) + bw_filter_create + copy + bw_filter_commit; x faster = total / load (target: at least 5x at 10M).\n\n");
	print_sign_results(f);
}

double swap_total_median(__u64 n)
{
	double med, min;
	int i;

	for (i = 0; i < nswap; i++) {
		if (swap_res[i].n != n)
			continue;
		finish_stats(swap_res[i].total, swap_res[i].trials, &med, &min);
		return med;
	}
	return -1;
}
