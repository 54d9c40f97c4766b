// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * One section of the table: build every structure for one list, load the
 * programs with plain libbpf (a program a libxdp dispatcher extends cannot
 * be a tail-call target on kernels >= 6.12), check every verdict, then run
 * the trials, all rows interleaved inside each trial.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_maps.h"
#include "bench_set.h"
#include "filter/bloom.h"
#include "bloomwall.h"
#include "bench.skel.h"
#include "bloomwall.skel.h"
#include "kernel/egress.h"

struct set_ctx {
	const struct bench_cfg *cfg;
	struct bench_set *set;
	struct bench *skel;
	struct bloomwall *bw[2];
	int bw_prog
		[2];  /* bloomwall's program for filt[i], as reload loads it */
	int bw_tc[2]; /* its TC egress program, as attach --egress loads it */
	struct bpf_object *xf;
	int hash_fd, lpm_fd, bloom_fd;
	struct bw_filter_map filt[2]; /* [0] CLI build, [1] one length */
	int nfilt;
	__u8 *predict[2][2]; /* [filter][listed] */
	__u64 *srcs;	     /* mmapped harness table (srcs or srcs6) */
	size_t srcs_len;
	int harness_fd, target_fd;
	__u8 frame[BENCH_FRAME_LEN];
};

/* Appends a row; cost (or NULL) holds what was measured while building. */
static struct bench_row *add_row(struct bench_set *s, const char *name, int fd,
				 bool direct, enum bench_check ck,
				 const struct bench_row *cost)
{
	struct bench_row *r = &s->rows[s->nrows++];

	if (cost) {
		*r = *cost;
	} else {
		memset(r, 0, sizeof(*r));
		r->memlock = r->measured = -1;
		r->load_s = -1;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->prog_fd = fd;
	r->direct = direct;
	r->check = ck;
	r->fpr = -1;
	return r;
}

static int load_bench_skel(struct set_ctx *x)
{
	struct bench *sk;
	bool v6;
	int err;

	sk = bench__open();
	if (!sk)
		return -errno;
	v6 = x->set->family == BW_V6;
	if (x->hash_fd >= 0)
		bpf_map__reuse_fd(v6 ? sk->maps.hash_v6 : sk->maps.hash_v4,
				  x->hash_fd);
	if (x->lpm_fd >= 0)
		bpf_map__reuse_fd(v6 ? sk->maps.lpm_v6 : sk->maps.lpm_v4,
				  x->lpm_fd);
	if (x->bloom_fd >= 0)
		bpf_map__reuse_fd(v6 ? sk->maps.bloom_v6 : sk->maps.bloom_v4,
				  x->bloom_fd);
	x->skel = sk;
	/*
	 * The bare lookup reads the one-length filter, its header as
	 * constants as bloomwall's program does.
	 */
	err = bpf_map__reuse_fd(sk->maps.bare_blocks, x->filt[x->nfilt - 1].fd);
	if (err)
		return err;
	memcpy((void *)&sk->rodata->bare_hdr, x->filt[x->nfilt - 1].mem,
	       sizeof(struct bw_hdr));
	bw_region_consts_init(x->filt[x->nfilt - 1].mem, 0,
			      (struct bw_region_consts *)&sk->rodata->bare_rc);
	bw_region_consts_init(x->filt[x->nfilt - 1].mem, BW_V6 * BW_MAX_LENGTHS,
			      (struct bw_region_consts *)&sk->rodata->bare_rc6);
	err = bench__load(sk);
	if (err)
		return err;
	x->harness_fd =
		bpf_program__fd(v6 ? sk->progs.harness6 : sk->progs.harness);
	x->target_fd = bpf_map__fd(sk->maps.target);
	x->srcs_len = BENCH_SRCS_MAX * (v6 ? 16 : sizeof(*x->srcs));
	x->srcs = mmap(NULL, x->srcs_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(v6 ? sk->maps.srcs6 : sk->maps.srcs), 0);
	if (x->srcs == MAP_FAILED) {
		x->srcs = NULL;
		return -errno;
	}
	return 0;
}

/*
 * bloomwall's programs exactly as attach --egress loads them, its filter
 * in: the XDP program and the TC egress program, sharing their maps.
 */
static int load_bloomwall(struct set_ctx *x, int i)
{
	struct bw_egress eg = BW_EGRESS_INIT;
	struct bw_maps maps;

	x->bw[i] = bloomwall__open_and_load();
	if (!x->bw[i])
		return -errno;
	bw_maps_from_skel(x->bw[i], &maps);
	x->bw_prog[i] =
		bw_prog_load_pair(&maps, &x->filt[i], &eg, &x->bw_tc[i]);
	return x->bw_prog[i] < 0 ? x->bw_prog[i] : 0;
}

/* Adds the map ids of prog_fd not yet in ids (n of them, at most max). */
static int add_map_ids(int prog_fd, __u32 *ids, int n, int max)
{
	__u32 mine[64], nmine = 64, i;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int j;

	info.nr_map_ids = nmine;
	info.map_ids = (__u64)(unsigned long)mine;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	for (i = 0; i < info.nr_map_ids && i < nmine; i++) {
		for (j = 0; j < n && ids[j] != mine[i]; j++)
			;
		if (j == n && n < max)
			ids[n++] = mine[i];
	}
	return n;
}

/*
 * The kernel memory of both hooks against the filter alone: bytes_memlock
 * (as bpftool map show counts it) of every map the XDP and the TC egress
 * program use, each once.
 */
static void hook_memory(struct set_ctx *x)
{
	struct bench_set *s = x->set;
	__u32 ids[128];
	long long b, sum = 0;
	int n, i, fd;

	s->mem_filter = fd_memlock(x->filt[0].fd);
	s->mem_hooks = -1;
	n = add_map_ids(x->bw_prog[0], ids, 0, 128);
	if (n >= 0)
		n = add_map_ids(x->bw_tc[0], ids, n, 128);
	for (i = 0; i < n; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		b = fd < 0 ? -1 : fd_memlock(fd);
		if (fd >= 0)
			close(fd);
		if (b < 0)
			return;
		sum += b;
	}
	if (n > 0)
		s->mem_hooks = sum;
}

/* A row of the egress side: a TC program, tested on the destination. */
static void add_tc_row(struct set_ctx *x, const char *name, int fd, int f)
{
	struct bench_row *r =
		add_row(x->set, name, fd, false, CK_PREDICT, NULL);

	r->tc = true;
	r->predict[0] = x->predict[f][0];
	r->predict[1] = x->predict[f][1];
}

/* What the builder says filter f answers for source i of a set. */
static bool predict_one(const struct set_ctx *x, int f, int listed, __u32 i)
{
	const struct bench_set *s = x->set;
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };

	if (s->family == BW_V6) {
		const struct bench_v6 *a =
			listed ? &s->listed6[i] : &s->unlisted6[i];

		p.family = BW_V6;
		p.plen = 128;
		p.hi = a->hi;
		p.lo = a->lo;
	} else {
		p.lo = listed ? s->listed[i] : s->unlisted[i];
	}
	return bw_filter_lookup(x->filt[f].mem, &p, NULL) == 1;
}

