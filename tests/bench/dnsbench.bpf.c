// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * dnsbench.bpf.c - the DNS rows of `make bench` (dns.c): per-query cost of
 * matching a DNS query's name, through BPF_PROG_TEST_RUN.
 *
 * The harness (dns_harness) writes the next name of a table into the
 * question of a real query frame (IPv4, UDP to port 53, RD, QDCOUNT 1,
 * QTYPE A, QCLASS IN; every name of one run has the same wire length, so
 * the frame's lengths stay right), then tail-calls the program under test:
 *
 * - dd_exact, dd_suffix: dnsdist's layout (PowerDNS contrib/xdp-filter.ebpf.src,
 *   check_qname): a BPF hash map keyed by the lowercased wire-format name in
 *   a zeroed 255-byte key, read byte by byte as theirs reads it. Theirs keys
 *   by name and qtype and, on a miss, looks up again with qtype 65535; here
 *   the key is the name alone, one lookup a name (kinder to them). Theirs
 *   reads each byte with bpf_probe_read_kernel; here with a direct packet
 *   read (kinder again). dd_exact looks the whole name up, as dnsdist does;
 *   dd_suffix then every parent suffix too, longest first, each suffix's key
 *   being the same buffer from its label on (the zeros after the name pad
 *   it), so no copy is made for it.
 * - bw_sub, bw_exact: bloomwall's name layout (include/bw_hash.h) in plain
 *   code: each label hashed as it is read from the left (8 bytes at a time,
 *   case-folded), the chain from the TLD testing every suffix's subtree key
 *   in the subtree region, then the whole name's exact key in the exact
 *   region; an empty region's test is left out (its constants say so).
 *   bw_sub reads a filter of subtree entries, bw_exact one of exact
 *   entries: a bench reimplementation with the layout's hash chain and
 *   block test, not bloomwall's program (dns.c adds that row when the
 *   program has its DNS data path).
 *
 * Every program returns XDP_DROP for a listed name and XDP_PASS otherwise.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>

#include "bloomwall.h"
#include "parse.h"

#define BENCH_SRCS_MAX (1U << 20)
#define DNS_HDR_LEN 12
#define DNS_WIRE_MAX 255
/* Bytes per name in the table: the longest bench name is 68. */
#define NAME_SLOT 72
#define MAX_LABELS 128
/* Ethernet + IPv4 + UDP + DNS header: where the question starts. */
#define QNAME_OFF (14 + 20 + 8 + DNS_HDR_LEN)

struct name_slot {
	__u8 b[NAME_SLOT];
};

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} dns_target SEC(".maps");

/* Query names in wire format, written by dns.c through an mmap. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BENCH_SRCS_MAX);
	__type(key, __u32);
	__type(value, struct name_slot);
	__uint(map_flags, BPF_F_MMAPABLE);
} names SEC(".maps");

/* dnsdist's struct map_value: a hit counter and the action. */
struct dd_value {
	__u64 counter;
	__u32 action;
};

/* dnsdist's qnamefilter, keyed by the name only (see above). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, DNS_WIRE_MAX);
	__type(value, struct dd_value);
} dd_names SEC(".maps");

/*
 * Scratch, per CPU. dd: the key being built in buf[0 .. 255), always zero
 * from 255 on (never written: bw_labels copies at most 255 bytes too), so
 * buf + o is the key of the suffix at o.
 * bw: the question copied to buf, each label's hash in lh.
 */
struct dns_scratch {
	__u8 buf[512];
	__u64 lh[MAX_LABELS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dns_scratch);
} scratch SEC(".maps");

/* Two bloomwall filters: subtree entries (a) and exact entries (b). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BW_HDR_BLOCKS + 1);
	__type(key, __u32);
	__uint(value_size, BW_BLOCK_BYTES);
	__uint(map_flags, BPF_F_MMAPABLE);
} blocks_a SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BW_HDR_BLOCKS + 1);
	__type(key, __u32);
	__uint(value_size, BW_BLOCK_BYTES);
	__uint(map_flags, BPF_F_MMAPABLE);
} blocks_b SEC(".maps");

/* bw_dns_consts_init of each filter, set before load. */
const volatile struct bw_dns_consts consts_a;
const volatile struct bw_dns_consts consts_b;

/* Harness state. */
__u32 ctr;
__u32 mask;
__u32 name_len; /* wire bytes of every name of this run */
/* dns_sender: the query's headers, written again before every name. */
__u8 hdr_tmpl[QNAME_OFF];

SEC("xdp.frags")
int dns_harness(struct xdp_md *ctx)
{
	__u32 i = ctr++ & mask, len = name_len;
	struct name_slot *n;

	n = bpf_map_lookup_elem(&names, &i);
	if (!n || !len || len > NAME_SLOT)
		return XDP_ABORTED;
	if (bpf_xdp_store_bytes(ctx, QNAME_OFF, n->b, len))
		return XDP_ABORTED;
	bpf_tail_call(ctx, &dns_target, 0);
	return XDP_ABORTED;
}

