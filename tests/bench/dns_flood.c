// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * DNS answers per second on a veth pair, one core, with no userspace
 * client in the way: the sender is BPF_PROG_TEST_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES in namespace A (dns_sender: the next listed
 * name into a query frame, XDP_TX out of veth A); on veth B, in namespace
 * B, native XDP: bloomwall's own program with those names (subtree
 * entries, action REFUSED) answering each query in place with XDP_TX, or
 * dns_reflect, which sends every query straight back unchanged (the floor
 * of any answer on this path). Veth A runs XDP_DROP, so the answers end
 * there; answered = veth A's rx_packets. Sender, veth B's and veth A's
 * receive all run on the one CPU the bench is pinned to. Compare with the
 * end-to-end dnsperf figures (dnsperf.sh), where a userspace client bounds
 * the rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/if_link.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_dns.h"
#include "lists/names.h"
#include "bench.skel.h"
#include "dnsbench.skel.h"
#include "bloomwall.skel.h"
#include "kernel/prog.h"

#define FLOOD_TRIALS 5
#define FLOOD_NAMES 1000000ULL
#define FLOOD_ROWS 2

struct flood_row {
	const char *name;
	double mpps[FLOOD_TRIALS];
	__u64 sent, answered;
};

static struct flood_row flood[FLOOD_ROWS] = {
	{ .name = "reflect (XDP_TX, no lookup, no rewrite)" },
	{ .name = "bloomwall (lookup, REFUSED answer, XDP_TX)" },
};
static int nflood;
static __u64 flood_refused; /* bloomwall's dns_stats: blocked, REFUSED */

struct flood_ctx {
	char ns[2][64], dev[2][IFNAMSIZ];
	int nsfd[2], self, ifindex[2];
	struct dnsbench *dsk;
	struct bench *bsk;
	__u8 frame[DNS_FRAME_MAX];
	__u32 frame_len;
};

static int enter(struct flood_ctx *v, int side)
{
	return setns(side < 0 ? v->self : v->nsfd[side], CLONE_NEWNET) ? -errno
								       : 0;
}

static int open_spec(struct flood_ctx *v, const char *spec)
{
	char buf[256], *p, *save = NULL, path[128];
	int i;

	snprintf(buf, sizeof(buf), "%s", spec);
	v->self = open("/proc/self/ns/net", O_RDONLY);
	for (i = 0; i < 4; i++) {
		p = strtok_r(i ? NULL : buf, ":", &save);
		if (!p)
			return -EINVAL;
		if (i % 2 == 0)
			snprintf(v->ns[i / 2], sizeof(v->ns[0]), "%s", p);
		else
			snprintf(v->dev[i / 2], sizeof(v->dev[0]), "%s", p);
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", v->ns[i]);
		v->nsfd[i] = open(path, O_RDONLY);
		if (v->nsfd[i] < 0 || v->self < 0 || enter(v, i))
			return -errno;
		v->ifindex[i] = if_nametoindex(v->dev[i]);
		if (!v->ifindex[i])
			return -ENODEV;
	}
	return enter(v, -1);
}

/* rx_packets of dev in the current namespace. */
static __u32 rx_packets(const char *dev)
{
	struct ifaddrs *ifa, *i;
	__u32 n = 0;

	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET &&
		    !strcmp(i->ifa_name, dev) && i->ifa_data)
			n = ((struct rtnl_link_stats *)i->ifa_data)->rx_packets;
	freeifaddrs(ifa);
	return n;
}

static int attach(struct flood_ctx *v, int side, int fd)
{
	int err = enter(v, side);

	if (!err)
		err = fd >= 0 ? bpf_xdp_attach(v->ifindex[side], fd,
					       XDP_FLAGS_DRV_MODE, NULL)
			      : bpf_xdp_detach(v->ifindex[side],
					       XDP_FLAGS_DRV_MODE, NULL);
	return enter(v, -1) ?: err;
}

