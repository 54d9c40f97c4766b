/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * droplog.h - the drop log: one struct bw_log_event for a sampled drop
 * (or monitored hit, or answered query) into the ring buffer log_ring,
 * rate-limited by a token bucket per CPU (bw_log_stats in log_stats).
 *
 * Everything here runs in log_event() (the XDP program) or log_egress()
 * (the TC program), subprograms called only from the programs' copies
 * with logging (prog_variant has BW_VARIANT_LOG): with --log-rate 0 the
 * verifier never reaches them and removes them. The ports
 * are parsed here, on the logging path only; the listed path pays one
 * call. A blocked query's name is read from dns.h's scratch value, where
 * judge_dns() left it.
 */
#ifndef __BW_DROPLOG_H
#define __BW_DROPLOG_H

#include "maps.h"
#include "parse.h"
#include "dns.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, BW_LOG_RING_BYTES);
} BW_MAP_LOG_RING SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_log_stats);
} BW_MAP_LOG_STATS SEC(".maps");

/* log_event()'s how: the reason in the high byte, the action below. */
#define LOG_HOW(reason, action) ((reason) << 8 | (action))

static __always_inline const struct bw_log_consts *log_c(void)
{
	const struct bw_log_consts *lc =
		(const struct bw_log_consts *)&log_consts;

	__asm__ __volatile__("" : "+r"(lc));
	return lc;
}

/*
 * Takes a token from this CPU's bucket: 1 if there was one. The bucket
 * holds credit (in 2^-BW_LOG_CREDIT_SHIFT jiffies), one event costs cost
 * and it fills with time up to cap; last 0 is a bucket never used, full.
 * The clock is the tick count: the verifier inlines bpf_jiffies64 into a
 * load, where a clock helper is a call that a flood's every listed packet
 * would pay; the credit comes a tick at a time, the same over a second.
 * A last ahead of now (a bucket an older program kept in nanoseconds)
 * reads as a long idle one: full.
 */
static __always_inline int bucket_take(struct bw_log_stats *ls)
{
	const struct bw_log_consts *lc = log_c();
	__u64 now = bpf_jiffies64(), gone = now - ls->last, credit;

	/* Past cap's worth of jiffies the bucket is full: no shift overflows. */
	if (!ls->last || gone > lc->cap >> BW_LOG_CREDIT_SHIFT)
		credit = lc->cap;
	else
		credit = ls->credit + (gone << BW_LOG_CREDIT_SHIFT);
	if (credit > lc->cap)
		credit = lc->cap;
	ls->last = now;
	if (credit < lc->cost) {
		ls->credit = credit;
		return 0;
	}
	ls->credit = credit - lc->cost;
	return 1;
}

/* The generation of the filter this program reads (its info block). */
static __always_inline __u64 log_generation(void)
{
	const struct bw_info *info;
	__u32 idx = 1;

	info = bpf_map_lookup_elem(&BW_MAP_BLOCKS, &idx);
	return info ? info->generation : 0;
}

/*
 * Protocol and ports of the packet as it came in (ctx the XDP program's,
 * or with tc the TC program's skb): TCP or UDP right after the IP header
 * (IPv6: right after the fixed header), not in a non-first fragment.
 * Anything else leaves the ports 0.
 */
static __always_inline void log_ports(void *ctx, const int tc, __u32 family,
				      struct bw_log_event *ev)
{
	struct hdr_cursor c = {};
	struct iphdr *iph;
	struct ipv6hdr *ip6h;
	struct udphdr *l4;

	frame_cursor(ctx, tc, &c);
	if (family == BW_V4) {
		iph = c.pos;
		if ((void *)(iph + 1) > c.end)
			return;
		ev->proto = iph->protocol;
		if (bpf_ntohs(iph->frag_off) & IP_OFFSET)
			return;
		l4 = c.pos + iph->ihl * 4;
	} else {
		ip6h = c.pos;
		if ((void *)(ip6h + 1) > c.end)
			return;
		ev->proto = ip6h->nexthdr;
		l4 = (struct udphdr *)(ip6h + 1);
	}
	if (ev->proto != IPPROTO_TCP && ev->proto != IPPROTO_UDP)
		return;
	/* TCP's ports sit where UDP's do. */
	if ((void *)(l4 + 1) > c.end)
		return;
	ev->sport = bpf_ntohs(l4->source);
	ev->dport = bpf_ntohs(l4->dest);
}

/*
 * A DNS query's name and ports, from the scratch value judge_dns() left:
 * the question is still at its place there after an answer was built,
 * and the ports are the query's (the packet may be the answer by now).
 */
