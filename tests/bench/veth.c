// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Drop rate on a veth pair between two namespaces (tests/bench/run.sh makes
 * them): the sender is BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES in
 * namespace A (a program that rewrites the source address and returns
 * XDP_TX out of veth A); the program under test runs in native XDP on veth
 * B, in namespace B. Everything runs on one core: the sender's CPU also runs
 * veth B's NAPI. Frames per second = frames veth B received (all of them
 * dropped) over the sender's wall time, bloomwall against a plain XDP_DROP.
 *
 * The way out (--udp-send, run by tests/bench/egress.sh): a UDP socket in
 * the namespace of the caller sends through the host's own stack, so the
 * packets pass nftables' output hook and the TC egress hook of the veth.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/if_link.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_extra.h"
#include "bench_maps.h"
#include "bloomwall.h"
#include "bench.skel.h"
#include "bloomwall.skel.h"

#define VETH_TRIALS 5
/* XDP_DROP, bloomwall, the exact hash map, xdp-filter. */
#define VETH_ROWS 4

struct veth_ctx {
	char ns[2][64], dev[2][IFNAMSIZ];
	int nsfd[2], selffd, ifindex[2];
	struct bench *skel;
	struct bloomwall *bw;
	int bw_prog; /* bloomwall's program for filt */
	struct bw_filter_map filt;
	int hash_fd; /* the exact hash map, the same list */
	int xf_prog; /* xdp-filter's program, the same list in filter_ipv4 */
	struct bpf_object *xf;
	__u64 n;
};

struct veth_result {
	const char *name;
	double mpps[VETH_TRIALS];
	__u64 sent, received, dropped;
};

static struct veth_result veth_res[VETH_ROWS];
static int nveth;
static __u64 veth_entries;

static int parse_spec(struct veth_ctx *v, const char *spec)
{
	char buf[256], *p[4], *save = NULL;
	int i;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (i = 0; i < 4; i++) {
		p[i] = strtok_r(i ? NULL : buf, ":", &save);
		if (!p[i])
			return -EINVAL;
	}
	snprintf(v->ns[0], sizeof(v->ns[0]), "%s", p[0]);
	snprintf(v->dev[0], sizeof(v->dev[0]), "%s", p[1]);
	snprintf(v->ns[1], sizeof(v->ns[1]), "%s", p[2]);
	snprintf(v->dev[1], sizeof(v->dev[1]), "%s", p[3]);
	return 0;
}

static int enter(struct veth_ctx *v, int side)
{
	return setns(side < 0 ? v->selffd : v->nsfd[side], CLONE_NEWNET)
		       ? -errno
		       : 0;
}

static int open_ns(struct veth_ctx *v)
{
	char path[128];
	int i;

	v->selffd = open("/proc/self/ns/net", O_RDONLY);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", v->ns[i]);
		v->nsfd[i] = open(path, O_RDONLY);
		if (v->nsfd[i] < 0 || v->selffd < 0)
			return -errno;
		if (enter(v, i))
			return -errno;
		v->ifindex[i] = if_nametoindex(v->dev[i]);
		if (!v->ifindex[i])
			return -ENODEV;
	}
	return enter(v, -1);
}

/* rx_packets of a device in the current namespace (netlink, 32 bits). */
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