/* n queries through the program fd on veth B; answers counted on veth A. */
static int one_run(struct flood_ctx *v, int fd, __u32 n, struct flood_row *r,
		   int t)
{
	struct xdp_md ctx = { .ingress_ifindex = v->ifindex[0],
			      .data_end = v->frame_len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = v->frame,
		    .data_size_in = v->frame_len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = n,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	__u32 rx0, rx1;
	__u64 t0;
	double secs;
	int err;

	err = attach(v, 1, fd) ?: enter(v, 0);
	if (err)
		return err;
	rx0 = rx_packets(v->dev[0]);
	v->dsk->bss->ctr = 0;
	t0 = now_ns();
	err = bpf_prog_test_run_opts(bpf_program__fd(v->dsk->progs.dns_sender),
				     &o)
		      ? -errno
		      : 0;
	secs = (now_ns() - t0) / 1e9;
	rx1 = rx_packets(v->dev[0]);
	err = enter(v, -1) ?: err;
	r->sent += n;
	r->answered += rx1 - rx0;
	r->mpps[t] = secs > 0 ? (rx1 - rx0) / secs / 1e6 : 0;
	return err ?: attach(v, 1, -1);
}

/* The listed 2-label names into the sender's table; the query frame. */
static int fill(struct flood_ctx *v)
{
	struct {
		__u8 b[DNS_NAME_SLOT];
	} * names;
	char name[BW_NAME_MAX + 1];
	__u8 wire[BW_WIRE_MAX];
	__u32 i, wl = 0;
	size_t len;

	names = mmap(NULL, BENCH_SRCS_MAX * sizeof(*names),
		     PROT_READ | PROT_WRITE, MAP_SHARED,
		     bpf_map__fd(v->dsk->maps.names), 0);
	if (names == MAP_FAILED)
		return -errno;
	for (i = 0; i < BENCH_SRCS_MAX; i++) {
		/* Entries 0, 3, 6 ... of the list have 2 labels. */
		len = dns_name(2, (__u64)(i % (FLOOD_NAMES / 3)) * 3, name);
		wl = bw_name_to_wire(name, len, wire);
		memcpy(names[i].b, wire, wl);
		/* QTYPE A, QCLASS IN: an answer may have rewritten them. */
		memcpy(names[i].b + wl, "\0\1\0\1", 4);
	}
	munmap(names, BENCH_SRCS_MAX * sizeof(*names));
	v->frame_len = dns_query_frame(v->frame, wire, wl);
	memcpy(v->dsk->bss->hdr_tmpl, v->frame, sizeof(v->dsk->bss->hdr_tmpl));
	v->dsk->bss->mask = BENCH_SRCS_MAX - 1;
	v->dsk->bss->name_len = wl + 4;
	return 0;
}

/* Queries bloomwall answered REFUSED, summed over CPUs. */
static __u64 refused(struct bloomwall *bw)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct bw_dns_stats *st = bench_alloc(ncpu * sizeof(*st));
	__u32 key = 0;
	__u64 sum = 0;

	if (!bpf_map_lookup_elem(bpf_map__fd(bw->maps.dns_stats), &key, st))
		for (i = 0; i < ncpu; i++)
			sum += st[i].blocked[BW_DNS_REFUSED];
	free(st);
	return sum;
}

int bench_dns_flood(const struct bench_cfg *cfg)
{
	struct flood_ctx v = { .self = -1, .nsfd = { -1, -1 } };
	struct bw_filter_map fm = BW_FILTER_MAP_INIT;
	__u32 n = cfg->quick ? 1U << 20 : 1U << 22;
	struct bench_row cost = {};
	struct bloomwall *bw = NULL;
	struct bw_maps maps;
	int prog = -1, fds[FLOOD_ROWS], t, i, err;

	fprintf(stderr, "bench: DNS answers on the veth pair\n");
	err = open_spec(&v, cfg->veth)
		      ?: dns_make_filter(FLOOD_NAMES, true, BW_DNS_REFUSED, &fm,
					 &cost);
	if (!err) {
		bw = bloomwall__open_and_load();
		v.dsk = dnsbench__open_and_load();
		v.bsk = bench__open_and_load();
		err = bw && v.dsk && v.bsk ? 0 : -errno;
	}
	if (!err) {
		bw_maps_from_skel(bw, &maps);
		prog = bw_prog_load(&maps, &fm);
		err = prog < 0 ? prog : 0;
	}
	err = err ?: fill(&v) ?:
		      attach(&v, 0, bpf_program__fd(v.bsk->progs.xdp_drop));
	fds[0] = err ? -1 : bpf_program__fd(v.dsk->progs.dns_reflect);
	fds[1] = prog;
	for (t = 0; t < FLOOD_TRIALS && !err; t++) {
		for (i = 0; i < FLOOD_ROWS && !err; i++)
			err = one_run(&v, fds[i], n, &flood[i], t);
		nflood = t + 1;
	}
	if (v.self >= 0)
		attach(&v, 0, -1);
	if (bw)
		flood_refused = refused(bw);
	if (err)
		fprintf(stderr, "bench: DNS flood: %s\n", strerror(-err));
	if (prog >= 0)
		close(prog);
	bench__destroy(v.bsk);
	dnsbench__destroy(v.dsk);
	bloomwall__destroy(bw);
	bw_filter_close(&fm);
	return err;
}

void print_dns_flood(FILE *f)
{
	double med[FLOOD_ROWS], min[FLOOD_ROWS];
	char refused_str[32];
	int i;

	if (!nflood)
		return;
	snprintf(refused_str, sizeof(refused_str), "%llu",
		 (unsigned long long)flood_refused);
	fprintf(f,
		"### DNS answers on a veth pair, one core (median (min) of %d, M answers/s)\n\n",
		nflood);
	fprintf(f,
		"| program on veth B | queries sent | answers received | REFUSED (bloomwall dns_stats) | M answers/s | x reflect |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < FLOOD_ROWS; i++)
		finish_stats(flood[i].mpps, nflood, &med[i], &min[i]);
	for (i = 0; i < FLOOD_ROWS; i++)
		fprintf(f, "| %s | %llu | %llu | %s | %.2f (%.2f) | %.2f |\n",
			flood[i].name, (unsigned long long)flood[i].sent,
			(unsigned long long)flood[i].answered,
			i ? refused_str : "-", med[i], min[i],
			med[0] > 0 ? med[i] / med[0] : 0);
	fprintf(f,
		"\nSender: BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES in namespace A, a listed 2-label name per query "
		"(1M names in the filter, 333,334 distinct queries, cold); receiver: native XDP on veth B; the answers come back to "
		"veth A (XDP_DROP there) and are counted in its rx_packets. Everything on one CPU.\n\n");
}
