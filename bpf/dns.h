/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * dns.h - the data path for domain names: find a DNS query (UDP to port
 * 53) behind the address filter, read its question name, test every
 * suffix's subtree key and the whole name's exact key against the name
 * regions, and on a hit consult the name allowlist, then pass (monitor),
 * drop or answer in place (dns_verdict.h).
 *
 * Everything here runs in judge_dns() (dns_verdict.h), a subprogram
 * called only when the filter has names (a .rodata constant): for a
 * filter without names the verifier never reaches it and removes it, so
 * the address path is what it was.
 *
 * The name is copied with bpf_xdp_load_bytes into a per-CPU scratch value
 * (jumbo frames and fragments alike) and read with bpf_loop, one label a
 * call: the loop state lives in the map value, so the verifier checks the
 * callback with ranges, not once per possible name shape. Per label: one
 * load of its length byte, ceil(len / 8) 8-byte loads folded eight bytes
 * at a time, one multiply-xorshift per chunk (bw_name_label_chunk). Then a
 * second loop runs the chain from the TLD (bw_name_hash_step, one mix per
 * label), testing each suffix in the subtree region; the exact key of the
 * whole name is one more mix and one more block.
 */
#ifndef __BW_DNS_H
#define __BW_DNS_H

#include <linux/in.h>
#include <linux/udp.h>

#include "maps.h"

#define DNS_HDR_LEN 12
/* Wire bytes of a name, root label included (RFC 1035 3.1). */
#define DNS_WIRE_MAX 255
/* Header, the longest name, QTYPE and QCLASS: all a query's judgment reads. */
#define DNS_QUERY_MAX (DNS_HDR_LEN + DNS_WIRE_MAX + 4)
/* The NULL answer for AAAA: pointer, type, class, TTL, RDLENGTH, 16 bytes. */
#define DNS_ANSWER_MAX (2 + 2 + 2 + 4 + 2 + 16)
/*
 * IPv6 extension headers followed to the UDP header: a real stack sends
 * one or two; a chain longer than this is passed, counted malformed.
 */
#define DNS_IPV6_EXT_MAX 6

/*
 * The scratch buffer: the UDP pseudo header ends at SCR_UDP (IPv6's 40
 * bytes, or IPv4's 12 right before it), the UDP header follows and then
 * the DNS message, so an answer's UDP checksum is one bpf_csum_diff over
 * one range. Room after the longest answer for the checksum's padding to
 * 4 bytes and for an 8-byte read of a label's last chunk.
 */
#define SCR_UDP 40
#define SCR_DNS (SCR_UDP + 8)
#define SCR_BUF 384

_Static_assert(SCR_DNS + DNS_QUERY_MAX + DNS_ANSWER_MAX + 4 <= SCR_BUF,
	       "the scratch buffer holds the longest answer, padded");
_Static_assert(SCR_DNS + DNS_HDR_LEN + DNS_WIRE_MAX + 8 <= SCR_BUF,
	       "a label's last 8-byte chunk is read inside the buffer");

enum dns_state {
	DNS_ST_RUN = 0,
	DNS_ST_NAME,  /* the root label was reached */
	DNS_ST_BAD,   /* the name does not parse */
	DNS_ST_HIT,   /* a key of the name is listed (allowed: for allow) */
	DNS_ST_CLEAN, /* no key listed */
};

struct dns_scratch {
	__u8 buf[SCR_BUF];
	__u64 lh[BW_NAME_LABELS_MAX + 1]; /* label hashes, left to right */
	__u64 h;			  /* the chain so far */
	__u32 len;   /* DNS bytes copied to buf + SCR_DNS */
	__u32 pos;   /* next length byte, in the message */
	__u32 n;     /* labels read */
	__u32 k;     /* chain steps taken */
	__u32 state; /* enum dns_state */
	__u16 sport; /* the query's source port */
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dns_scratch);
} dns_scratch SEC(".maps");

/* What judge_dns() decided; the caller counts it in struct bw_stats. */
enum dns_result {
	DNS_PASS = 0,
	DNS_DROP,
	DNS_TX,
};

/* bpf_loop's context: the scratch value, found once. */
struct dns_loop {
	struct dns_scratch *s;
};

static __always_inline const struct bw_dns_consts *dns_c(void)
{
	const struct bw_dns_consts *dc =
		(const struct bw_dns_consts *)&dns_consts;

	__asm__ __volatile__("" : "+r"(dc));
	return dc;
}

/*
 * ASCII A-Z to a-z in each byte of x, as bw_name_fold() does one byte: a
 * byte's top bit marks >= 'A' and > 'Z' after adding to its low seven
 * bits (no carry crosses a byte), bytes >= 0x80 never fold.
 */
static __always_inline __u64 dns_fold8(__u64 x)
{
	__u64 low = x & 0x7f7f7f7f7f7f7f7fULL;
	__u64 ge_a = low + 0x3f3f3f3f3f3f3f3fULL; /* 0x80 - 'A' */
	__u64 gt_z = low + 0x2525252525252525ULL; /* 0x80 - 'Z' - 1 */
	__u64 up = ge_a & ~gt_z & ~x & 0x8080808080808080ULL;

	return x | (up >> 2);
}

/*
 * 8 bytes at p, little-endian as the label hash takes them. p need not be
 * aligned: the verifier allows it on map values where the CPU does.
 */
static __always_inline __u64 dns_load8(const __u8 *p)
{
	return *(const __u64 *)p;
}