static void predict(struct set_ctx *x)
{
	struct bench_set *s = x->set;
	__u32 i;
	int f;

	for (f = 0; f < x->nfilt; f++) {
		x->predict[f][0] = bench_alloc(s->nu);
		x->predict[f][1] = bench_alloc(s->nl);
		for (i = 0; i < s->nu; i++)
			x->predict[f][0][i] = predict_one(x, f, 0, i);
		for (i = 0; i < s->nl; i++)
			x->predict[f][1][i] = predict_one(x, f, 1, i);
	}
}

/* The exact structures; an address list (not mixed) gets them all. */
static int build_exact(struct set_ctx *x, const __u64 *keys, size_t n,
		       bool mixed)
{
	struct bench_set *s = x->set;
	struct bench_row c = {};
	int fd;

	x->lpm_fd = make_lpm(keys, n, &c);
	if (x->lpm_fd < 0)
		return x->lpm_fd;
	add_row(s, mixed ? "LPM trie (list prefixes)" : "LPM trie /32", -1,
		false, CK_EXACT, &c);
	if (mixed)
		return 0;
	x->hash_fd = make_hash(keys, n, &c);
	if (x->hash_fd < 0)
		return x->hash_fd;
	add_row(s, "hash map", -1, false, CK_EXACT, &c);
	x->bloom_fd = make_kbloom(keys, n, &c);
	if (x->bloom_fd < 0)
		return x->bloom_fd;
	add_row(s, "kernel Bloom map k=7", -1, false, CK_NO_FN, &c);
	fd = make_xdpfilter(keys, n, &c, &x->xf);
	if (fd < 0)
		return fd;
	add_row(s, "xdp-filter alw_ip", fd, false, CK_EXACT, &c);
	return 0;
}

