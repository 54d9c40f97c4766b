// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * flood: the traffic of the swap-under-load test (tests/e2e/load_tests.sh).
 *
 * Sends frames across a veth pair with BPF_PROG_TEST_RUN and
 * BPF_F_TEST_XDP_LIVE_FRAMES from the sender's namespace (as tests/bench's
 * veth.c does), from three sets of source addresses, and tells per set what
 * the filter on the receiving veth did with them, while `bloomwall reload`
 * swaps filters underneath:
 *
 *   dropped  bloomwall's own dropped_v4 counter (its pinned stats map);
 *   passed   a tc ingress program behind bloomwall counts what got past it.
 *
 * Both counters are totals, not per set, so the sets take turns: one set a
 * round (one BPF_PROG_TEST_RUN), and a round ends only once every frame of
 * it is counted (or is seen to be lost before the filter: dropped by a
 * full ring, or by no program on the hook). What a round counted is then
 * that set's, exactly.
 *
 * Usage: flood NETNS:TXDEV RXDEV STATS_PIN BOTH A_ONLY NEITHER FRAMES
 *        [READY_FILE UNTIL_FILE]
 * BOTH, A_ONLY, NEITHER: files of IPv4 source addresses, one a line (at
 * most FLOOD_SRCS each). Sends until the filter has judged at least
 * FRAMES frames (frames lost before it are not counted) and, given
 * UNTIL_FILE, goes on until that file exists; creates READY_FILE once
 * traffic flows. Prints one line per set:
 *   set NAME sent=N dropped=N passed=N ring=N lost=N
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bloomwall.h"
#include "flood.h"
#include "flood.skel.h"

/*
 * One BPF_PROG_TEST_RUN call costs tens of milliseconds of set-up (its
 * page pool), so rounds are large, and the receiving veth's ring (256
 * frames) can overflow when a loaded machine leaves the receiver
 * unscheduled. The veth counts those frames (rx_dropped: the peer's
 * xdp_xmit errors); a frame sent while the hook had no program is counted
 * nowhere. So each round tells the two apart: ring = what rx_dropped grew
 * by, lost = what no counter saw.
 */
#define ROUND_FRAMES (1U << 16)
#define FRAME_LEN 64
/*
 * Polls (100 us each, at least) of an unchanged count before a round's
 * missing frames are taken as lost: long enough for a receiver that a busy
 * machine leaves unscheduled, whose late frames would else be counted in
 * the next round.
 */
#define SETTLE_POLLS 2000

static const char *const set_names[FLOOD_SETS] = { "both", "a_only",
						   "neither" };

struct flood {
	int selffd, txnsfd, txindex, rxindex, stats_fd, ncpu;
	unsigned char rxmac[ETH_ALEN];
	struct flood_bpf *skel;
	const char *rxname;
	unsigned long long sent[FLOOD_SETS], dropped[FLOOD_SETS],
		passed[FLOOD_SETS], ring[FLOOD_SETS], lost[FLOOD_SETS];
};

static int die(const char *what, int err)
{
	fprintf(stderr, "flood: %s: %s\n", what,
		strerror(err < 0 ? -err : err));
	return 1;
}

static int read_srcs(struct flood *f, int set, const char *path)
{
	char line[64];
	__u32 addr[FLOOD_SRCS], i, n = 0;
	FILE *in = fopen(path, "r");

	if (!in)
		return -errno;
	while (n < FLOOD_SRCS && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = 0;
		if (*line && inet_pton(AF_INET, line, &addr[n]) == 1)
			n++;
	}
	fclose(in);
	if (!n)
		return -EINVAL;
	/* The sender cycles through FLOOD_SRCS slots: repeat the list. */
	for (i = 0; i < FLOOD_SRCS; i++) {
		__u32 key = set * FLOOD_SRCS + i;

		if (bpf_map_update_elem(bpf_map__fd(f->skel->maps.srcs), &key,
					&addr[i % n], BPF_ANY))
			return -errno;
	}
	return 0;
}

