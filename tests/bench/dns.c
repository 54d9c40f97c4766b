// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The DNS rows: per-query cost of matching a query's name against a list
 * of n names, through BPF_PROG_TEST_RUN (dnsbench.bpf.c), for names of 2,
 * 4 and 8 labels, allowed and blocked, warm and cold: dnsdist's layout
 * (exact name; every suffix) against bloomwall's (subtree entries, every
 * suffix tested; exact entries), the rows interleaved in every trial as in
 * the address tables. Every verdict is checked first: dnsdist's rows must
 * block exactly the listed names, bloomwall's exactly what its filter
 * predicts (dns_predict, false positives included).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_dns.h"
#include "filter/bloom.h"
#include "lists/names.h"
#include "dnsbench.skel.h"
#include "bloomwall.skel.h"
#include "kernel/prog.h"

#define WARMUP (1U << 16)
#define QNAME_OFF (14 + 20 + 8 + 12)
#define FRAME_MAX DNS_FRAME_MAX

struct dns_set dns_sets[DNS_SETS];
int dns_nsets;

struct dns_ctx {
	struct dnsbench *skel;
	struct bw_filter_map filt[F_N];
	int hash_fd;
	struct name_slot *names; /* the harness's table, mmapped */
	int bw_prog[F_N];	 /* bloomwall's own program */
	struct bloomwall *bw[F_N];
	__u8 frame[FRAME_MAX];
	__u32 frame_len, wire_len;
};

struct name_slot {
	__u8 b[DNS_NAME_SLOT];
};

/* Query i of a set: blocked ones are list entries L, 2L, ... apart. */
static __u64 query_index(const struct dns_set *s, int blocked, __u32 i)
{
	if (blocked)
		return s->blk0 + (__u64)i * DNS_LABEL_COUNTS;
	return s->all0 + i;
}

static size_t query_name(const struct dns_set *s, int blocked, __u32 i,
			 char *out)
{
	return dns_name(s->L, query_index(s, blocked, i), out);
}

/* The wire name of query i, as the harness's table holds it. */
static __u32 query_wire(const struct dns_set *s, int blocked, __u32 i,
			__u8 *wire)
{
	char name[BW_NAME_MAX + 1];
	size_t len = query_name(s, blocked, i, name);

	return (__u32)bw_name_to_wire(name, len, wire);
}

/* The set's query frame, with its first allowed name. */
static void build_query(struct dns_ctx *x, const struct dns_set *s)
{
	__u8 wire[BW_WIRE_MAX];
	__u32 wl = query_wire(s, 0, 0, wire);

	x->frame_len = dns_query_frame(x->frame, wire, wl);
	x->wire_len = wl;
}

__u32 dns_query_frame(__u8 *frame, const __u8 *wire, __u32 wl)
{
	struct ethhdr *eth = (void *)frame;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	__u8 *dns = (__u8 *)(udp + 1);
	__u32 frame_len = QNAME_OFF + wl + 4;

	memset(frame, 0, DNS_FRAME_MAX);
	memcpy(eth->h_dest, "\x02\x00\x00\x00\x00\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(frame_len - sizeof(*eth));
	inet_pton(AF_INET, "192.0.2.10", &ip->saddr);
	inet_pton(AF_INET, "192.0.2.53", &ip->daddr);
	udp->source = htons(40000);
	udp->dest = htons(53);
	udp->len = htons(frame_len - sizeof(*eth) - sizeof(*ip));
	dns[0] = 0x12;
	dns[1] = 0x34;
	dns[2] = 0x01; /* RD */
	dns[5] = 1;    /* QDCOUNT */
	memcpy(dns + 12, wire, wl);
	dns[12 + wl + 1] = 1; /* QTYPE A */
	dns[12 + wl + 3] = 1; /* QCLASS IN */
	return frame_len;
}

static int run_frame(int fd, const __u8 *frame, __u32 len, __u32 repeat,
		     __u32 *ret, __u32 *dur)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	*ret = o.retval;
	if (dur)
		*dur = o.duration;
	return 0;
}