/* The IPv6 exact structures: the same four, keyed by the /128. */
static int build_exact6(struct set_ctx *x, const struct bench_v6 *keys,
			size_t n)
{
	struct bench_set *s = x->set;
	struct bench_row c = {};
	int fd;

	x->lpm_fd = make_lpm6(keys, n, &c);
	if (x->lpm_fd < 0)
		return x->lpm_fd;
	add_row(s, "LPM trie /128", -1, false, CK_EXACT, &c);
	x->hash_fd = make_hash6(keys, n, &c);
	if (x->hash_fd < 0)
		return x->hash_fd;
	add_row(s, "hash map", -1, false, CK_EXACT, &c);
	x->bloom_fd = make_kbloom6(keys, n, &c);
	if (x->bloom_fd < 0)
		return x->bloom_fd;
	add_row(s, "kernel Bloom map k=7", -1, false, CK_NO_FN, &c);
	fd = make_xdpfilter6(keys, n, &c, &x->xf);
	if (fd < 0)
		return fd;
	add_row(s, "xdp-filter alw_ip", fd, false, CK_EXACT, &c);
	return 0;
}

/* bloomwall's IPv6 filter as the CLI builds it. */
static int build_bloomwall6(struct set_ctx *x, const struct bench_v6 *keys,
			    size_t n)
{
	struct bw_cidr_stats st = {};
	struct bench_row c = {};
	int err;

	err = make_bloomwall6(keys, n, &x->filt[0], &c, &st);
	if (err)
		return err;
	add_row(x->set, "bloomwall", -1, false, CK_PREDICT, &c);
	x->nfilt = 1;
	snprintf(
		x->set->note, sizeof(x->set->note),
		"bloomwall: %llu list entries -> %llu merged -> %llu keys in %u target length(s)",
		(unsigned long long)st.fam[BW_V6].source,
		(unsigned long long)st.fam[BW_V6].merged,
		(unsigned long long)st.fam[BW_V6].expanded,
		st.fam[BW_V6].nlengths);
	return 0;
}

/*
 * bloomwall as the CLI builds it; when the builder chose more than one
 * length (sibling /32s merge into /31s), also a one-length build for the
 * bare lookup and a bloomwall row on that same filter.
 */
static int build_bloomwall(struct set_ctx *x, const __u64 *keys, size_t n,
			   bool mixed)
{
	struct bw_cidr_stats st = {};
	struct bench_row c = {};
	int err;

	err = make_bloomwall(keys, n, 0, &x->filt[0], &c, &st);
	if (err)
		return err;
	add_row(x->set, "bloomwall", -1, false, CK_PREDICT, &c);
	x->nfilt = 1;
	snprintf(
		x->set->note, sizeof(x->set->note),
		"bloomwall: %llu list entries -> %llu merged -> %llu keys in %u target length(s)",
		(unsigned long long)st.fam[BW_V4].source,
		(unsigned long long)st.fam[BW_V4].merged,
		(unsigned long long)st.fam[BW_V4].expanded,
		st.fam[BW_V4].nlengths);
	if (mixed || st.fam[BW_V4].nlengths <= 1)
		return 0;
	err = make_bloomwall(keys, n, 1, &x->filt[1], &c, NULL);
	if (err)
		return err;
	add_row(x->set, "bloomwall, 1 length (/32)", -1, false, CK_PREDICT, &c);
	x->nfilt = 2;
	return 0;
}

/* Fills in program fds and prediction tables once everything is loaded. */
static int wire_rows(struct set_ctx *x, bool mixed)
{
	struct bench_set *s = x->set;
	struct bench *sk = x->skel;
	bool v6 = s->family == BW_V6;
	int i, f = 0, err;

	for (i = 0; i < x->nfilt; i++) {
		err = load_bloomwall(x, i);
		if (err)
			return err;
	}
	predict(x);
	for (i = 0; i < s->nrows; i++) {
		struct bench_row *r = &s->rows[i];

		if (!strncmp(r->name, "LPM", 3))
			r->prog_fd = bpf_program__fd(v6 ? sk->progs.lpm6_lookup
							: sk->progs.lpm_lookup);
		else if (!strcmp(r->name, "hash map"))
			r->prog_fd =
				bpf_program__fd(v6 ? sk->progs.hash6_lookup
						   : sk->progs.hash_lookup);
		else if (!strncmp(r->name, "kernel Bloom", 12))
			r->prog_fd =
				bpf_program__fd(v6 ? sk->progs.bloom6_lookup
						   : sk->progs.bloom_lookup);
		if (strncmp(r->name, "bloomwall", 9))
			continue;
		r->prog_fd = x->bw_prog[f];
		r->predict[0] = x->predict[f][0];
		r->predict[1] = x->predict[f][1];
		f++;
	}
	if (mixed)
		return 0;
	f = x->nfilt - 1;
	add_row(s, "bare blocked-Bloom lookup",
		bpf_program__fd(v6 ? sk->progs.bare_bloom6
				   : sk->progs.bare_bloom),
		false, CK_PREDICT, NULL);
	s->rows[s->nrows - 1].predict[0] = x->predict[f][0];
	s->rows[s->nrows - 1].predict[1] = x->predict[f][1];
	/*
	 * The way out, in the same run: bloomwall's TC program on the CLI's
	 * filter as the XDP row, the bare lookup's TC twin on the bare
	 * lookup's filter.
	 */
	add_tc_row(x, "egress: bloomwall (TC)", x->bw_tc[0], 0);
	hook_memory(x);
	add_tc_row(x, "egress: bare lookup (TC)",
		   bpf_program__fd(v6 ? sk->progs.bare_bloom6_tc
				      : sk->progs.bare_bloom_tc),
		   f);
	return 0;
}

