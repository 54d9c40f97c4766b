// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall.bpf.c - the XDP data path: parse, pick the key address, test it
 * against the Bloom filter, drop or pass, count.
 *
 * The program is loaded anew for every filter, with that filter's block map
 * as its own `blocks` map and that filter's header as its constants
 * (filter_hdr): the verifier inlines the lookups in a map the program names
 * directly, and a header it knows leaves only the code this filter needs.
 * A reload loads the next program and replaces the one on the interface in
 * one atomic update, so the interface enters this program directly. What
 * the alternatives cost is in tests/bench/RESULTS.md ("Design decisions and
 * their measurements").
 *
 * The unlisted path is the one that must be cheap: one block per target
 * length, then one per-CPU stats update. Everything a hit needs beyond that
 * (allowlist, verify mode) lives in confirm_hit(). Domain names (dns.h,
 * dns_verdict.h) come after the address filter, only in a program loaded
 * for a filter with names (prog_variant, dns_consts: maps.h).
 *
 * The maps and load-time constants are declared in maps.h, included first:
 * the headers after it read them, and so sit here rather than after the
 * declarations they need. Nothing in them is emitted unless a program's
 * copy calls it, so where they are included does not change the code.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bw_layout.h"
#include "bw_hash.h"
#include "maps.h"
#include "parse.h"
#include "dns_verdict.h"
#include "droplog.h"

/* What happened to a packet; record_verdict() maps it to action + counter. */
enum bw_verdict {
	BW_VERDICT_PASS = 1, /* tested, not listed */
	BW_VERDICT_NOT_IP,
	BW_VERDICT_MALFORMED,
	BW_VERDICT_NO_FILTER,
	BW_VERDICT_MONITOR,
	BW_VERDICT_ALLOWED,   /* a hit, but the allowlist matched */
	BW_VERDICT_FALSE_POS, /* a hit, but the exact trie refused it */
	BW_VERDICT_DROP,
};

/*
 * 1 if hash h hits in the region: one block, its probes. A corrupt header
 * must not turn into dropping everything: a region that points past the map
 * finds no block, and one with 0 probes (which every key would pass) is
 * skipped; both count as misses.
 */
static __always_inline int test_region(const struct bw_hdr *hdr, __u32 r,
				       const struct bw_region_consts *rc,
				       __u64 h)
{
	__u32 probes = hdr->probes[r], idx;
	const struct bw_block *blk;

	if (!rc->nblocks || !probes)
		return 0;
	idx = rc->start + bw_block_index(h, rc->nblocks);
	blk = bpf_map_lookup_elem(&BW_MAP_BLOCKS, &idx);
	return blk && bw_block_test(blk, h, probes);
}

/*
 * 1 if the address hits at any target length of its family; the first hit
 * ends the search. Inlined with the family as a constant and unrolled: each
 * region index is a constant, so the header is read at fixed offsets and
 * nothing spills to the stack.
 */
static __always_inline int lookup_addr(const struct bw_hdr *hdr, __u32 family,
				       __u64 hi, __u64 lo)
{
	const struct bw_region_consts *rc;
	__u32 i, r;
	__u64 h;

#pragma unroll
	for (i = 0; i < BW_MAX_LENGTHS; i++) {
		if (i >= hdr->nlengths[family])
			return 0;
		r = family * BW_MAX_LENGTHS + i;
		rc = consts_of(r);
		if (family == BW_V4)
			h = bw_hash_v4_rc((__u32)lo, rc);
		else
			h = bw_hash_v6_rc(hi, lo, rc);
		if (test_region(hdr, r, rc, h))
			return 1;
	}
	return 0;
}

/*
 * The confirmation step for a Bloom hit, off the unlisted path: an LPM
 * lookup costs many times a Bloom test, so only hits pay for one. An
 * allowlisted address is never dropped; in verify mode the exact trie must
 * confirm the hit. A missing exact trie (a reload racing with this packet)
 * confirms nothing: better one listed packet through than one clean packet
 * dropped.
 */
static __always_inline enum bw_verdict
confirm_hit(const struct bw_hdr *hdr, __u32 family, const struct bw_addr *a)
{
	struct bw_lpm_key key;
	__u32 slot = hdr->exact_slot;
	void *trie;

	/* The common case: no allowlist, no verify mode, no key to build. */
	if (!(hdr->flags & (BW_F_ALLOW | BW_F_VERIFY)))
		return BW_VERDICT_DROP;
	bw_lpm_key_set(&key, family, a->hi, a->lo, family == BW_V4 ? 32 : 128);
	/* The CLI keeps BW_F_ALLOW in step with the trie: skip an empty one. */
	if ((hdr->flags & BW_F_ALLOW) &&
	    bpf_map_lookup_elem(&BW_MAP_ALLOW, &key))
		return BW_VERDICT_ALLOWED;
	if (!(hdr->flags & BW_F_VERIFY))
		return BW_VERDICT_DROP;
	trie = bpf_map_lookup_elem(&BW_MAP_EXACT, &slot);
	if (!trie || !bpf_map_lookup_elem(trie, &key))
		return BW_VERDICT_FALSE_POS;
	return BW_VERDICT_DROP;
}

/* Verdict for one address: not listed, or what its confirmation says. */
static __always_inline enum bw_verdict
judge_addr(const struct bw_hdr *hdr, __u32 family, const struct bw_addr *a)
{
	if (!lookup_addr(hdr, family, a->hi, a->lo))
		return BW_VERDICT_PASS;
	return confirm_hit(hdr, family, a);
}

/*
 * Which addresses the header asks for: source, destination or both; flags
 * with neither bit mean source. A packet is dropped if any tested address
 * is confirmed listed; otherwise the most telling verdict is kept (an
 * allowlisted or refused hit over a plain miss), for the counters.
 */
static __always_inline enum bw_verdict lookup_packet(const struct bw_hdr *hdr,
						     __u32 family,
						     const struct bw_addr *src,
						     const struct bw_addr *dst)
{
	__u16 match = hdr->flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST);
	enum bw_verdict v = BW_VERDICT_PASS, d;

	if (!match)
		match = BW_F_MATCH_SRC;
	if (match & BW_F_MATCH_SRC) {
		v = judge_addr(hdr, family, src);
		if (v == BW_VERDICT_DROP)
			return v;
	}
	if (match & BW_F_MATCH_DST) {
		d = judge_addr(hdr, family, dst);
		if (d != BW_VERDICT_PASS)
			return d;
	}
	return v;
}

