/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * egress.h - the TC egress program's judgment: each leaving packet's
 * destination against the same filter as the XDP program (judge.h, the
 * same blocks map, allowlist, exact trie and header constants: the two
 * programs are loaded from one object, for one filter, together).
 *
 * What only this program has: its counters (egress_stats: the ingress
 * struct bw_stats, and each CPU's latest sources for who tried, in one
 * struct bw_egress_stats; egress_dns, the ingress struct bw_dns_stats)
 * and who tried (egress_who: the local sources of the packets it dropped
 * or, in monitor mode, passed for a listed destination, and of the
 * queries for a listed name it dropped). The destination is tested
 * whatever --match says: on the way out the far end is the one the lists
 * name.
 *
 * Its copies follow the XDP program's (prog_variant, the same .rodata):
 * with names, a leaving DNS query for a listed name is dropped (dns.h's
 * judgment, read from the skb); with logging, a drop is logged with its
 * socket (droplog.h's log_egress()). The copy without either is the
 * plain one, the others subprograms out of its way.
 */
#ifndef __BW_EGRESS_H
#define __BW_EGRESS_H

#include <linux/pkt_cls.h>

#include "maps.h"
#include "parse.h"
#include "judge.h"
#include "who.h"
#include "dns_verdict.h"
#include "droplog.h"

/* The counters and who tried's latest sources, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_egress_stats);
} BW_MAP_EGRESS_STATS SEC(".maps");

/* Bounded: a host sending from many addresses keeps its latest. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BW_WHO_MAX);
	__type(key, struct bw_who_key);
	__type(value, __u64);
} BW_MAP_EGRESS_WHO SEC(".maps");

/*
 * The source raw (hi, lo: struct bw_who_latest's words) takes the place of
 * s, its family's latest on this CPU (or NULL): s's count goes to
 * egress_who, or with no s the packet straight there. Out of line: the
 * latest changes only when the source does.
 */
static __noinline int who_moved(struct bw_who_latest *s, __u32 family, __u64 hi,
				__u64 lo)
{
	__u64 raw[2] = { hi, lo };
	struct bw_who_key k;

	if (!s) {
		k = bw_who_latest_key(raw, family);
		who_count(&BW_MAP_EGRESS_WHO, &k, 1);
		return 0;
	}
	if (s->packets) {
		k = bw_who_latest_key(s->raw, family);
		who_count(&BW_MAP_EGRESS_WHO, &k, s->packets);
	}
	s->raw[0] = hi;
	s->raw[1] = lo;
	s->packets = 1;
	return 0;
}

/*
 * One more packet to a listed destination from the source of the IP
 * header at l3: in this CPU's latest of its family when it is that
 * source, the common case of a host or service that keeps trying,
 * inline; else who_moved(). st: this CPU's egress_stats, or NULL.
 */
static __always_inline void who_tried(struct bw_egress_stats *st, __u32 family,
				      const void *l3)
{
	struct bw_who_latest *s = st ? &st->latest[family] : NULL;
	__u64 raw[2];

	ip_src_raw(l3, family == BW_V6, raw);
	if (s && s->raw[1] == raw[1] && s->raw[0] == raw[0]) {
		s->packets++;
		return;
	}
	who_moved(s, family, raw[0], raw[1]);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_dns_stats);
} BW_MAP_EGRESS_DNS SEC(".maps");

/* A leaving packet's DNS judgment: one copy, as judge_dns() is XDP's. */
static __noinline int judge_dns_egress(struct __sk_buff *skb, __u32 family)
{
	return dns_judge(skb, 1, family, &BW_MAP_EGRESS_DNS);
}

/* Counts v in st (egress_stats, or NULL): the TC action for it. */
static __always_inline int egress_count(struct bw_egress_stats *st,
					enum bw_verdict v, __u32 family)
{
	return count_verdict(st ? &st->counts : NULL, v, family) == XDP_DROP
		       ? TC_ACT_SHOT
		       : TC_ACT_OK;
}

/*
 * Drop on a hit, no allowlist, no verify mode: a hit needs no confirmation
 * (the flags are constants, so the verifier keeps one of the two paths in
 * egress_family(), as plain_filter() does for XDP's).
 */
static __always_inline int egress_plain(const struct bw_hdr *hdr)
{
	return !(hdr->flags & (BW_F_MONITOR | BW_F_VERIFY | BW_F_ALLOW));
}

/*
 * One family's judgment; variant is a constant; st: this CPU's
 * egress_stats (or NULL). l3 is the IP header that the parse checked,
 * where the source is read on the paths that need it: who tried's, on a
 * hit; the logging copies', for the log. A dropped address stays dropped;
 * a passed one may still be a query for a listed name.
 */