static struct bench_row *add(struct dns_set *s, const char *name, int fd,
			     enum bench_check ck, const struct bench_row *cost,
			     int filt)
{
	struct bench_row *r = &s->rows[s->nrows];

	memset(r, 0, sizeof(*r));
	r->memlock = r->measured = -1;
	r->load_s = -1;
	if (cost)
		*r = *cost;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->prog_fd = fd;
	r->check = ck;
	r->fpr = -1;
	s->filt[s->nrows++] = filt;
	return r;
}

/* Filter f's verdict for every query of the set, blocked and allowed. */
static void predict_set(struct dns_ctx *x, struct dns_set *s)
{
	char name[BW_NAME_MAX + 1];
	size_t len;
	__u32 i, n;
	int f, b;

	for (f = 0; f < F_N; f++)
		for (b = 0; b < 2; b++) {
			n = b ? s->nb : s->na;
			s->predict[f][b] = bench_alloc(n);
			for (i = 0; i < n; i++) {
				len = query_name(s, b, i, name);
				s->predict[f][b][i] =
					dns_predict(x->filt[f].mem, name, len);
			}
		}
}

static int verify_row(struct dns_ctx *x, struct dns_set *s, int ri, int b,
		      __u32 stride)
{
	struct bench_row *r = &s->rows[ri];
	__u32 n = b ? s->nb : s->na, i, ret = 0;
	__u8 frame[FRAME_MAX];
	__u64 drops = 0, checked = 0;
	bool exp;
	int err;

	memcpy(frame, x->frame, sizeof(frame));
	for (i = 0; i < n; i += stride) {
		query_wire(s, b, i, frame + QNAME_OFF);
		err = run_frame(r->prog_fd, frame, x->frame_len, 1, &ret, NULL);
		if (err)
			return err;
		exp = r->check == CK_PREDICT ? s->predict[s->filt[ri]][b][i]
					     : b;
		if ((ret != XDP_DROP && ret != XDP_PASS) ||
		    exp != (ret == XDP_DROP))
			r->wrong++;
		drops += ret == XDP_DROP;
		checked++;
	}
	r->checked += checked;
	if (!b && checked)
		r->fpr = (double)drops / checked;
	return 0;
}

static int verify_dns(struct dns_ctx *x, struct dns_set *s, __u32 stride)
{
	int i, err = 0;

	fprintf(stderr, "bench: DNS %llu names, %u labels: checking verdicts\n",
		(unsigned long long)s->n, s->L);
	for (i = 0; i < s->nrows && !err; i++) {
		if (s->rows[i].check == CK_NONE)
			continue;
		err = verify_row(x, s, i, 0, stride)
			      ?: verify_row(x, s, i, 1, stride);
		if (s->rows[i].wrong)
			fprintf(stderr, "bench: DNS: %s: %llu verdicts WRONG\n",
				s->rows[i].name,
				(unsigned long long)s->rows[i].wrong);
	}
	return err;
}

static int measure(struct dns_ctx *x, struct bench_row *r, __u32 mask,
		   __u32 repeat, double *ns)
{
	struct dnsbench *sk = x->skel;
	__u32 key = 0, ret = 0, dur = 0;
	int err;

	if (bpf_map_update_elem(bpf_map__fd(sk->maps.dns_target), &key,
				&r->prog_fd, BPF_ANY))
		return -errno;
	sk->bss->ctr = 0;
	sk->bss->mask = mask;
	sk->bss->name_len = x->wire_len;
	err = run_frame(bpf_program__fd(sk->progs.dns_harness), x->frame,
			x->frame_len, repeat, &ret, &dur);
	if (!err && ret != XDP_DROP && ret != XDP_PASS)
		err = -EINVAL; /* the harness failed */
	*ns = dur;
	return err;
}