static int send_frames(struct veth_ctx *v, __u32 n, double *secs)
{
	struct xdp_md ctx = { .ingress_ifindex = v->ifindex[0],
			      .data_end = BENCH_FRAME_LEN };
	__u8 frame[BENCH_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = sizeof(frame), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = n,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	__u64 t0;
	int err;

	build_frame(frame, 0);
	v->skel->bss->ctr = 0;
	v->skel->bss->mask = BENCH_SRCS_MAX - 1;
	err = enter(v, 0);
	if (err)
		return err;
	t0 = now_ns();
	err = bpf_prog_test_run_opts(bpf_program__fd(v->skel->progs.sender),
				     &opts)
		      ? -errno
		      : 0;
	*secs = (now_ns() - t0) / 1e9;
	return enter(v, -1) ?: err;
}

/* Attaches fd in native mode on veth B, sends n frames, counts them. */
static int one_run(struct veth_ctx *v, int fd, __u32 n, struct veth_result *r,
		   int t)
{
	__u32 rx0, rx1;
	double secs = 0;
	int err;

	err = enter(v, 1);
	if (!err)
		err = bpf_xdp_attach(v->ifindex[1], fd, XDP_FLAGS_DRV_MODE,
				     NULL);
	rx0 = rx_packets(v->dev[1]);
	if (enter(v, -1) || err)
		return err ?: -EIO;
	err = send_frames(v, n, &secs);
	enter(v, 1);
	rx1 = rx_packets(v->dev[1]);
	bpf_xdp_detach(v->ifindex[1], XDP_FLAGS_DRV_MODE, NULL);
	enter(v, -1);
	r->sent += n;
	r->received += rx1 - rx0;
	r->mpps[t] = secs > 0 ? (rx1 - rx0) / secs / 1e6 : 0;
	return err;
}

static void fill_listed(struct veth_ctx *v)
{
	__u64 *srcs;
	__u32 i;

	srcs = mmap(NULL, BENCH_SRCS_MAX * sizeof(*srcs),
		    PROT_READ | PROT_WRITE, MAP_SHARED,
		    bpf_map__fd(v->skel->maps.srcs), 0);
	if (srcs == MAP_FAILED)
		return;
	for (i = 0; i < BENCH_SRCS_MAX; i++)
		srcs[i] = htonl(bench_perm(i % v->n));
	munmap(srcs, BENCH_SRCS_MAX * sizeof(*srcs));
}

/*
 * bloomwall, the exact hash map and xdp-filter with the largest list, every
 * source listed (cold, dropped).
 */
static int setup(struct veth_ctx *v, const struct bench_cfg *cfg)
{
	struct bench_row cost = {};
	struct bw_maps maps;
	__u64 *keys, i;
	int err;

	v->n = cfg->sizes[cfg->nsizes - 1];
	keys = bench_alloc(v->n * sizeof(*keys));
	for (i = 0; i < v->n; i++)
		keys[i] = bw_v4key(bench_perm(i), 32);
	err = make_bloomwall(keys, v->n, 0, &v->filt, &cost, NULL);
	if (!err) {
		v->hash_fd = make_hash(keys, v->n, &cost);
		err = v->hash_fd < 0 ? v->hash_fd : 0;
	}
	if (!err) {
		v->xf_prog = make_xdpfilter(keys, v->n, &cost, &v->xf);
		err = v->xf_prog < 0 ? v->xf_prog : 0;
	}
	free(keys);
	if (err)
		return err;
	v->bw = bloomwall__open_and_load();
	v->skel = bench__open();
	if (!v->bw || !v->skel)
		return -errno;
	err = bpf_map__reuse_fd(v->skel->maps.hash_v4, v->hash_fd)
		      ?: bench__load(v->skel);
	if (err)
		return err;
	fill_listed(v);
	bw_maps_from_skel(v->bw, &maps);
	v->bw_prog = bw_prog_load(&maps, &v->filt);
	return v->bw_prog < 0 ? v->bw_prog : 0;
}

static __u64 bw_dropped(struct veth_ctx *v)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct bw_stats *st = bench_alloc(ncpu * sizeof(*st));
	__u32 key = 0;
	__u64 sum = 0;

	if (!bpf_map_lookup_elem(bpf_map__fd(v->bw->maps.stats), &key, st))
		for (i = 0; i < ncpu; i++)
			sum += st[i].dropped_v4;
	free(st);
	return sum;
}

int bench_veth(const struct bench_cfg *cfg)
{
	struct veth_ctx v = { .filt = BW_FILTER_MAP_INIT,
			      .bw_prog = -1,
			      .hash_fd = -1,
			      .xf_prog = -1,
			      .selffd = -1,
			      .nsfd = { -1, -1 } };
	__u32 n = cfg->quick ? 1U << 20 : 1U << 22;
	int t, err;

	fprintf(stderr, "bench: veth drop rate\n");
	err = parse_spec(&v, cfg->veth);
	if (!err)
		err = open_ns(&v);
	if (!err)
		err = setup(&v, cfg);
	veth_res[0].name = "XDP_DROP";
	veth_res[1].name = "bloomwall";
	veth_res[2].name = "hash map (exact, bench.bpf.c hash_lookup)";
	veth_res[3].name = "xdp-filter alw_ip";
	veth_entries = v.n;
	/* The rows interleaved in every trial, as in the tables. */
	for (t = 0; t < VETH_TRIALS && !err; t++) {
		int fds[VETH_ROWS] = {
			bpf_program__fd(v.skel->progs.xdp_drop),
			v.bw_prog,
			bpf_program__fd(v.skel->progs.hash_lookup),
			v.xf_prog,
		};
		int i;

		for (i = 0; i < VETH_ROWS && !err; i++)
			err = one_run(&v, fds[i], n, &veth_res[i], t);
		nveth = t + 1;
	}
	if (v.bw)
		veth_res[1].dropped = bw_dropped(&v);
	if (err)
		fprintf(stderr, "bench: veth: %s\n", strerror(-err));
	bench__destroy(v.skel);
	if (v.bw_prog >= 0)
		close(v.bw_prog);
	bloomwall__destroy(v.bw);
	bw_filter_close(&v.filt);
	bpf_object__close(v.xf);
	if (v.hash_fd >= 0)
		close(v.hash_fd);
	settle_memory();
	return err;
}

