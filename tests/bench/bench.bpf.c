// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bench.bpf.c - the programs `make bench` measures bloomwall against, and
 * the harness that feeds them.
 *
 * BPF_PROG_TEST_RUN with repeat runs one frame over and over, so every
 * lookup would hit the same cache line. The harness program rewrites the
 * frame's source address before each run, from a table of addresses that
 * userspace fills (srcs[ctr & mask]), then tail-calls the program under
 * test in slot 0 of `target`. Its own cost is measured as a row of its own
 * (harness -> xdp_pass).
 *
 * Every program under test returns XDP_DROP for a listed source and
 * XDP_PASS otherwise, so that userspace can check each verdict against what
 * the structure must answer.
 *
 * bloomwall's program is multi-buffer aware (xdp.frags), and the kernel
 * lets a program array hold only programs that agree with each other on
 * that: the harness and every program it tail-calls are xdp.frags (the
 * loader sets the flag on xdp-filter's too). The flag changes nothing for
 * these one-buffer frames.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "bloomwall.h"
#include "parse.h"

/* Sizes are set before load; 1 keeps unused maps small. */
#define BENCH_SRCS_MAX (1U << 20)

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target SEC(".maps");

/* The same for the TC programs (egress): a program array holds one type. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target_tc SEC(".maps");

/*
 * Source addresses in network byte order, as they sit in the frame, in the
 * low 32 bits. __u64 values: an array map's elements are 8 bytes apart in
 * its mmapped memory whatever the value size, so userspace writes a plain
 * __u64 array.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BENCH_SRCS_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(map_flags, BPF_F_MMAPABLE);
} srcs SEC(".maps");

/* The exact hash map keyed by the source address (network order). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} hash_v4 SEC(".maps");

struct lpm_v4_key {
	__u32 prefixlen;
	__u32 addr; /* network order */
};

/* The LPM trie, as Cilium's prefilter keeps its CIDRs. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__type(key, struct lpm_v4_key);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} lpm_v4 SEC(".maps");

/* The kernel's Bloom filter map, 7 hash functions. */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__type(value, __u32);
	__uint(map_extra, 7);
} bloom_v4 SEC(".maps");

/*
 * The bare lookup's filter: the very map bloomwall's judge reads, handed
 * over before load, so that it too is read with inlined lookups.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BW_HDR_BLOCKS + 1);
	__type(key, __u32);
	__uint(value_size, BW_BLOCK_BYTES);
	__uint(map_flags, BPF_F_MMAPABLE);
} bare_blocks SEC(".maps");

/* The bare lookup's filter header and region 0's constants, set before load. */
const volatile struct bw_hdr bare_hdr;
const volatile struct bw_region_consts bare_rc;
/* The same for the IPv6 bare lookup: region BW_V6 * BW_MAX_LENGTHS. */
const volatile struct bw_region_consts bare_rc6;

/* IPv6 sources, 16 bytes each as they sit in the frame (bench6.c fills it). */
struct bench_in6 {
	__u64 w[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BENCH_SRCS_MAX);
	__type(key, __u32);
	__type(value, struct bench_in6);
	__uint(map_flags, BPF_F_MMAPABLE);
} srcs6 SEC(".maps");

/* The IPv6 twins of the structures above, keyed by the source address. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct bench_in6);
	__type(value, __u8);
} hash_v6 SEC(".maps");

struct lpm_v6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__type(key, struct lpm_v6_key);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} lpm_v6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__type(value, struct bench_in6);
	__uint(map_extra, 7);
} bloom_v6 SEC(".maps");

/* Harness state, set from userspace through the skeleton's bss. */
__u32 ctr;
__u32 mask;

/* The IPv4 header at the cursor, or NULL: the same parse bloomwall does. */
static __always_inline struct iphdr *parse_v4_at(struct hdr_cursor *c)
{
	struct iphdr *iph;
	struct bw_addr s, d;
	int proto;

	proto = parse_ethhdr(c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(c, proto);
	if (proto != ETH_P_IP)
		return NULL;
	iph = c->pos;
	if (parse_iphdr(c, &s, &d) == BW_PARSE_BAD)
		return NULL;
	return iph;
}

static __always_inline struct iphdr *parse_v4(struct xdp_md *ctx)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.ctx = ctx,
	};

	return parse_v4_at(&c);
}

/* The cursor of a TC program's packet, as egress.h makes it. */
#define TC_CURSOR(skb)                                         \
	{                                                      \
		.pos = (void *)(long)(skb)->data,              \
		.end = (void *)(long)(skb)->data_end, .tc = 1, \
		.skb_len = (skb)->len,                         \
	}

/*
 * Puts the next address of the table into the frame: its source, or for
 * the egress rows (dst) its destination, the address each side tests.
 */
static __always_inline int rewrite_addr(void *data, void *end, const int dst)
{
	struct iphdr *iph = data + sizeof(struct ethhdr);
	__u32 i = ctr++ & mask;
	__u64 *addr;

	if ((void *)(iph + 1) > end)
		return -1;
	addr = bpf_map_lookup_elem(&srcs, &i);
	if (!addr)
		return -1;
	if (dst)
		iph->daddr = (__u32)*addr;
	else
		iph->saddr = (__u32)*addr;
	return 0;
}