/* The harness's table: the set's blocked or allowed names, cycled. */
static void fill_names(struct dns_ctx *x, const struct dns_set *s, int b)
{
	__u32 n = b ? s->nb : s->na, i;
	__u8 wire[BW_WIRE_MAX];

	for (i = 0; i < BENCH_SRCS_MAX; i++) {
		if (i < n)
			query_wire(s, b, i, wire);
		memcpy(x->names[i].b, i < n ? wire : x->names[i % n].b,
		       x->wire_len);
	}
}

static int time_dns(struct dns_ctx *x, struct dns_set *s,
		    const struct bench_cfg *cfg)
{
	int sc, t, i, err;
	double w;

	for (sc = 0; sc < SC_N; sc++) {
		bool cold = sc == SC_UC || sc == SC_LC;
		__u32 mask = cold ? BENCH_SRCS_MAX - 1 : BENCH_WARM - 1;
		__u32 rep = cold ? cfg->repeat_cold / 2 : cfg->repeat_warm;

		fprintf(stderr, "bench: DNS %llu names, %u labels: timing %d\n",
			(unsigned long long)s->n, s->L, sc);
		fill_names(x, s, sc >= SC_LW);
		for (i = 0; i < s->nrows; i++) {
			err = measure(x, &s->rows[i], mask,
				      rep < WARMUP ? rep : WARMUP, &w);
			if (err)
				return err;
		}
		for (t = 0; t < cfg->trials; t++)
			for (i = 0; i < s->nrows; i++) {
				err = measure(x, &s->rows[i], mask, rep,
					      &s->rows[i].t[sc][t]);
				if (err)
					return err;
			}
		for (i = 0; i < s->nrows; i++)
			finish_stats(s->rows[i].t[sc], cfg->trials,
				     &s->rows[i].med[sc], &s->rows[i].min[sc]);
	}
	return 0;
}

static int load_skel(struct dns_ctx *x)
{
	struct dnsbench *sk = dnsbench__open();
	int err;

	if (!sk)
		return -errno;
	x->skel = sk;
	bw_dns_consts_init(
		x->filt[F_SUB].mem,
		(void *)((char *)x->filt[F_SUB].mem + 2 * BW_BLOCK_BYTES),
		(struct bw_dns_consts *)&sk->rodata->consts_a);
	bw_dns_consts_init(
		x->filt[F_EXACT].mem,
		(void *)((char *)x->filt[F_EXACT].mem + 2 * BW_BLOCK_BYTES),
		(struct bw_dns_consts *)&sk->rodata->consts_b);
	err = bpf_map__reuse_fd(sk->maps.dd_names, x->hash_fd) ?:
		      bpf_map__reuse_fd(sk->maps.blocks_a, x->filt[F_SUB].fd) ?:
		      bpf_map__reuse_fd(sk->maps.blocks_b,
					x->filt[F_EXACT].fd) ?:
		      dnsbench__load(sk);
	if (err)
		return err;
	x->names = mmap(NULL, BENCH_SRCS_MAX * sizeof(*x->names),
			PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(sk->maps.names), 0);
	if (x->names == MAP_FAILED) {
		x->names = NULL;
		return -errno;
	}
	return 0;
}

/* bloomwall's own program for each filter (it has a DNS data path). */
static int load_bloomwall(struct dns_ctx *x)
{
	struct bw_maps maps;
	int f;

	for (f = 0; f < F_N; f++) {
		x->bw[f] = bloomwall__open_and_load();
		if (!x->bw[f])
			return -errno;
		bw_maps_from_skel(x->bw[f], &maps);
		x->bw_prog[f] = bw_prog_load(&maps, &x->filt[f]);
		if (x->bw_prog[f] < 0)
			return x->bw_prog[f];
	}
	return 0;
}

static void ctx_free(struct dns_ctx *x)
{
	int f;

	if (x->names)
		munmap(x->names, BENCH_SRCS_MAX * sizeof(*x->names));
	dnsbench__destroy(x->skel);
	for (f = 0; f < F_N; f++) {
		if (x->bw_prog[f] >= 0)
			close(x->bw_prog[f]);
		bloomwall__destroy(x->bw[f]);
		bw_filter_close(&x->filt[f]);
	}
	if (x->hash_fd >= 0)
		close(x->hash_fd);
	settle_memory();
}