void print_veth_results(FILE *f)
{
	double med[VETH_ROWS], min[VETH_ROWS];
	int i;

	if (!nveth)
		return;
	fprintf(f,
		"### Drop rate on a veth pair, one core (median (min) of %d, Mpps)\n\n",
		nveth);
	fprintf(f,
		"| program on veth B | frames sent | received | dropped (bloomwall stats) | Mpps | x XDP_DROP | bloomwall / row |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < VETH_ROWS; i++)
		finish_stats(veth_res[i].mpps, nveth, &med[i], &min[i]);
	for (i = 0; i < VETH_ROWS; i++) {
		char dropped[32] = "-";

		if (i == 1)
			snprintf(dropped, sizeof(dropped), "%llu",
				 (unsigned long long)veth_res[i].dropped);
		fprintf(f,
			"| %s | %llu | %llu | %s | %.2f (%.2f) | %.2f | %.2f |\n",
			veth_res[i].name, (unsigned long long)veth_res[i].sent,
			(unsigned long long)veth_res[i].received, dropped,
			med[i], min[i], med[0] > 0 ? med[i] / med[0] : 0,
			med[i] > 0 ? med[1] / med[i] : 0);
	}
	fprintf(f,
		"\nSender: BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES in namespace A (rewrite source, XDP_TX); "
		"receiver: native XDP on veth B in namespace B; bloomwall, the hash map and xdp-filter each hold the same %llu random addresses, "
		"every source is listed (1M distinct, cold); the four programs take turns in every trial. Received = veth B rx_packets.\n\n",
		(unsigned long long)veth_entries);
}

void print_extra(FILE *f)
{
	print_swap_results(f);
	print_veth_results(f);
}

/* Destinations of --udp-send: read from a file, sent to in turn. */
#define UDP_DSTS_MAX (1U << 20)
#define UDP_BATCH 64
#define UDP_PAYLOAD 18 /* a 60-byte frame */

static __u32 read_dsts(const char *path, struct sockaddr_in *dst)
{
	FILE *f = fopen(path, "r");
	char line[64];
	__u32 n = 0;

	if (!f)
		return 0;
	while (n < UDP_DSTS_MAX && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (inet_pton(AF_INET, line, &dst[n].sin_addr) != 1)
			continue;
		dst[n].sin_family = AF_INET;
		dst[n].sin_port = htons(9); /* discard */
		n++;
	}
	fclose(f);
	return n;
}

/*
 * --udp-send FILE,SECS,BATCH: sends UDP datagrams to the addresses of FILE
 * in turn, BATCH (1-64) to a sendmmsg, for SECS seconds, and prints how
 * many it handed to the stack and how many the stack refused with EPERM
 * (what an nftables drop in the output hook returns, which ends the batch;
 * a TC drop returns success to UDP). A refused datagram counts as sent: it
 * went through the hook.
 */
int udp_send(const char *spec)
{
	static struct mmsghdr msg[UDP_BATCH];
	static struct iovec iov = { .iov_len = UDP_PAYLOAD };
	static char payload[UDP_PAYLOAD], path[4096];
	__u64 sent = 0, eperm = 0, other = 0, t0, end;
	struct sockaddr_in *dst;
	const char *c = strchr(spec, ',');
	double secs;
	__u32 n, i = 0, k, batch;
	int fd;

	if (!c || (size_t)(c - spec) >= sizeof(path) || !strchr(c + 1, ','))
		return -EINVAL;
	snprintf(path, sizeof(path), "%.*s", (int)(c - spec), spec);
	secs = atof(c + 1);
	batch = atoi(strchr(c + 1, ',') + 1);
	if (batch < 1 || batch > UDP_BATCH)
		return -EINVAL;
	dst = bench_alloc(UDP_DSTS_MAX * sizeof(*dst));
	n = read_dsts(path, dst);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!n || secs <= 0 || fd < 0) {
		free(dst);
		return fd < 0 ? -errno : -EINVAL;
	}
	iov.iov_base = payload;
	t0 = now_ns();
	end = t0 + (__u64)(secs * 1e9);
	while (now_ns() < end) {
		int r;

		for (k = 0; k < batch; k++) {
			msg[k].msg_hdr.msg_name = &dst[(i + k) % n];
			msg[k].msg_hdr.msg_namelen = sizeof(*dst);
			msg[k].msg_hdr.msg_iov = &iov;
			msg[k].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(fd, msg, batch, 0);
		if (r < 0) {
			/* The first of the batch refused: past it. */
			if (errno == EPERM)
				eperm++;
			else
				other++;
			r = 1;
		}
		sent += r;
		i = (i + r) % n;
	}
	printf("sent %llu eperm %llu errors %llu secs %.3f\n",
	       (unsigned long long)sent, (unsigned long long)eperm,
	       (unsigned long long)other, (now_ns() - t0) / 1e9);
	close(fd);
	free(dst);
	return 0;
}