/*
 * Live-frames sender for the veth flood: the query's headers and the next
 * name (with QTYPE and QCLASS: name_len covers them), back out the link.
 * The headers are written anew because the kernel recycles the pages of
 * live frames without resetting their bytes, and an answer rewrote them.
 */
SEC("xdp")
int dns_sender(struct xdp_md *ctx)
{
	__u32 i = ctr++ & mask, len = name_len;
	struct name_slot *n;

	n = bpf_map_lookup_elem(&names, &i);
	if (!n || !len || len > NAME_SLOT)
		return XDP_ABORTED;
	if (bpf_xdp_store_bytes(ctx, 0, hdr_tmpl, QNAME_OFF) ||
	    bpf_xdp_store_bytes(ctx, QNAME_OFF, n->b, len))
		return XDP_ABORTED;
	return XDP_TX;
}

/* The veth flood's floor: every query sent straight back, unchanged. */
SEC("xdp")
int dns_reflect(struct xdp_md *ctx)
{
	return XDP_TX;
}

SEC("xdp.frags")
int dns_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/*
 * The question's name in the packet, or NULL: IPv4, UDP to port 53, no
 * later fragment, a standard query (QR 0, OPCODE 0) with QDCOUNT 1. The
 * part every program under test shares.
 */
static __always_inline __u8 *dns_question(struct xdp_md *ctx, void **endp)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.ctx = ctx,
	};
	struct bw_addr s, d;
	struct iphdr *iph;
	struct udphdr *udp;
	__u8 *dns;
	int proto;

	proto = parse_ethhdr(&c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(&c, proto);
	if (proto != ETH_P_IP)
		return NULL;
	iph = c.pos;
	if (parse_iphdr(&c, &s, &d) == BW_PARSE_BAD ||
	    iph->protocol != IPPROTO_UDP || (iph->frag_off & bpf_htons(0x1fff)))
		return NULL;
	udp = c.pos;
	dns = (__u8 *)(udp + 1);
	if ((void *)(dns + DNS_HDR_LEN) > c.end ||
	    udp->dest != bpf_htons(BW_DNS_PORT))
		return NULL;
	/* QR and OPCODE are the top five bits of byte 2; QDCOUNT bytes 4-5. */
	if ((dns[2] & 0xf8) || dns[4] || dns[5] != 1)
		return NULL;
	*endp = c.end;
	return dns + DNS_HDR_LEN;
}

/* The parse floor: the headers every program reads, then pass. */
SEC("xdp.frags")
int dns_floor(struct xdp_md *ctx)
{
	void *end;
	__u8 *q = dns_question(ctx, &end);

	if (q && q + 1 <= (__u8 *)end && *q == 0xff)
		return XDP_DROP; /* never: keeps the read */
	return XDP_PASS;
}

static __always_inline struct dns_scratch *get_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/*
 * dnsdist's check_qname loop: up to 255 bytes, lowercased into the key,
 * stopping at the root label or a length byte over 63. Returns 0, or -1
 * for a name that ends before its root label (dnsdist then passes the
 * packet).
 */
static __always_inline int dd_read(__u8 *p, void *end, struct dns_scratch *s)
{
	__u32 length = 0, i;
	__u8 b = 0;

	for (i = 0; i < DNS_WIRE_MAX; i++) {
		if ((void *)(p + i + 1) > end)
			return -1;
		b = p[i];
		if (length == 0) {
			if (b == 0 || b > 63)
				break;
			length = b;
		} else {
			length--;
		}
		if (b >= 'A' && b <= 'Z')
			s->buf[i] = b + ('a' - 'A');
		else
			s->buf[i] = b;
	}
	return b == 0 ? 0 : -1;
}

/* The hit: dnsdist counts it in the value, then drops. */
static __always_inline int dd_hit(struct dd_value *v)
{
	__sync_fetch_and_add(&v->counter, 1);
	return XDP_DROP;
}

SEC("xdp.frags")
int dd_exact(struct xdp_md *ctx)
{
	struct dns_scratch *s = get_scratch();
	struct dd_value *v;
	void *end;
	__u8 *q = dns_question(ctx, &end);

	if (!q || !s)
		return XDP_PASS;
	/* dnsdist: struct dns_qname qkey = {0}; */
	__builtin_memset(s->buf, 0, 256);
	if (dd_read(q, end, s) < 0)
		return XDP_PASS;
	v = bpf_map_lookup_elem(&dd_names, s->buf);
	return v ? dd_hit(v) : XDP_PASS;
}

SEC("xdp.frags")
int dd_suffix(struct xdp_md *ctx)
{
	struct dns_scratch *s = get_scratch();
	struct dd_value *v;
	__u32 o = 0, k;
	void *end;
	__u8 *q = dns_question(ctx, &end);

	if (!q || !s)
		return XDP_PASS;
	__builtin_memset(s->buf, 0, 256);
	if (dd_read(q, end, s) < 0)
		return XDP_PASS;
	/*
	 * The whole name first, then each parent suffix (the TLD last): the
	 * key built above from each label's length byte on.
	 */
	for (k = 0; k < MAX_LABELS; k++) {
		o &= 0xff;
		if (!s->buf[o])
			break;
		v = bpf_map_lookup_elem(&dd_names, &s->buf[o]);
		if (v)
			return dd_hit(v);
		o += 1 + s->buf[o];
	}
	return XDP_PASS;
}

