// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Checking and timing the rows of one section.
 *
 * Checking runs each program under test directly, once per source address,
 * and compares its verdict with what the structure must answer: exact
 * structures drop exactly the listed sources; bloomwall and the bare lookup
 * drop exactly what the builder predicts (bw_filter_lookup), false positives
 * included; the kernel's Bloom map must drop every listed source. A row
 * with a wrong verdict is flagged in the table and cannot meet a target.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf.h>

#include "bench.h"
#include "bench_set.h"
#include "bloomwall.h"
#include "bench.skel.h"

/* Untimed runs before the trials: fills the warm caches. */
#define WARMUP (1U << 16)
/* An untimed run before each timed one: a quarter of the cold stream. */
#define PRIME (1U << 18)
#define SADDR_OFF (sizeof(struct ethhdr) + offsetof(struct iphdr, saddr))
#define SADDR6_OFF (sizeof(struct ethhdr) + offsetof(struct ipv6hdr, saddr))
#define DADDR_OFF (sizeof(struct ethhdr) + offsetof(struct iphdr, daddr))
#define DADDR6_OFF (sizeof(struct ethhdr) + offsetof(struct ipv6hdr, daddr))

/*
 * Address i of the listed or unlisted set into the frame: the source, or
 * for a TC row (egress) the destination.
 */
static void put_src(const struct bench_set *s, const struct bench_row *r,
		    int listed, __u32 i, __u8 *frame)
{
	__u32 a;

	if (s->family == BW_V6) {
		put_v6(frame + (r->tc ? DADDR6_OFF : SADDR6_OFF),
		       listed ? &s->listed6[i] : &s->unlisted6[i]);
		return;
	}
	a = htonl(listed ? s->listed[i] : s->unlisted[i]);
	memcpy(frame + (r->tc ? DADDR_OFF : SADDR_OFF), &a, sizeof(a));
}

/* 1 dropped, 0 passed, -1 neither: XDP's codes, or TC's for a TC row. */
static int dropped(const struct bench_row *r, __u32 ret)
{
	if (r->tc)
		return ret == TC_ACT_SHOT ? 1 : ret == TC_ACT_OK ? 0 : -1;
	return ret == XDP_DROP ? 1 : ret == XDP_PASS ? 0 : -1;
}

static bool expect_drop(const struct bench_row *r, int listed, __u32 i,
			bool *known)
{
	*known = true;
	if (r->check == CK_PREDICT)
		return r->predict[listed][i];
	if (r->check == CK_NO_FN && !listed)
		*known = false;
	return listed;
}

static int verify_one(const struct bench_set *s, struct bench_row *r,
		      int listed, __u8 *frame, __u32 stride)
{
	__u32 n = listed ? s->nl : s->nu;
	__u64 drops = 0, checked = 0;
	bool known, exp;
	__u32 i, ret;
	int err;

	for (i = 0; i < n; i += stride) {
		put_src(s, r, listed, i, frame);
		err = run_prog(r->prog_fd, frame, 1, &ret, NULL);
		if (err)
			return err;
		exp = expect_drop(r, listed, i, &known);
		if (dropped(r, ret) < 0 || (known && exp != dropped(r, ret)))
			r->wrong++;
		drops += dropped(r, ret) == 1;
		checked++;
	}
	r->checked += checked;
	if (!listed && checked)
		r->fpr = (double)drops / checked;
	return 0;
}

int verify_set(struct bench_set *s, __u8 *frame, __u32 stride)
{
	__u8 saved[BENCH_FRAME_LEN];
	int i, err = 0;

	memcpy(saved, frame, sizeof(saved));
	fprintf(stderr, "bench: %s: checking verdicts (every %u. source)\n",
		s->label, stride);
	for (i = 0; i < s->nrows && !err; i++) {
		struct bench_row *r = &s->rows[i];

		if (r->check == CK_NONE)
			continue;
		memcpy(frame, saved, sizeof(saved));
		err = verify_one(s, r, 0, frame, stride);
		if (!err)
			err = verify_one(s, r, 1, frame, stride);
		if (r->wrong)
			fprintf(stderr,
				"bench: %s: %s: %llu of %llu verdicts WRONG\n",
				s->label, r->name, (unsigned long long)r->wrong,
				(unsigned long long)r->checked);
	}
	memcpy(frame, saved, sizeof(saved));
	return err;
}