/* The header's action for a confirmed hit: drop, or count and pass. */
static __always_inline enum bw_verdict apply_action(const struct bw_hdr *hdr,
						    enum bw_verdict v)
{
	if (v == BW_VERDICT_DROP && (hdr->flags & BW_F_MONITOR))
		return BW_VERDICT_MONITOR;
	return v;
}

/* One per-CPU lookup; plain increments are safe on this CPU's copy. */
static __always_inline int record_verdict(enum bw_verdict v, __u32 family)
{
	struct bw_stats *s;
	__u32 key = 0;

	s = bpf_map_lookup_elem(&BW_MAP_STATS, &key);
	if (!s)
		return v == BW_VERDICT_DROP ? XDP_DROP : XDP_PASS;
	if (v == BW_VERDICT_DROP) {
		if (family == BW_V6)
			s->dropped_v6++;
		else
			s->dropped_v4++;
		return XDP_DROP;
	}
	s->passed++;
	/* The common case, unlisted, needs no more counters. */
	if (v == BW_VERDICT_PASS)
		return XDP_PASS;
	if (v == BW_VERDICT_NOT_IP)
		s->not_ip++;
	else if (v == BW_VERDICT_MALFORMED)
		s->malformed++;
	else if (v == BW_VERDICT_NO_FILTER)
		s->no_filter++;
	else if (v == BW_VERDICT_MONITOR)
		s->monitored++;
	else if (v == BW_VERDICT_ALLOWED)
		s->allowed++;
	else if (v == BW_VERDICT_FALSE_POS)
		s->false_pos++;
	return XDP_PASS;
}