static void add_rows(struct dns_ctx *x, struct dns_set *s,
		     const struct bench_row *cost)
{
	struct dnsbench *sk = x->skel;

	add(s, "harness -> XDP_PASS", bpf_program__fd(sk->progs.dns_pass),
	    CK_NONE, NULL, -1);
	add(s, "harness -> DNS parse floor",
	    bpf_program__fd(sk->progs.dns_floor), CK_NONE, NULL, -1);
	add(s, "dnsdist layout, exact name",
	    bpf_program__fd(sk->progs.dd_exact), CK_EXACT, &cost[0], -1);
	add(s, "dnsdist layout, every suffix",
	    bpf_program__fd(sk->progs.dd_suffix), CK_EXACT, &cost[0], -1);
	s->bw_ref = s->nrows;
	add(s, "bloomwall layout (bench reimpl.), subtree",
	    bpf_program__fd(sk->progs.bw_sub), CK_PREDICT, &cost[1], F_SUB);
	add(s, "bloomwall layout (bench reimpl.), exact",
	    bpf_program__fd(sk->progs.bw_exact), CK_PREDICT, &cost[2], F_EXACT);
	if (x->bw_prog[F_SUB] < 0)
		return;
	s->bw_ref = s->nrows;
	add(s, "bloomwall, subtree entries", x->bw_prog[F_SUB], CK_PREDICT,
	    &cost[1], F_SUB);
	add(s, "bloomwall, exact entries", x->bw_prog[F_EXACT], CK_PREDICT,
	    &cost[2], F_EXACT);
}

static int dns_size(const struct bench_cfg *cfg, __u64 n)
{
	struct dns_ctx x = { .hash_fd = -1,
			     .bw_prog = { -1, -1 },
			     .filt = { BW_FILTER_MAP_INIT,
				       BW_FILTER_MAP_INIT } };
	struct bench_row cost[3] = {};
	__u32 stride = cfg->verify_stride * 4;
	int li, err, f, b;

	fprintf(stderr, "bench: DNS %llu names: building\n",
		(unsigned long long)n);
	x.hash_fd = dns_make_hash(n, &cost[0]);
	err = x.hash_fd < 0 ? x.hash_fd : 0;
	err = err
		      ?: dns_make_filter(n, true, BW_DNS_DROP, &x.filt[F_SUB],
					 &cost[1]);
	err = err
		      ?: dns_make_filter(n, false, BW_DNS_DROP,
					 &x.filt[F_EXACT], &cost[2]);
	err = err ?: load_skel(&x) ?: load_bloomwall(&x);
	for (li = 0; li < DNS_LABEL_COUNTS && !err; li++) {
		struct dns_set *s = &dns_sets[dns_nsets++];
		__u64 nb = n > (__u64)li ? (n - li + 2) / 3 : 0;

		s->n = n;
		s->L = dns_label_counts[li];
		s->blk0 = li;
		s->nb = nb < BENCH_SRCS_MAX ? nb : BENCH_SRCS_MAX;
		s->all0 = n;
		s->na = BENCH_SRCS_MAX;
		add_rows(&x, s, cost);
		build_query(&x, s);
		predict_set(&x, s);
		err = verify_dns(&x, s, stride) ?: time_dns(&x, s, cfg);
		for (f = 0; f < F_N; f++)
			for (b = 0; b < 2; b++)
				free(s->predict[f][b]);
	}
	if (err)
		fprintf(stderr, "bench: DNS %llu names: %s\n",
			(unsigned long long)n, strerror(-err));
	ctx_free(&x);
	return err;
}

int bench_dns(const struct bench_cfg *cfg, const struct dns_cfg *dc)
{
	int i, err = 0;

	for (i = 0; i < dc->nsizes && !err; i++)
		err = dns_size(cfg, dc->sizes[i]);
	return err;
}
