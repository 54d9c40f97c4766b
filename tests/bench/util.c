// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Small helpers of the bench: address permutation, clocks, memory probes,
 * one BPF_PROG_TEST_RUN call, statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <bpf/bpf.h>

#include "bench.h"

/*
 * A seeded bijection on 32 bits (xor, then Chris Wellons' lowbias32: each
 * step is invertible), so perm(i) for distinct i are distinct addresses.
 */
__u32 bench_perm(__u32 i)
{
	__u32 x = i ^ BENCH_SEED;

	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Kernel memory that BPF maps take, from /proc/meminfo in bytes:
 * unreclaimable slab (hash elements, trie nodes), vmalloc (preallocated
 * element areas, bit arrays, mmapable arrays) and per-CPU areas. Unlike
 * MemFree it does not move with other processes' page cache. -1 if
 * unreadable.
 */
long long kmem_bytes(void)
{
	static const char *const keys[] = { "SUnreclaim:", "VmallocUsed:",
					    "Percpu:" };
	char line[128];
	long long kb, sum = 0;
	unsigned int i, found = 0;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < 3; i++)
			if (!strncmp(line, keys[i], strlen(keys[i])) &&
			    sscanf(line + strlen(keys[i]), "%lld", &kb) == 1) {
				sum += kb;
				found++;
			}
	fclose(f);
	return found == 3 ? sum * 1024 : -1;
}

/*
 * What bpftool prints as "memlock": the kernel's estimate of the map's
 * memory, exposed in fdinfo (libbpf 1.1's bpf_map_info has no field).
 */
long long fd_memlock(int fd)
{
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Lets RCU free what earlier maps left behind, so that the next kmem_bytes
 * delta counts one structure only.
 */
void settle_memory(void)
{
	usleep(300 * 1000);
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Ethernet + IPv4 + UDP, 64 bytes; the destination is in no list. */
void build_frame(__u8 *frame, __u32 saddr)
{
	struct ethhdr *eth = (void *)frame;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp = (void *)(iph + 1);

	memset(frame, 0, BENCH_FRAME_LEN);
	memcpy(eth->h_dest, "\x02\x00\x00\x00\x00\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(BENCH_FRAME_LEN - sizeof(*eth));
	iph->saddr = saddr;
	iph->daddr = htonl(bench_perm(0xffffffffU));
	udp->source = htons(40000);
	udp->dest = htons(9);
	udp->len = htons(BENCH_FRAME_LEN - sizeof(*eth) - sizeof(*iph));
}

/* a as the 16 bytes of an address on the wire. */
void put_v6(__u8 *p, const struct bench_v6 *a)
{
	__u64 w[2] = { __builtin_bswap64(a->hi), __builtin_bswap64(a->lo) };

	memcpy(p, w, sizeof(w));
}

/*
 * The i-th random IPv6 address: 2001:db8::/32 then perm(i) in the next 32
 * bits (distinct for distinct i < 2^32), the low 64 bits scrambled too.
 */
struct bench_v6 bench_v6_addr(__u64 i)
{
	struct bench_v6 a;

	a.hi = 0x20010db800000000ULL | bench_perm((__u32)i);
	a.lo = (__u64)bench_perm((__u32)i ^ 0xa5a5a5a5U) << 32 |
	       bench_perm(~(__u32)i);
	return a;
}

/* Ethernet + IPv6 + UDP in BENCH_FRAME_LEN bytes; destination 2001:db8::1. */
void build_frame6(__u8 *frame, const struct bench_v6 *saddr)
{
	struct ethhdr *eth = (void *)frame;
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip6 + 1);
	struct bench_v6 dst = { 0x20010db800000000ULL, 1 };

	memset(frame, 0, BENCH_FRAME_LEN);
	memcpy(eth->h_dest, "\x02\x00\x00\x00\x00\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(ETH_P_IPV6);
	ip6->version = 6;
	ip6->hop_limit = 64;
	ip6->nexthdr = IPPROTO_UDP;
	ip6->payload_len = htons(BENCH_FRAME_LEN - sizeof(*eth) - sizeof(*ip6));
	put_v6((__u8 *)&ip6->saddr, saddr);
	put_v6((__u8 *)&ip6->daddr, &dst);
	udp->source = htons(40000);
	udp->dest = htons(9);
	udp->len = ip6->payload_len;
}

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define CALL_SAMPLES 15

/*
 * The CPU time of one BPF_PROG_TEST_RUN call beside its runs, for this
 * program's type: an XDP call with repeat > 1 swaps the kernel's XDP
 * dispatcher in and out (about 300 us, give or take 25), a TC call
 * builds an skb (a few us). The median of calls of two runs each.
 */
static double call_overhead(int prog_fd, const __u8 *frame)
{
	static double cached[2] = { -1, -1 };
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	double t[CALL_SAMPLES], t0;
	int i, xdp;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	xdp = info.type == BPF_PROG_TYPE_XDP;
	if (cached[xdp] >= 0)
		return cached[xdp];
	for (i = 0; i < CALL_SAMPLES; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
			    .data_size_in = BENCH_FRAME_LEN, .repeat = 2);

		t0 = thread_ns();
		if (bpf_prog_test_run_opts(prog_fd, &opts))
			return 0;
		t[i] = thread_ns() - t0;
	}
	qsort(t, CALL_SAMPLES, sizeof(*t), cmp_double);
	cached[xdp] = t[CALL_SAMPLES / 2];
	return cached[xdp];
}

/*
 * ns per run, to a fraction. The kernel reports whole ns, rounded down:
 * at 12-20 ns a packet that is a 5-8 % step, as large as the margins the
 * targets judge. The thread's CPU time over the call, less the call's
 * own cost, gives the fraction; the kernel's figure bounds it (the true
 * time is at least that, and under one ns more). A run too short for the
 * call's cost to be told apart keeps the kernel's whole ns.
 */
int run_prog(int prog_fd, const __u8 *frame, __u32 repeat, __u32 *retval,
	     double *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = BENCH_FRAME_LEN, .repeat = repeat);
	double over = ns && repeat > 1 ? call_overhead(prog_fd, frame) : 0;
	double t0 = thread_ns(), t;

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	t = (thread_ns() - t0 - over) / (repeat ? repeat : 1);
	if (retval)
		*retval = opts.retval;
	if (!ns)
		return 0;
	/* A short run is mostly the call: the kernel's figure, as it is. */
	if ((double)opts.duration * repeat < over)
		t = opts.duration;
	else if (t < opts.duration)
		t = opts.duration;
	else if (t > opts.duration + 0.99)
		t = opts.duration + 0.99;
	*ns = t;
	return 0;
}

void finish_stats(double *t, int n, double *med, double *min)
{
	double s[BENCH_MAX_TRIALS];

	memcpy(s, t, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	*min = s[0];
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void *bench_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}