static void add_floor_rows(struct set_ctx *x, bool mixed)
{
	struct bench_set *s = x->set;
	struct bench *sk = x->skel;
	struct bench_row tmp[BENCH_MAX_ROWS];
	int n = s->nrows;
	int parse = bpf_program__fd(s->family == BW_V6 ? sk->progs.xdp_parse6
						       : sk->progs.xdp_parse);

	/* Floors first in the table, structures after. */
	memcpy(tmp, s->rows, n * sizeof(*tmp));
	s->nrows = 0;
	add_row(s, "XDP_PASS (direct, 1 frame)",
		bpf_program__fd(sk->progs.xdp_pass), true, CK_NONE, NULL);
	add_row(s, "parse floor (direct, 1 frame)", parse, true, CK_NONE, NULL);
	add_row(s, "harness -> XDP_PASS", bpf_program__fd(sk->progs.xdp_pass),
		false, CK_NONE, NULL);
	add_row(s, "harness -> parse floor", parse, false, CK_NONE, NULL);
	if (!mixed)
		add_row(s, "egress: TC harness -> TC_ACT_OK",
			bpf_program__fd(sk->progs.tc_pass), false, CK_NONE,
			NULL)
			->tc = true;
	memcpy(&s->rows[s->nrows], tmp, n * sizeof(*tmp));
	s->nrows += n;
}

static void ctx_free(struct set_ctx *x)
{
	int i, j;

	if (x->srcs)
		munmap(x->srcs, x->srcs_len);
	bench__destroy(x->skel);
	for (i = 0; i < 2; i++) {
		if (x->bw_prog[i] >= 0)
			close(x->bw_prog[i]);
		if (x->bw_tc[i] >= 0)
			close(x->bw_tc[i]);
		bloomwall__destroy(x->bw[i]);
		bw_filter_close(&x->filt[i]);
		for (j = 0; j < 2; j++)
			free(x->predict[i][j]);
	}
	bpf_object__close(x->xf);
	if (x->hash_fd >= 0)
		close(x->hash_fd);
	if (x->lpm_fd >= 0)
		close(x->lpm_fd);
	if (x->bloom_fd >= 0)
		close(x->bloom_fd);
	settle_memory();
}

/* keys: packed IPv4 keys, or struct bench_v6 for an IPv6 set. */
int run_set(const struct bench_cfg *cfg, struct bench_set *s, const void *keys,
	    size_t n, bool mixed)
{
	bool v6 = s->family == BW_V6;
	struct set_ctx x = {
		.cfg = cfg,
		.set = s,
		.hash_fd = -1,
		.lpm_fd = -1,
		.bloom_fd = -1,
		.filt = { BW_FILTER_MAP_INIT, BW_FILTER_MAP_INIT },
		.bw_prog = { -1, -1 },
		.bw_tc = { -1, -1 },
	};
	int err;

	s->mem_filter = s->mem_hooks = -1;
	fprintf(stderr, "bench: %s: building structures\n", s->label);
	if (v6) {
		err = cfg->bloom_only ? 0 : build_exact6(&x, keys, n);
		if (!err)
			err = build_bloomwall6(&x, keys, n);
	} else {
		err = cfg->bloom_only ? 0 : build_exact(&x, keys, n, mixed);
		if (!err)
			err = build_bloomwall(&x, keys, n, mixed);
	}
	if (!err)
		err = load_bench_skel(&x);
	if (!err)
		err = wire_rows(&x, mixed);
	if (err) {
		fprintf(stderr, "bench: %s: setup failed: %s\n", s->label,
			strerror(-err));
		goto out;
	}
	add_floor_rows(&x, mixed);
	if (v6)
		build_frame6(x.frame, &s->unlisted6[0]);
	else
		build_frame(x.frame, htonl(s->unlisted[0]));
	err = verify_set(s, x.frame, cfg->verify_stride);
	if (!err)
		err = time_set(s, x.skel, x.srcs, x.frame, cfg);
out:
	ctx_free(&x);
	return err;
}
