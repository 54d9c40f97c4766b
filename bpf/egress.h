/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * egress.h - the TC egress program's judgment: each leaving packet's
 * destination against the same filter as the XDP program (judge.h, the
 * same blocks map, allowlist, exact trie and header constants: the two
 * programs are loaded from one object, for one filter, together).
 *
 * What only this program has: its counters (egress_stats, the ingress
 * struct bw_stats) and who tried (egress_who: the local sources of the
 * packets it dropped or, in monitor mode, passed for a listed
 * destination). The destination is tested whatever --match says: on the
 * way out the far end is the one the lists name.
 */
#ifndef __BW_EGRESS_H
#define __BW_EGRESS_H

#include <linux/pkt_cls.h>

#include "maps.h"
#include "parse.h"
#include "judge.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_stats);
} BW_MAP_EGRESS_STATS SEC(".maps");

/* Bounded: a host sending from many addresses keeps its latest. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BW_WHO_MAX);
	__type(key, struct bw_who_key);
	__type(value, __u64);
} BW_MAP_EGRESS_WHO SEC(".maps");

/* One more packet from src to a listed destination. */
static __always_inline void who_tried(__u32 family, const struct bw_addr *src)
{
	struct bw_who_key k = {
		.addr = { src->hi, src->lo },
		.family = family,
	};
	__u64 one = 1, *n;

	n = bpf_map_lookup_elem(&BW_MAP_EGRESS_WHO, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&BW_MAP_EGRESS_WHO, &k, &one, BPF_NOEXIST);
}

/* Counts v on the egress side: the TC action for it. */
static __always_inline int egress_count(enum bw_verdict v, __u32 family)
{
	return count_verdict(&BW_MAP_EGRESS_STATS, v, family) == XDP_DROP
		       ? TC_ACT_SHOT
		       : TC_ACT_OK;
}

static __always_inline int egress_family(__u32 family,
					 const struct bw_addr *src,
					 const struct bw_addr *dst)
{
	const struct bw_hdr *hdr = loaded_header();
	enum bw_verdict v;

	if (!hdr)
		return egress_count(BW_VERDICT_NO_FILTER, family);
	v = apply_action(hdr, judge_addr(hdr, family, dst));
	if (v == BW_VERDICT_DROP || v == BW_VERDICT_MONITOR)
		who_tried(family, src);
	return egress_count(v, family);
}

/*
 * A leaving packet: Ethernet, up to two VLAN tags in the frame (a tag the
 * driver inserts is in the skb's metadata, not here), IPv4 or IPv6, as on
 * ingress. The stack builds a packet's headers in its linear part; one
 * whose headers are not there is malformed and passed, as on ingress.
 */
static __always_inline int egress_judge(struct __sk_buff *skb)
{
	struct hdr_cursor c = {
		.pos = (void *)(long)skb->data,
		.end = (void *)(long)skb->data_end,
		.tc = 1,
		.skb_len = skb->len,
	};
	struct bw_addr src, dst;
	int proto;

	proto = parse_ethhdr(&c);
	if (proto != BW_PARSE_BAD)
		proto = parse_vlans(&c, proto);
	if (proto == ETH_P_IP) {
		if (parse_iphdr(&c, &src, &dst) == BW_PARSE_BAD)
			return egress_count(BW_VERDICT_MALFORMED, BW_V4);
		return egress_family(BW_V4, &src, &dst);
	}
	if (proto == ETH_P_IPV6) {
		if (parse_ip6hdr(&c, &src, &dst) == BW_PARSE_BAD)
			return egress_count(BW_VERDICT_MALFORMED, BW_V6);
		return egress_family(BW_V6, &src, &dst);
	}
	if (proto == BW_PARSE_BAD)
		return egress_count(BW_VERDICT_MALFORMED, BW_V4);
	return egress_count(BW_VERDICT_NOT_IP, BW_V4);
}

#endif /* __BW_EGRESS_H */