static __always_inline int egress_family(struct __sk_buff *skb,
					 struct bw_egress_stats *st,
					 __u32 family, const void *l3,
					 const __u32 variant)
{
	const struct bw_hdr *hdr = loaded_header(variant);
	const int names = variant & BW_VARIANT_NAMES;
	const int log = variant & BW_VARIANT_LOG;
	const void *dst_at = ip_addr_at(l3, family == BW_V6, 1);
	struct bw_addr src, dst;
	enum bw_verdict v;

	if (!hdr)
		return egress_count(st, BW_VERDICT_NO_FILTER, family);
	/* The plain copy: a hit is a drop, with nothing else to do. */
	if (!names && !log && egress_plain(hdr)) {
		if (!lookup_addr(hdr, family, dst_at))
			return egress_count(st, BW_VERDICT_PASS, family);
		who_tried(st, family, l3);
		return egress_count(st, BW_VERDICT_DROP, family);
	}
	if (log) {
		ip_src(l3, family == BW_V6, &src);
		ip_addr_words(dst_at, family == BW_V6, &dst.hi, &dst.lo);
	}
	if (egress_plain(hdr))
		v = lookup_addr(hdr, family, dst_at) ? BW_VERDICT_DROP
						     : BW_VERDICT_PASS;
	else
		v = apply_action(hdr, judge_addr(hdr, family, dst_at));
	if (v == BW_VERDICT_DROP || v == BW_VERDICT_MONITOR) {
		who_tried(st, family, l3);
		if (log)
			log_egress(skb, family, &src, &dst,
				   LOG_HOW(BW_LOG_ADDRESS,
					   v == BW_VERDICT_DROP
						   ? BW_LOG_DROP
						   : BW_LOG_MONITOR));
	}
	if (!names || v == BW_VERDICT_DROP ||
	    judge_dns_egress(skb, family) == DNS_PASS)
		return egress_count(st, v, family);
	/* A blocked query: its sender tried, as for a listed address. */
	if (v != BW_VERDICT_MONITOR)
		who_tried(st, family, l3);
	if (log)
		log_egress(skb, family, &src, &dst,
			   LOG_HOW(BW_LOG_DNS, BW_LOG_DROP));
	return egress_count(st, BW_VERDICT_DROP, family);
}

/*
 * A leaving packet: Ethernet, up to two VLAN tags in the frame (a tag the
 * driver inserts is in the skb's metadata, not here), IPv4 or IPv6, as on
 * ingress. The stack builds a packet's headers in its linear part; one
 * whose headers are not there is malformed and passed, as on ingress.
 */
static __always_inline int egress_judge(struct __sk_buff *skb,
					const __u32 variant)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)skb->data,
		.end = (void *)(long)skb->data_end,
		.tc = 1,
		.skb_len = skb->len,
	};
	struct bw_egress_stats *st = counters_of(&BW_MAP_EGRESS_STATS);
	void *l3;
	int proto;

	proto = parse_ethhdr(&c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(&c, proto);
	l3 = c.pos;
	if (proto == ETH_P_IP) {
		if (parse_iphdr(&c, NULL, NULL) == BW_PARSE_BAD)
			return egress_count(st, BW_VERDICT_MALFORMED, BW_V4);
		return egress_family(skb, st, BW_V4, l3, variant);
	}
	if (proto == ETH_P_IPV6) {
		if (parse_ip6hdr(&c, NULL, NULL) == BW_PARSE_BAD)
			return egress_count(st, BW_VERDICT_MALFORMED, BW_V6);
		return egress_family(skb, st, BW_V6, l3, variant);
	}
	if (proto == BW_PARSE_BAD)
		return egress_count(st, BW_VERDICT_MALFORMED, BW_V4);
	return egress_count(st, BW_VERDICT_NOT_IP, BW_V4);
}

static __noinline int egress_judge_names(struct __sk_buff *skb)
{
	return egress_judge(skb, BW_VARIANT_FILTER | BW_VARIANT_NAMES);
}

static __noinline int egress_judge_log(struct __sk_buff *skb)
{
	return egress_judge(skb, BW_VARIANT_FILTER | BW_VARIANT_LOG);
}

static __noinline int egress_judge_names_log(struct __sk_buff *skb)
{
	return egress_judge(skb, BW_VARIANT_FILTER | BW_VARIANT_NAMES |
					 BW_VARIANT_LOG);
}

static __noinline int egress_judge_no_filter(struct __sk_buff *skb)
{
	return egress_judge(skb, 0);
}

/* The copy prog_variant names, as bloomwall_xdp picks its own. */
static __always_inline int egress_entry(struct __sk_buff *skb)
{
	__u32 v = prog_variant;

	if (v != BW_VARIANT_FILTER) {
		if (!(v & BW_VARIANT_FILTER))
			return egress_judge_no_filter(skb);
		v &= ~BW_VARIANT_FILTER;
		if (v == BW_VARIANT_NAMES)
			return egress_judge_names(skb);
		if (v == BW_VARIANT_LOG)
			return egress_judge_log(skb);
		return egress_judge_names_log(skb);
	}
	return egress_judge(skb, BW_VARIANT_FILTER);
}

#endif /* __BW_EGRESS_H */
