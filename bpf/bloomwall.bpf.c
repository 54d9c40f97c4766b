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
#include "judge.h"
#include "dns_verdict.h"
#include "droplog.h"
#include "who.h"
#include "egress.h"

/* A blocked query: a drop in stats, and one of its family's DNS drops. */
static __always_inline void record_dns_drop(struct bw_stats *st, __u32 family)
{
	struct bw_dns_drops *d;
	__u32 key = 0;

	count_verdict(st, BW_VERDICT_DROP, family);
	d = bpf_map_lookup_elem(&BW_MAP_DNS_DROPS, &key);
	if (d)
		d->dropped[family == BW_V6]++;
}

/*
 * The DNS judgment after the address filter passed the packet with
 * verdict v: a blocked query counts as dropped (answered or not), any
 * other packet by v.
 */
static __always_inline int judge_names(struct xdp_md *ctx, struct bw_stats *st,
				       __u32 family, enum bw_verdict v)
{
	int r = judge_dns(ctx, family);

	if (r == DNS_PASS)
		return count_verdict(st, v, family);
	record_dns_drop(st, family);
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
static __always_inline int judge_packet(struct xdp_md *ctx, struct bw_stats *st,
					__u32 family, const void *l3,
					const __u32 variant)
{
	const struct bw_hdr *hdr = loaded_header(variant);
	const int names = variant & BW_VARIANT_NAMES;
	const int v6 = family == BW_V6;
	enum bw_verdict v;

	if (!hdr)
		return count_verdict(st, BW_VERDICT_NO_FILTER, family);
	/*
	 * Every instruction on the listed path counts: cold, the CPU starts
	 * the next packet's cache miss only once it fits in its window.
	 */
	if (!names && plain_filter(hdr)) {
		if (lookup_addr(hdr, family, ip_addr_at(l3, v6, 0)))
			return count_verdict(st, BW_VERDICT_DROP, family);
		return count_verdict(st, BW_VERDICT_PASS, family);
	}
	if (!names) {
		v = apply_action(hdr, lookup_packet(hdr, family, l3));
		return count_verdict(st, v, family);
	}
	/* Names: the address filter first; a dropped address stays dropped. */
	if (plain_filter(hdr))
		v = lookup_addr(hdr, family, ip_addr_at(l3, v6, 0))
			    ? BW_VERDICT_DROP
			    : BW_VERDICT_PASS;
	else
		v = apply_action(hdr, lookup_packet(hdr, family, l3));
	if (v == BW_VERDICT_DROP)
		return count_verdict(st, v, family);
	return judge_names(ctx, st, family, v);
}

/*
 * The copies with logging: the same judgment, and a confirmed hit
 * (dropped, or passed by monitor mode) or a blocked query logged first.
 * Apart from judge_packet() so that the copies without logging stay
 * instruction for instruction what they were.
 */
static __always_inline int finish_logged(struct xdp_md *ctx,
					 struct bw_stats *st, enum bw_verdict v,
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
	return count_verdict(st, v, family);
}

static __always_inline int judge_logged(struct xdp_md *ctx, struct bw_stats *st,
					__u32 family, const void *l3,
					const struct bw_addr *src,
					const struct bw_addr *dst,
					const __u32 variant)
{
	const struct bw_hdr *hdr = loaded_header(variant);
	const int names = variant & BW_VARIANT_NAMES;
	enum bw_verdict v;
	int r;

	if (!hdr)
		return count_verdict(st, BW_VERDICT_NO_FILTER, family);
	if (plain_filter(hdr))
		v = lookup_addr(hdr, family, ip_addr_at(l3, family == BW_V6, 0))
			    ? BW_VERDICT_DROP
			    : BW_VERDICT_PASS;
	else
		v = apply_action(hdr, lookup_packet(hdr, family, l3));
	if (!names || v == BW_VERDICT_DROP)
		return finish_logged(ctx, st, v, family, src, dst);
	r = judge_dns(ctx, family);
	if (r == DNS_PASS)
		return finish_logged(ctx, st, v, family, src, dst);
	log_event(
		ctx, family, src, dst,
		LOG_HOW(BW_LOG_DNS, r == DNS_TX ? BW_LOG_ANSWER : BW_LOG_DROP));
	record_dns_drop(st, family);
	return r == DNS_TX ? XDP_TX : XDP_DROP;
}

/*
 * Parse and judge a frame. variant is a constant: the program has one
 * copy without the DNS and logging code (the one a filter without names
 * runs with logging off) and one with each, and both, and one for no
 * filter at all.
 */
static __always_inline int xdp_judge(struct xdp_md *ctx, const __u32 variant)
{
	const int log = variant & BW_VARIANT_LOG;
	struct hdr_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.ctx = ctx,
	};
	struct bw_stats *st = counters_of(&BW_MAP_STATS);
	struct bw_addr src, dst;
	void *l3;
	int proto;

	proto = parse_ethhdr(&c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(&c, proto);
	l3 = c.pos;
	/* The judgment reads the addresses at l3; the log keeps them. */
	if (proto == ETH_P_IP) {
		if (parse_iphdr(&c, log ? &src : NULL, log ? &dst : NULL) ==
		    BW_PARSE_BAD)
			return count_verdict(st, BW_VERDICT_MALFORMED, BW_V4);
		return log ? judge_logged(ctx, st, BW_V4, l3, &src, &dst,
					  variant)
			   : judge_packet(ctx, st, BW_V4, l3, variant);
	}
	if (proto == ETH_P_IPV6) {
		if (parse_ip6hdr(&c, log ? &src : NULL, log ? &dst : NULL) ==
		    BW_PARSE_BAD)
			return count_verdict(st, BW_VERDICT_MALFORMED, BW_V6);
		return log ? judge_logged(ctx, st, BW_V6, l3, &src, &dst,
					  variant)
			   : judge_packet(ctx, st, BW_V6, l3, variant);
	}
	/* ARP, LLDP, MPLS, a third VLAN tag ...: no address we can test. */
	if (proto == BW_PARSE_BAD)
		return count_verdict(st, BW_VERDICT_MALFORMED, BW_V4);
	return count_verdict(st, BW_VERDICT_NOT_IP, BW_V4);
}

/* The other copies, as subprograms: out of the way of the plain one. */
static __noinline int xdp_judge_names(struct xdp_md *ctx)
{
	return xdp_judge(ctx, BW_VARIANT_FILTER | BW_VARIANT_NAMES);
}

static __noinline int xdp_judge_log(struct xdp_md *ctx)
{
	return xdp_judge(ctx, BW_VARIANT_FILTER | BW_VARIANT_LOG);
}

static __noinline int xdp_judge_names_log(struct xdp_md *ctx)
{
	return xdp_judge(ctx,
			 BW_VARIANT_FILTER | BW_VARIANT_NAMES | BW_VARIANT_LOG);
}

static __noinline int xdp_judge_no_filter(struct xdp_md *ctx)
{
	return xdp_judge(ctx, 0);
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

	if (v != BW_VARIANT_FILTER) {
		if (!(v & BW_VARIANT_FILTER))
			return xdp_judge_no_filter(ctx);
		v &= ~BW_VARIANT_FILTER;
		if (v == BW_VARIANT_NAMES)
			return xdp_judge_names(ctx);
		if (v == BW_VARIANT_LOG)
			return xdp_judge_log(ctx);
		return xdp_judge_names_log(ctx);
	}
	return xdp_judge(ctx, BW_VARIANT_FILTER);
}

/*
 * The host's own traffic on its way out (attach --egress): a TC program on
 * the interface's clsact egress hook, loaded with the XDP program for the
 * same filter (egress.h).
 */
SEC("tc")
int bloomwall_tc(struct __sk_buff *skb)
{
	return egress_entry(skb);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