static int rx_mac(const char *dev, unsigned char *mac)
{
	struct ifaddrs *ifa, *i;
	int err = -ENODEV;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		struct sockaddr_ll *ll = (void *)i->ifa_addr;

		if (ll && ll->sll_family == AF_PACKET &&
		    !strcmp(i->ifa_name, dev) && ll->sll_halen == ETH_ALEN) {
			memcpy(mac, ll->sll_addr, ETH_ALEN);
			err = 0;
		}
	}
	freeifaddrs(ifa);
	return err;
}

/*
 * The receiving veth's rx_dropped (a 32-bit count in getifaddrs' stats:
 * deltas are taken modulo 2^32), or 0 if it cannot be read.
 */
static __u32 rx_dropped(const struct flood *f)
{
	struct ifaddrs *ifa, *i;
	__u32 n = 0;

	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		const struct rtnl_link_stats *st = i->ifa_data;

		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET && st &&
		    !strcmp(i->ifa_name, f->rxname))
			n = st->rx_dropped;
	}
	freeifaddrs(ifa);
	return n;
}

static void build_frame(const struct flood *f, unsigned char *frame)
{
	struct ethhdr *eth = (void *)frame;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp = (void *)(iph + 1);

	memset(frame, 0, FRAME_LEN);
	memcpy(eth->h_dest, f->rxmac, ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x10\x0d", ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(FRAME_LEN - sizeof(*eth));
	/* 10.77.0.1: the e2e receiver's address; tc drops them before IP. */
	iph->daddr = htonl(0x0a4d0001);
	udp->source = htons(40000);
	udp->len = htons(FRAME_LEN - sizeof(*eth) - sizeof(*iph));
}

/* A per-CPU counter summed over the CPUs. */
static unsigned long long percpu_sum(int fd, __u32 key, size_t size, size_t off,
				     int ncpu)
{
	unsigned long long sum = 0;
	char *v = calloc(ncpu, size);
	int i;

	if (v && !bpf_map_lookup_elem(fd, &key, v))
		for (i = 0; i < ncpu; i++)
			sum += *(__u64 *)(v + i * size + off);
	free(v);
	return sum;
}

static unsigned long long bw_dropped(const struct flood *f)
{
	return percpu_sum(f->stats_fd, 0, sizeof(struct bw_stats),
			  offsetof(struct bw_stats, dropped_v4), f->ncpu);
}

static unsigned long long tc_passed(const struct flood *f, int set)
{
	return percpu_sum(bpf_map__fd(f->skel->maps.passed), set, sizeof(__u64),
			  0, f->ncpu);
}

static int send_round(struct flood *f, int set, __u32 n)
{
	unsigned char frame[FRAME_LEN];
	struct xdp_md ctx = { .ingress_ifindex = f->txindex,
			      .data_end = FRAME_LEN };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = sizeof(frame), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = n,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	unsigned long long d0 = bw_dropped(f), p0 = tc_passed(f, set);
	unsigned long long got = 0, prev = ~0ULL, d, p;
	__u32 r0 = rx_dropped(f), ring = 0;
	int err, still = 0;

	build_frame(f, frame);
	f->skel->bss->set = set;
	if (setns(f->txnsfd, CLONE_NEWNET))
		return -errno;
	err = bpf_prog_test_run_opts(bpf_program__fd(f->skel->progs.tx), &opts)
		      ? -errno
		      : 0;
	if (setns(f->selffd, CLONE_NEWNET))
		return -errno;
	if (err)
		return err;
	/* The receiver may still be busy with the round's last frames. */
	for (;;) {
		d = bw_dropped(f) - d0;
		p = tc_passed(f, set) - p0;
		ring = rx_dropped(f) - r0;
		got = d + p;
		if (got + ring >= n)
			break;
		still = got == prev ? still + 1 : 0;
		if (still >= SETTLE_POLLS)
			break;
		prev = got;
		usleep(100);
	}
	if (got + ring > n) {
		fprintf(stderr,
			"flood: round of %u '%s' frames counted %llu and %u in a full ring: counters shared with other traffic?\n",
			n, set_names[set], got, ring);
		return -EPROTO;
	}
	f->sent[set] += n;
	f->dropped[set] += d;
	f->passed[set] += p;
	f->ring[set] += ring;
	f->lost[set] += n - got - ring;
	return 0;
}

static int setup(struct flood *f, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, tc);
	char path[128], *dev = strchr(argv[1], ':');
	int err, i;

	if (!dev)
		return -EINVAL;
	*dev++ = 0;
	snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
	f->selffd = open("/proc/self/ns/net", O_RDONLY);
	f->txnsfd = open(path, O_RDONLY);
	if (f->selffd < 0 || f->txnsfd < 0)
		return -errno;
	if (setns(f->txnsfd, CLONE_NEWNET))
		return -errno;
	f->txindex = if_nametoindex(dev);
	if (setns(f->selffd, CLONE_NEWNET))
		return -errno;
	f->rxindex = if_nametoindex(argv[2]);
	f->rxname = argv[2];
	if (!f->txindex || !f->rxindex)
		return -ENODEV;
	err = rx_mac(argv[2], f->rxmac);
	if (err)
		return err;
	f->stats_fd = bpf_obj_get(argv[3]);
	if (f->stats_fd < 0)
		return -errno;
	f->ncpu = libbpf_num_possible_cpus();
	f->skel = flood_bpf__open_and_load();
	if (!f->skel)
		return -errno;
	for (i = 0; i < FLOOD_SETS; i++) {
		err = read_srcs(f, i, argv[4 + i]);
		if (err)
			return err;
	}
	hook.ifindex = f->rxindex;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	tc.prog_fd = bpf_program__fd(f->skel->progs.count);
	return bpf_tc_attach(&hook, &tc);
}