/* A blocked query: a drop in stats, and one of its family's DNS drops. */
static __always_inline void record_dns_drop(__u32 family)
{
	struct bw_dns_drops *d;
	__u32 key = 0;

	record_verdict(BW_VERDICT_DROP, family);
	d = bpf_map_lookup_elem(&BW_MAP_DNS_DROPS, &key);
	if (d)
		d->dropped[family == BW_V6]++;
}

/*
 * The DNS judgment after the address filter passed the packet with
 * verdict v: a blocked query counts as dropped (answered or not), any
 * other packet by v.
 */
static __always_inline int judge_names(struct xdp_md *ctx, __u32 family,
				       enum bw_verdict v)
{
	int r = judge_dns(ctx, family);

	if (r == DNS_PASS)
		return record_verdict(v, family);
	record_dns_drop(family);
	return r == DNS_TX ? XDP_TX : XDP_DROP;
}

/*
 * Source match, drop on a hit, no allowlist, no verify mode: the common
 * setup, where a hit needs no confirmation and the verdict no bookkeeping.
 * The flags are constants (filter_hdr), so the verifier keeps only one of
 * the two paths in judge_packet().
 */
static __always_inline int plain_filter(const struct bw_hdr *hdr)
{
	return !(hdr->flags &
		 (BW_F_MATCH_DST | BW_F_MONITOR | BW_F_VERIFY | BW_F_ALLOW));
}

/*
 * Everything after the parse, for one family: called with a constant, so
 * each family gets its own copy with the other family's code folded away.
 */
static __always_inline int judge_packet(struct xdp_md *ctx, __u32 family,
					const struct bw_addr *src,
					const struct bw_addr *dst,
					const int names)
{
	const struct bw_hdr *hdr = loaded_header();
	enum bw_verdict v;

	if (!hdr)
		return record_verdict(BW_VERDICT_NO_FILTER, family);
	/*
	 * Every instruction on the listed path counts: cold, the CPU starts
	 * the next packet's cache miss only once it fits in its window.
	 */
	if (!names && plain_filter(hdr))
		return record_verdict(lookup_addr(hdr, family, src->hi, src->lo)
					      ? BW_VERDICT_DROP
					      : BW_VERDICT_PASS,
				      family);
	if (!names) {
		v = apply_action(hdr, lookup_packet(hdr, family, src, dst));
		return record_verdict(v, family);
	}
	/* Names: the address filter first; a dropped address stays dropped. */
	if (plain_filter(hdr))
		v = lookup_addr(hdr, family, src->hi, src->lo)
			    ? BW_VERDICT_DROP
			    : BW_VERDICT_PASS;
	else
		v = apply_action(hdr, lookup_packet(hdr, family, src, dst));
	if (v == BW_VERDICT_DROP)
		return record_verdict(v, family);
	return judge_names(ctx, family, v);
}

/*
 * The copies with logging: the same judgment, and a confirmed hit
 * (dropped, or passed by monitor mode) or a blocked query logged first.
 * Apart from judge_packet() so that the copies without logging stay
 * instruction for instruction what they were.
 */
static __always_inline int finish_logged(struct xdp_md *ctx, enum bw_verdict v,
					 __u32 family,
					 const struct bw_addr *src,
					 const struct bw_addr *dst)
{
	if (v == BW_VERDICT_DROP)
		log_event(ctx, family, src, dst,
			  LOG_HOW(BW_LOG_ADDRESS, BW_LOG_DROP));
	else if (v == BW_VERDICT_MONITOR)
		log_event(ctx, family, src, dst,
			  LOG_HOW(BW_LOG_ADDRESS, BW_LOG_MONITOR));
	return record_verdict(v, family);
}