/* L(label) of len (1..63) bytes at p: bw_name_label_hash, 8 at a time. */
static __always_inline __u64 dns_label_hash(const __u8 *p, __u32 len)
{
	__u64 a = bw_name_label_init(len), chunk;
	__u32 j, rest;

#pragma unroll
	for (j = 0; j < 8; j++) {
		if (8 * j >= len)
			break;
		chunk = dns_load8(p + 8 * j);
		rest = len - 8 * j;
		if (rest < 8)
			chunk &= ~0ULL >> (64 - 8 * rest);
		a = bw_name_label_chunk(a, dns_fold8(chunk));
	}
	return a;
}

/*
 * One label of the question name a call (bpf_loop). Stops at the root
 * label (DNS_ST_NAME) or at anything a query name may not hold, as
 * user/names.c's wire_labels() refuses it: a compression pointer or a
 * reserved label type (> 63), a name over 255 wire bytes, a label past
 * the bytes copied.
 */
static long dns_label_cb(__u64 i, void *ctx)
{
	struct dns_scratch *s = ((struct dns_loop *)ctx)->s;
	__u32 pos = s->pos, len, n = s->n;

	if (pos >= DNS_HDR_LEN + DNS_WIRE_MAX || pos >= s->len)
		goto bad;
	len = s->buf[SCR_DNS + pos];
	if (!len) {
		s->state = DNS_ST_NAME;
		return 1;
	}
	if (len > BW_NAME_LABEL_MAX ||
	    pos + 1 + len >= DNS_HDR_LEN + DNS_WIRE_MAX ||
	    pos + 1 + len > s->len || n >= BW_NAME_LABELS_MAX)
		goto bad;
	s->lh[n] = dns_label_hash(&s->buf[SCR_DNS + pos + 1], len);
	s->n = n + 1;
	s->pos = pos + 1 + len;
	return 0;
bad:
	s->state = DNS_ST_BAD;
	return 1;
}

/* 1 if key h hits in name region r (an empty region holds nothing). */
static __always_inline int name_test(__u32 r, __u64 h)
{
	const struct bw_dns_consts *dc = dns_c();
	__u32 probes = dc->probes[r], idx;
	const struct bw_block *blk;

	if (!dc->nblocks[r] || !probes)
		return 0;
	idx = dc->start[r] + bw_block_index(h, dc->nblocks[r]);
	blk = bpf_map_lookup_elem(&BW_MAP_BLOCKS, &idx);
	return blk && bw_block_test(blk, h, probes);
}

/* The next suffix's key from the TLD on: label n - 1 - k of the name. */
static __always_inline __u64 chain_step(struct dns_scratch *s, __u32 *k)
{
	__u32 i = s->n - 1 - s->k;

	*k = s->k + 1;
	return bw_name_hash_step(s->h, s->lh[i & BW_NAME_LABELS_MAX]);
}

/* Each suffix's subtree key against the subtree region (bpf_loop). */
static long dns_chain_cb(__u64 i, void *ctx)
{
	struct dns_scratch *s = ((struct dns_loop *)ctx)->s;
	__u32 k;
	__u64 h;

	if (s->k >= s->n)
		return 1;
	h = chain_step(s, &k);
	s->h = h;
	s->k = k;
	if (name_test(BW_NAME_SUBTREE, h)) {
		s->state = DNS_ST_HIT;
		return 1;
	}
	return 0;
}

/* The same chain with the allowlist's seed, each key looked up (bpf_loop). */
static long dns_allow_cb(__u64 i, void *ctx)
{
	struct dns_scratch *s = ((struct dns_loop *)ctx)->s;
	__u64 h;
	__u32 k;

	if (s->k >= s->n)
		return 1;
	h = chain_step(s, &k);
	s->h = h;
	s->k = k;
	if (bpf_map_lookup_elem(&BW_MAP_ALLOW_NAMES, &h)) {
		s->state = DNS_ST_HIT;
		return 1;
	}
	return 0;
}

/*
 * Whether the name read into s is listed: a suffix's subtree key in the
 * subtree region, or the whole name's exact key in the exact region.
 */
static __always_inline int name_listed(struct dns_scratch *s,
				       struct dns_loop *lc)
{
	const struct bw_dns_consts *dc = dns_c();
	__u64 h;

	s->h = dc->name_init;
	s->k = 0;
	s->state = DNS_ST_CLEAN;
	/* With no subtree region the callback only runs the chain. */
	bpf_loop(BW_NAME_LABELS_MAX, dns_chain_cb, lc, 0);
	if (s->state == DNS_ST_HIT)
		return 1;
	if (s->k != s->n)
		return 0;
	h = bw_name_key_exact(s->h);
	return name_test(BW_NAME_EXACT, h);
}

/* Whether the name allowlist holds a subtree key of a suffix or the exact key. */
static __always_inline int name_allowed(struct dns_scratch *s,
					struct dns_loop *lc)
{
	const struct bw_dns_consts *dc = dns_c();
	__u64 h;

	if (!(dc->flags & BW_DNS_F_ALLOW))
		return 0;
	s->h = dc->allow_init;
	s->k = 0;
	s->state = DNS_ST_CLEAN;
	bpf_loop(BW_NAME_LABELS_MAX, dns_allow_cb, lc, 0);
	if (s->state == DNS_ST_HIT)
		return 1;
	if (s->k != s->n)
		return 0;
	h = bw_name_key_exact(s->h);
	return bpf_map_lookup_elem(&BW_MAP_ALLOW_NAMES, &h) != NULL;
}

#endif /* __BW_DNS_H */