static void teardown(struct flood *f)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = f->rxindex,
		    .attach_point = BPF_TC_INGRESS);

	if (f->rxindex)
		bpf_tc_hook_destroy(&hook);
	flood_bpf__destroy(f->skel);
}

int main(int argc, char **argv)
{
	struct flood f = { .selffd = -1, .txnsfd = -1, .stats_fd = -1 };
	unsigned long long want, total = 0;
	const char *ready = argc > 9 ? argv[8] : NULL;
	const char *until = argc > 9 ? argv[9] : NULL;
	int err, set = 0, i;

	if (argc != 8 && argc != 10) {
		fprintf(stderr,
			"usage: flood NETNS:TXDEV RXDEV STATS_PIN BOTH A_ONLY NEITHER FRAMES [READY_FILE UNTIL_FILE]\n");
		return 2;
	}
	want = strtoull(argv[7], NULL, 0);
	err = setup(&f, argv);
	if (err) {
		teardown(&f);
		return die("setup", err);
	}
	while (total < want || (until && access(until, F_OK))) {
		err = send_round(&f, set, ROUND_FRAMES);
		if (err)
			break;
		total = 0;
		for (i = 0; i < FLOOD_SETS; i++)
			total += f.sent[i] - f.ring[i] - f.lost[i];
		set = (set + 1) % FLOOD_SETS;
		if (ready && set == 0)
			close(open(ready, O_CREAT | O_WRONLY, 0600));
	}
	teardown(&f);
	if (err)
		return die("send", err);
	for (i = 0; i < FLOOD_SETS; i++)
		printf("set %s sent=%llu dropped=%llu passed=%llu ring=%llu lost=%llu\n",
		       set_names[i], f.sent[i], f.dropped[i], f.passed[i],
		       f.ring[i], f.lost[i]);
	return 0;
}