static __always_inline int rewrite_src(struct xdp_md *ctx)
{
	return rewrite_addr((void *)(long)ctx->data,
			    (void *)(long)ctx->data_end, 0);
}

/* The IPv6 header at the cursor, or NULL: the same parse bloomwall does. */
static __always_inline struct ipv6hdr *parse_v6_at(struct hdr_cursor *c)
{
	struct ipv6hdr *ip6;
	struct bw_addr s, d;
	int proto;

	proto = parse_ethhdr(c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(c, proto);
	if (proto != ETH_P_IPV6)
		return NULL;
	ip6 = c->pos;
	if (parse_ip6hdr(c, &s, &d) == BW_PARSE_BAD)
		return NULL;
	return ip6;
}

static __always_inline struct ipv6hdr *parse_v6(struct xdp_md *ctx)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.ctx = ctx,
	};

	return parse_v6_at(&c);
}

/* The IPv6 harness: the next address of srcs6 into the frame. */
static __always_inline int rewrite_addr6(void *data, void *end, const int dst)
{
	struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);
	__u32 i = ctr++ & mask;
	struct bench_in6 *a;
	__u64 *p;

	if ((void *)(ip6 + 1) > end)
		return -1;
	a = bpf_map_lookup_elem(&srcs6, &i);
	if (!a)
		return -1;
	/*
	 * Two 8-byte stores, as the kernel's copies of a header write it: a
	 * memcpy here is four 4-byte stores (the header's alignment), which
	 * an 8-byte load of the address right after could not be forwarded
	 * from.
	 */
	p = dst ? (__u64 *)&ip6->daddr : (__u64 *)&ip6->saddr;
	p[0] = a->w[0];
	p[1] = a->w[1];
	return 0;
}

static __always_inline int rewrite_src6(struct xdp_md *ctx)
{
	return rewrite_addr6((void *)(long)ctx->data,
			     (void *)(long)ctx->data_end, 0);
}

/*
 * The harnesses of the egress rows: the next destination into the
 * packet, then the TC program under test (target_tc).
 */
SEC("tc")
int harness_tc(struct __sk_buff *skb)
{
	if (rewrite_addr((void *)(long)skb->data, (void *)(long)skb->data_end,
			 1))
		return TC_ACT_UNSPEC;
	bpf_tail_call(skb, &target_tc, 0);
	return TC_ACT_UNSPEC;
}

SEC("tc")
int harness6_tc(struct __sk_buff *skb)
{
	if (rewrite_addr6((void *)(long)skb->data, (void *)(long)skb->data_end,
			  1))
		return TC_ACT_UNSPEC;
	bpf_tail_call(skb, &target_tc, 0);
	return TC_ACT_UNSPEC;
}