/* ns per packet of one run, as BPF_PROG_TEST_RUN reports it. */
static int measure(struct bench_row *r, struct bench *sk, int family,
		   const __u8 *frame, __u32 mask, __u32 repeat, double *ns)
{
	bool v6 = family == BW_V6;
	struct bpf_program *h =
		r->tc ? (v6 ? sk->progs.harness6_tc : sk->progs.harness_tc)
		      : (v6 ? sk->progs.harness6 : sk->progs.harness);
	struct bpf_map *target = r->tc ? sk->maps.target_tc : sk->maps.target;
	__u32 key = 0, ret;
	int err;

	if (r->direct) {
		err = run_prog(r->prog_fd, frame, repeat, &ret, ns);
		goto out;
	}
	if (bpf_map_update_elem(bpf_map__fd(target), &key, &r->prog_fd,
				BPF_ANY))
		return -errno;
	sk->bss->ctr = 0;
	sk->bss->mask = mask;
	err = run_prog(bpf_program__fd(h), frame, repeat, &ret, ns);
	/* XDP_ABORTED, TC_ACT_UNSPEC: the tail call did not happen. */
	if (!err && dropped(r, ret) < 0)
		err = -EINVAL;
out:
	return err;
}

/* srcs: the harness's table, __u64 (IPv4) or 16 bytes (IPv6) apart. */
static void fill_srcs(const struct bench_set *s, __u64 *srcs, bool listed)
{
	const __u32 *a = listed ? s->listed : s->unlisted;
	const struct bench_v6 *a6 = listed ? s->listed6 : s->unlisted6;
	__u32 n = listed ? s->nl : s->nu, i;

	for (i = 0; i < BENCH_SRCS_MAX; i++) {
		if (s->family == BW_V6)
			put_v6((__u8 *)&srcs[2 * i], &a6[i % n]);
		else
			srcs[i] = htonl(a[i % n]);
	}
}

static int time_scen(struct bench_set *s, struct bench *sk, const __u8 *frame,
		     const struct bench_cfg *cfg, int sc)
{
	bool cold = sc == SC_UC || sc == SC_LC;
	__u32 mask = cold ? BENCH_SRCS_MAX - 1 : BENCH_WARM - 1;
	__u32 repeat = cold ? cfg->repeat_cold : cfg->repeat_warm;
	double warmup;
	int t, i, err;

	for (i = 0; i < s->nrows; i++) {
		err = measure(&s->rows[i], sk, s->family, frame, mask,
			      repeat < WARMUP ? repeat : WARMUP, &warmup);
		if (err) {
			fprintf(stderr, "bench: %s: %s: run failed: %s\n",
				s->label, s->rows[i].name, strerror(-err));
			return err;
		}
	}
	for (t = 0; t < cfg->trials; t++)
		for (i = 0; i < s->nrows; i++) {
			/*
			 * Primed by an untimed run of its own: each timed run
			 * finds the caches as its own row's stream leaves
			 * them, not as the row before it (another structure,
			 * or a floor's source table) did. Unprimed, the first
			 * row after the floors paid 4-10 ns at 1M, cold, that
			 * the same program in the next row did not.
			 */
			err = measure(&s->rows[i], sk, s->family, frame, mask,
				      repeat < PRIME ? repeat : PRIME, &warmup);
			if (!err)
				err = measure(&s->rows[i], sk, s->family, frame,
					      mask, repeat,
					      &s->rows[i].t[sc][t]);
			if (err)
				return err;
		}
	for (i = 0; i < s->nrows; i++)
		finish_stats(s->rows[i].t[sc], cfg->trials, &s->rows[i].med[sc],
			     &s->rows[i].min[sc]);
	return 0;
}

int time_set(struct bench_set *s, struct bench *skel, __u64 *srcs,
	     const __u8 *frame, const struct bench_cfg *cfg)
{
	static const char *const names[SC_N] = {
		"unlisted warm",
		"unlisted cold",
		"listed warm",
		"listed cold",
	};
	int sc, err;

	for (sc = 0; sc < SC_N; sc++) {
		fprintf(stderr, "bench: %s: timing %s\n", s->label, names[sc]);
		fill_srcs(s, srcs, sc >= SC_LW);
		err = time_scen(s, skel, frame, cfg, sc);
		if (err)
			return err;
	}
	return 0;
}