/* ASCII A-Z to a-z in each byte (bw_name_fold on eight at once). */
static __always_inline __u64 fold8(__u64 x)
{
	__u64 low = x & 0x7f7f7f7f7f7f7f7fULL;
	__u64 ge_a = low + 0x3f3f3f3f3f3f3f3fULL;
	__u64 gt_z = low + 0x2525252525252525ULL;

	return x | ((ge_a & ~gt_z & ~x & 0x8080808080808080ULL) >> 2);
}

/* bw_name_label_hash of the len (1..63) bytes at p, 8 at a time. */
static __always_inline __u64 label_hash(const __u8 *p, __u32 len)
{
	__u64 a = bw_name_label_init(len), chunk;
	__u32 j;

#pragma unroll
	for (j = 0; j < 8; j++) {
		if (8 * j >= len)
			break;
		chunk = *(const __u64 *)(p + 8 * j);
		if (len - 8 * j < 8)
			chunk &= ~0ULL >> (64 - 8 * (len - 8 * j));
		a = bw_name_label_chunk(a, fold8(chunk));
	}
	return a;
}

/*
 * Reads the question into s->buf and each label's hash into s->lh.
 * Returns the number of labels, -1 for what bloomwall passes (a pointer,
 * a label over 63, a name over 255 bytes, truncation).
 */
static __always_inline int bw_labels(struct xdp_md *ctx, __u8 *q, void *end,
				     struct dns_scratch *s)
{
	__u32 off = q - (__u8 *)(long)ctx->data, room, pos = 0, len, n;

	room = (__u8 *)end - q;
	if (room > DNS_WIRE_MAX)
		room = DNS_WIRE_MAX;
	/* The same number, in a form whose bounds the verifier sees. */
	if (!room ||
	    bpf_xdp_load_bytes(ctx, off, s->buf, ((room - 1) & 0xff) + 1))
		return -1;
	for (n = 0; n < MAX_LABELS; n++) {
		pos &= 0xff;
		if (pos >= room)
			return -1;
		len = s->buf[pos];
		if (!len)
			return n;
		if (len > 63 || pos + 1 + len >= room)
			return -1;
		s->lh[n] = label_hash(&s->buf[pos + 1], len);
		pos += 1 + len;
	}
	return -1;
}

/* 1 if key h is set in name region r of the filter (blocks, dc). */
static __always_inline int
region_test(void *blocks, const struct bw_dns_consts *dc, __u32 r, __u64 h)
{
	const struct bw_block *blk;
	__u32 idx;

	idx = dc->start[r] + bw_block_index(h, dc->nblocks[r]);
	blk = bpf_map_lookup_elem(blocks, &idx);
	return blk && bw_block_test(blk, h, dc->probes[r]);
}

/* The chain from the TLD: every suffix's subtree key, then the exact key. */
static __always_inline int bw_judge(struct xdp_md *ctx, void *blocks,
				    const struct bw_dns_consts *dc)
{
	struct dns_scratch *s = get_scratch();
	void *end;
	__u8 *q = dns_question(ctx, &end);
	__u64 h;
	int n, k;

	if (!q || !s)
		return XDP_PASS;
	n = bw_labels(ctx, q, end, s);
	if (n <= 0)
		return XDP_PASS;
	h = dc->name_init;
	for (k = n - 1; k >= 0; k--) {
		h = bw_name_hash_step(h, s->lh[k & (MAX_LABELS - 1)]);
		if (dc->nblocks[BW_NAME_SUBTREE] &&
		    region_test(blocks, dc, BW_NAME_SUBTREE, h))
			return XDP_DROP;
	}
	if (dc->nblocks[BW_NAME_EXACT] &&
	    region_test(blocks, dc, BW_NAME_EXACT, bw_name_key_exact(h)))
		return XDP_DROP;
	return XDP_PASS;
}

SEC("xdp.frags")
int bw_sub(struct xdp_md *ctx)
{
	const struct bw_dns_consts *dc =
		(const struct bw_dns_consts *)&consts_a;

	/* Read the loader's values, not the zeros the compiler knows. */
	__asm__ __volatile__("" : "+r"(dc));
	return bw_judge(ctx, &blocks_a, dc);
}

SEC("xdp.frags")
int bw_exact(struct xdp_md *ctx)
{
	const struct bw_dns_consts *dc =
		(const struct bw_dns_consts *)&consts_b;

	/* Read the loader's values, not the zeros the compiler knows. */
	__asm__ __volatile__("" : "+r"(dc));
	return bw_judge(ctx, &blocks_b, dc);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