static __always_inline int judge_logged(struct xdp_md *ctx, __u32 family,
					const struct bw_addr *src,
					const struct bw_addr *dst,
					const int names)
{
	const struct bw_hdr *hdr = loaded_header();
	enum bw_verdict v;
	int r;

	if (!hdr)
		return record_verdict(BW_VERDICT_NO_FILTER, family);
	if (plain_filter(hdr))
		v = lookup_addr(hdr, family, src->hi, src->lo)
			    ? BW_VERDICT_DROP
			    : BW_VERDICT_PASS;
	else
		v = apply_action(hdr, lookup_packet(hdr, family, src, dst));
	if (!names || v == BW_VERDICT_DROP)
		return finish_logged(ctx, v, family, src, dst);
	r = judge_dns(ctx, family);
	if (r == DNS_PASS)
		return finish_logged(ctx, v, family, src, dst);
	log_event(
		ctx, family, src, dst,
		LOG_HOW(BW_LOG_DNS, r == DNS_TX ? BW_LOG_ANSWER : BW_LOG_DROP));
	record_dns_drop(family);
	return r == DNS_TX ? XDP_TX : XDP_DROP;
}

/*
 * Parse and judge a frame. names and log are constants: the program has
 * one copy without the DNS and logging code (the one a filter without
 * names runs with logging off, instruction for instruction what it was
 * before names and the log existed) and one with each, and both.
 */
static __always_inline int xdp_judge(struct xdp_md *ctx, const int names,
				     const int log)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.ctx = ctx,
	};
	struct bw_addr src, dst;
	int proto;

	proto = parse_ethhdr(&c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(&c, proto);
	if (proto == ETH_P_IP) {
		if (parse_iphdr(&c, &src, &dst) == BW_PARSE_BAD)
			return record_verdict(BW_VERDICT_MALFORMED, BW_V4);
		return log ? judge_logged(ctx, BW_V4, &src, &dst, names)
			   : judge_packet(ctx, BW_V4, &src, &dst, names);
	}
	if (proto == ETH_P_IPV6) {
		if (parse_ip6hdr(&c, &src, &dst) == BW_PARSE_BAD)
			return record_verdict(BW_VERDICT_MALFORMED, BW_V6);
		return log ? judge_logged(ctx, BW_V6, &src, &dst, names)
			   : judge_packet(ctx, BW_V6, &src, &dst, names);
	}
	/* ARP, LLDP, MPLS, a third VLAN tag ...: no address we can test. */
	if (proto == BW_PARSE_BAD)
		return record_verdict(BW_VERDICT_MALFORMED, BW_V4);
	return record_verdict(BW_VERDICT_NOT_IP, BW_V4);
}

/* The other copies, as subprograms: out of the way of the plain one. */
static __noinline int xdp_judge_names(struct xdp_md *ctx)
{
	return xdp_judge(ctx, 1, 0);
}

static __noinline int xdp_judge_log(struct xdp_md *ctx)
{
	return xdp_judge(ctx, 0, 1);
}

static __noinline int xdp_judge_names_log(struct xdp_md *ctx)
{
	return xdp_judge(ctx, 1, 1);
}

/*
 * xdp.frags: libbpf loads it with BPF_F_XDP_HAS_FRAGS, so the kernel hands
 * it jumbo frames as several buffers (a veth or a driver refuses a program
 * without it above about 3.5 KB of MTU). The parse reads the linear part
 * and takes lengths from the whole frame.
 */
SEC("xdp.frags")
int bloomwall_xdp(struct xdp_md *ctx)
{
	__u32 v = prog_variant;

	if (v) {
		if (v == BW_VARIANT_NAMES)
			return xdp_judge_names(ctx);
		if (v == BW_VARIANT_LOG)
			return xdp_judge_log(ctx);
		return xdp_judge_names_log(ctx);
	}
	return xdp_judge(ctx, 0, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