static __always_inline void log_query(struct bw_log_event *ev)
{
	struct dns_scratch *s;
	__u32 key = 0, len;

	s = bpf_map_lookup_elem(&dns_scratch, &key);
	if (!s)
		return;
	ev->proto = IPPROTO_UDP;
	ev->sport = bpf_ntohs(s->sport);
	ev->dport = BW_DNS_PORT;
	/* The name runs from the header to the root label at s->pos. */
	len = s->pos - DNS_HDR_LEN + 1;
	if (s->pos < DNS_HDR_LEN || len > BW_LOG_NAME_MAX)
		len = BW_LOG_NAME_MAX;
	ev->name_len = len;
	__builtin_memcpy(ev->name, &s->buf[SCR_DNS + DNS_HDR_LEN],
			 BW_LOG_NAME_MAX);
}

_Static_assert(SCR_DNS + DNS_HDR_LEN + BW_LOG_NAME_MAX <= SCR_BUF,
	       "the logged name is read inside the scratch buffer");

/*
 * An event for one packet if this CPU's bucket has a token (how is
 * LOG_HOW(reason, action)), its fields but the hook's own filled in, a
 * DNS query's name and ports among them: NULL when there is none. *lsp:
 * the counters, for log_submit().
 */
static __always_inline struct bw_log_event *
log_reserve(__u32 family, const struct bw_addr *src, const struct bw_addr *dst,
	    __u32 how, struct bw_log_stats **lsp)
{
	struct bw_log_event *ev;
	struct bw_log_stats *ls;
	__u32 key = 0;

	ls = bpf_map_lookup_elem(&BW_MAP_LOG_STATS, &key);
	if (!ls)
		return NULL;
	if (!bucket_take(ls)) {
		ls->lost_rate++;
		return NULL;
	}
	ev = bpf_ringbuf_reserve(&BW_MAP_LOG_RING, sizeof(*ev), 0);
	if (!ev) {
		ls->lost_ring++;
		return NULL;
	}
	*lsp = ls;
	ev->time_ns = bpf_ktime_get_ns();
	ev->generation = log_generation();
	ev->family = family;
	ev->proto = 0;
	ev->reason = how >> 8;
	ev->action = how & 0xff;
	ev->sport = ev->dport = ev->name_len = ev->pad = 0;
	ev->src[0] = src->hi;
	ev->src[1] = src->lo;
	ev->dst[0] = dst->hi;
	ev->dst[1] = dst->lo;
	ev->cookie = 0;
	ev->uid = BW_LOG_NO_UID;
	ev->direction = BW_LOG_INGRESS;
	ev->pad2[0] = ev->pad2[1] = ev->pad2[2] = 0;
	if (ev->reason == BW_LOG_DNS)
		log_query(ev);
	else
		/* Reserved memory holds an earlier event's bytes: no name. */
		__builtin_memset(ev->name, 0, BW_LOG_NAME_MAX);
	return ev;
}

/* The ports of an address event (its packet in ctx), and out it goes. */
static __always_inline void log_submit(struct bw_log_event *ev,
				       struct bw_log_stats *ls, void *ctx,
				       const int tc)
{
	if (ev->reason != BW_LOG_DNS)
		log_ports(ctx, tc, ev->family, ev);
	bpf_ringbuf_submit(ev, 0);
	ls->logged++;
}

/*
 * Logs one arriving packet (the XDP program). A subprogram: the listed
 * path of a program with logging pays a call, and the code is in one
 * copy whatever the caller.
 */
static __noinline int log_event(struct xdp_md *ctx, __u32 family,
				const struct bw_addr *src,
				const struct bw_addr *dst, __u32 how)
{
	struct bw_log_stats *ls = NULL;
	struct bw_log_event *ev;

	ev = log_reserve(family, src, dst, how, &ls);
	if (!ev)
		return 0;
	ev->ifindex = ctx->ingress_ifindex;
	log_submit(ev, ls, ctx, 0);
	return 0;
}

/*
 * Logs one leaving packet (the TC program), with its socket: the cookie
 * and, for a full socket, its owner's uid. Both are the socket's own,
 * whatever task the hook runs in; a pid would not be (a retransmit, an
 * ACK-clocked send or a softirq runs in whichever task is current).
 */
static __noinline int log_egress(struct __sk_buff *skb, __u32 family,
				 const struct bw_addr *src,
				 const struct bw_addr *dst, __u32 how)
{
	struct bw_log_stats *ls = NULL;
	struct bw_log_event *ev;
	struct bpf_sock *sk;

	ev = log_reserve(family, src, dst, how, &ls);
	if (!ev)
		return 0;
	ev->ifindex = skb->ifindex;
	ev->direction = BW_LOG_EGRESS;
	ev->cookie = bpf_get_socket_cookie(skb);
	sk = skb->sk;
	if (sk && bpf_sk_fullsock(sk))
		ev->uid = bpf_get_socket_uid(skb);
	log_submit(ev, ls, skb, 1);
	return 0;
}

#endif /* __BW_DROPLOG_H */