SEC("tc")
int tc_pass(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

SEC("xdp.frags")
int harness6(struct xdp_md *ctx)
{
	if (rewrite_src6(ctx))
		return XDP_ABORTED;
	bpf_tail_call(ctx, &target, 0);
	return XDP_ABORTED;
}

SEC("xdp")
int sender6(struct xdp_md *ctx)
{
	if (rewrite_src6(ctx))
		return XDP_ABORTED;
	return XDP_TX;
}

SEC("xdp.frags")
int harness(struct xdp_md *ctx)
{
	if (rewrite_src(ctx))
		return XDP_ABORTED;
	bpf_tail_call(ctx, &target, 0);
	return XDP_ABORTED;
}

/* Live-frames sender for the veth test: new source, back out the link. */
SEC("xdp")
int sender(struct xdp_md *ctx)
{
	if (rewrite_src(ctx))
		return XDP_ABORTED;
	return XDP_TX;
}

SEC("xdp.frags")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

/* The parse floor: bloomwall's own parsing, then pass. */
SEC("xdp.frags")
int xdp_parse(struct xdp_md *ctx)
{
	struct iphdr *iph = parse_v4(ctx);

	/* Read the address as every filter does; never true for our frames. */
	if (iph && iph->saddr == 0xffffffff)
		return XDP_DROP;
	return XDP_PASS;
}

SEC("xdp.frags")
int hash_lookup(struct xdp_md *ctx)
{
	struct iphdr *iph = parse_v4(ctx);
	__u32 key;

	if (!iph)
		return XDP_PASS;
	key = iph->saddr;
	return bpf_map_lookup_elem(&hash_v4, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp.frags")
int lpm_lookup(struct xdp_md *ctx)
{
	struct iphdr *iph = parse_v4(ctx);
	struct lpm_v4_key key = { .prefixlen = 32 };

	if (!iph)
		return XDP_PASS;
	key.addr = iph->saddr;
	return bpf_map_lookup_elem(&lpm_v4, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp.frags")
int bloom_lookup(struct xdp_md *ctx)
{
	struct iphdr *iph = parse_v4(ctx);
	__u32 key;

	if (!iph)
		return XDP_PASS;
	key = iph->saddr;
	return bpf_map_peek_elem(&bloom_v4, &key) == 0 ? XDP_DROP : XDP_PASS;
}

/*
 * The bare blocked-Bloom lookup: one bw_hash_v4, one block, one
 * bw_block_test on region 0 of a bloomwall filter (bare addresses only),
 * the header and region constants as bloomwall's program has them, no
 * stats, no other lengths. bloomwall's program is judged against it.
 */
static __always_inline int bare_test_v4(const struct iphdr *iph, const int dst)
{
	const struct bw_hdr *hdr = (const struct bw_hdr *)&bare_hdr;
	const struct bw_region_consts *rc =
		(const struct bw_region_consts *)&bare_rc;
	const struct bw_block *blk;
	__u32 idx;
	__u64 h;

	__asm__ __volatile__("" : "+r"(hdr));
	__asm__ __volatile__("" : "+r"(rc));
	if (!iph || !rc->nblocks)
		return 0;
	h = bw_hash_v4_rc(bpf_ntohl(dst ? iph->daddr : iph->saddr), rc);
	idx = rc->start + bw_block_index(h, rc->nblocks);
	blk = bpf_map_lookup_elem(&bare_blocks, &idx);
	return blk && bw_block_test(blk, h, hdr->probes[0]);
}

SEC("xdp.frags")
int bare_bloom(struct xdp_md *ctx)
{
	return bare_test_v4(parse_v4(ctx), 0) ? XDP_DROP : XDP_PASS;
}

/* The same on the way out: a TC program testing the destination. */
SEC("tc")
int bare_bloom_tc(struct __sk_buff *skb)
{
	struct hdr_cursor c = TC_CURSOR(skb);

	return bare_test_v4(parse_v4_at(&c), 1) ? TC_ACT_SHOT : TC_ACT_OK;
}

/* The IPv6 parse floor: bloomwall's own parsing, then pass. */
SEC("xdp.frags")
int xdp_parse6(struct xdp_md *ctx)
{
	struct ipv6hdr *ip6 = parse_v6(ctx);

	if (ip6 && ip6->saddr.in6_u.u6_addr32[0] == 0xffffffff)
		return XDP_DROP;
	return XDP_PASS;
}

SEC("xdp.frags")
int hash6_lookup(struct xdp_md *ctx)
{
	struct ipv6hdr *ip6 = parse_v6(ctx);
	struct bench_in6 key;

	if (!ip6)
		return XDP_PASS;
	__builtin_memcpy(&key, &ip6->saddr, sizeof(key));
	return bpf_map_lookup_elem(&hash_v6, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp.frags")
int lpm6_lookup(struct xdp_md *ctx)
{
	struct ipv6hdr *ip6 = parse_v6(ctx);
	struct lpm_v6_key key = { .prefixlen = 128 };

	if (!ip6)
		return XDP_PASS;
	__builtin_memcpy(key.addr, &ip6->saddr, sizeof(key.addr));
	return bpf_map_lookup_elem(&lpm_v6, &key) ? XDP_DROP : XDP_PASS;
}

SEC("xdp.frags")
int bloom6_lookup(struct xdp_md *ctx)
{
	struct ipv6hdr *ip6 = parse_v6(ctx);
	struct bench_in6 key;

	if (!ip6)
		return XDP_PASS;
	__builtin_memcpy(&key, &ip6->saddr, sizeof(key));
	return bpf_map_peek_elem(&bloom_v6, &key) == 0 ? XDP_DROP : XDP_PASS;
}

/* bare_bloom for IPv6: bw_hash_v6 of the /128, region BW_V6's first. */
static __always_inline int bare_test_v6(const struct ipv6hdr *ip6,
					const int dst)
{
	const struct bw_hdr *hdr = (const struct bw_hdr *)&bare_hdr;
	const struct bw_region_consts *rc =
		(const struct bw_region_consts *)&bare_rc6;
	const struct bw_block *blk;
	__u64 w[2];
	__u32 idx;
	__u64 h;

	__asm__ __volatile__("" : "+r"(hdr));
	__asm__ __volatile__("" : "+r"(rc));
	if (!ip6 || !rc->nblocks)
		return 0;
	if (dst)
		__builtin_memcpy(w, &ip6->daddr, sizeof(w));
	else
		__builtin_memcpy(w, &ip6->saddr, sizeof(w));
	h = bw_hash_v6_rc(bpf_be64_to_cpu(w[0]), bpf_be64_to_cpu(w[1]), rc);
	idx = rc->start + bw_block_index(h, rc->nblocks);
	blk = bpf_map_lookup_elem(&bare_blocks, &idx);
	return blk &&
	       bw_block_test(blk, h, hdr->probes[BW_V6 * BW_MAX_LENGTHS]);
}

SEC("xdp.frags")
int bare_bloom6(struct xdp_md *ctx)
{
	return bare_test_v6(parse_v6(ctx), 0) ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int bare_bloom6_tc(struct __sk_buff *skb)
{
	struct hdr_cursor c = TC_CURSOR(skb);

	return bare_test_v6(parse_v6_at(&c), 1) ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
