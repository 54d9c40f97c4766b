/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * dns_verdict.h - the DNS verdict, judge_dns(): finding a DNS query behind
 * the headers the address path parsed, judging its name (dns.h), and
 * turning a blocked one into its answer in place (XDP_TX, dns_answer.h).
 *
 * The TC egress program judges leaving queries with the same code
 * (dns_judge() with tc set, egress.h): the packet read through the skb
 * and bpf_skb_load_bytes, a blocked query dropped, never answered.
 */
#ifndef __BW_DNS_VERDICT_H
#define __BW_DNS_VERDICT_H

#include "maps.h"
#include "parse.h"
#include "dns.h"
#include "dns_answer.h"

enum dns_loc {
	LOC_NOT_DNS = 0, /* not UDP to port 53: not ours to count */
	LOC_BAD,	 /* UDP to port 53 that cannot be a whole query */
	LOC_DNS,
	LOC_FRAG, /* a later fragment of a UDP datagram: no port to see */
	LOC_DEEP, /* an IPv6 header chain longer than DNS_IPV6_EXT_MAX */
};

/*
 * Where a query is, from dns_locate(): the offsets of its IP and UDP
 * headers, the DNS bytes this packet holds, and what forbids an answer.
 */
struct dns_where {
	__u32 l3off;
	__u32 l4off;
	__u32 dlen;
	__u16 sport;
	__u8 frag;	/* the first fragment of a datagram */
	__u8 no_answer; /* an address or MAC that must not be answered */
};

static __always_inline int udp_to_dns(const struct udphdr *udp, void *end)
{
	return (void *)(udp + 1) <= end && udp->dest == bpf_htons(BW_DNS_PORT);
}

/*
 * An IPv4 address an answer may come from or go to: not 0.0.0.0, not the
 * limited broadcast, not multicast (224.0.0.0/4).
 */
static __always_inline int unicast_v4(__be32 a)
{
	__u32 h = bpf_ntohl(a);

	return h && h != 0xffffffff && (h >> 28) != 0xe;
}

/*
 * IPv4: UDP to port 53. A later fragment has no port: LOC_FRAG, whatever
 * its port was (the first fragment carries the judgment: dropped, the
 * datagram never reassembles). *room: bytes of the IP payload.
 */
static __always_inline int locate_v4(struct hdr_cursor *c, struct dns_where *w,
				     struct udphdr **udpp, __u32 *room)
{
	struct iphdr *iph = c->pos;
	__u32 hlen, tot, frag;

	if ((void *)(iph + 1) > c->end || iph->protocol != IPPROTO_UDP)
		return LOC_NOT_DNS;
	hlen = iph->ihl * 4;
	tot = bpf_ntohs(iph->tot_len);
	frag = bpf_ntohs(iph->frag_off);
	if (frag & IP_OFFSET)
		return LOC_FRAG;
	if (tot < hlen + sizeof(struct udphdr))
		return LOC_NOT_DNS;
	*udpp = c->pos + hlen;
	c->off += hlen;
	if (!udp_to_dns(*udpp, c->end))
		return LOC_NOT_DNS;
	*room = tot - hlen;
	w->frag = !!(frag & IP_MF);
	w->no_answer = !unicast_v4(iph->saddr) || !unicast_v4(iph->daddr);
	return LOC_DNS;
}

static __always_inline int unspecified_v6(const struct in6_addr *a)
{
	const __u32 *w = a->in6_u.u6_addr32;

	return !(w[0] | w[1] | w[2] | w[3]);
}

/* Hop-by-hop, routing, fragment, destination options: one test. */
#define V6_EXT_MASK                                          \
	(1ULL << IPPROTO_HOPOPTS | 1ULL << IPPROTO_ROUTING | \
	 1ULL << IPPROTO_FRAGMENT | 1ULL << IPPROTO_DSTOPTS)

static __always_inline int v6_ext_header(__u32 nh)
{
	return nh < 64 && ((1ULL << nh) & V6_EXT_MASK);
}

/*
 * IPv6: UDP to port 53 after up to DNS_IPV6_EXT_MAX extension headers
 * (hop-by-hop, routing, destination options, fragment), as the stack
 * would deliver it. A Fragment header with an offset: LOC_FRAG. A routing
 * header with segments left names a hop, not the server, as destination:
 * never answered from it. *room: bytes after the extension headers.
 */
static __always_inline int locate_v6(struct hdr_cursor *c, struct dns_where *w,
				     struct udphdr **udpp, __u32 *room)
{
	struct ipv6hdr *ip6h = c->pos;
	__u32 i, len, ext = 0, plen, fo, nh;
	__u8 *p;

	if ((void *)(ip6h + 1) > c->end)
		return LOC_NOT_DNS;
	plen = bpf_ntohs(ip6h->payload_len);
	nh = ip6h->nexthdr;
	p = (__u8 *)(ip6h + 1);
#pragma unroll
	for (i = 0; i < DNS_IPV6_EXT_MAX; i++) {
		if (!v6_ext_header(nh))
			break;
		if ((void *)(p + 8) > c->end)
			return LOC_NOT_DNS;
		fo = p[2] << 8 | p[3];
		if (nh == IPPROTO_FRAGMENT) {
			if (fo & 0xfff8)
				return v6_ext_header(p[0]) ||
						       p[0] == IPPROTO_UDP
					       ? LOC_FRAG
					       : LOC_NOT_DNS;
			/* Offset 0, M set; an atomic fragment is whole. */
			w->frag |= fo & 1;
			len = 8;
		} else {
			/* A routing header's segments left, in the same word. */
			if (nh == IPPROTO_ROUTING && (fo & 0xff))
				w->no_answer = 1;
			len = (p[1] + 1) * 8;
		}
		nh = p[0];
		p += len;
		ext += len;
	}
	if (v6_ext_header(nh))
		return LOC_DEEP;
	if (nh != IPPROTO_UDP || plen < ext + sizeof(struct udphdr))
		return LOC_NOT_DNS;
	/*
	 * One range for every chain: the verifier then checks what follows
	 * once, not once for each number of headers.
	 */
	ext &= 0x3ff8;
	*udpp = (struct udphdr *)((__u8 *)(ip6h + 1) + ext);
	c->off += sizeof(*ip6h) + ext;
	if (!udp_to_dns(*udpp, c->end))
		return LOC_NOT_DNS;
	*room = plen - ext;
	/* ff00::/8 is multicast; :: is no source to answer. */
	if (ip6h->saddr.in6_u.u6_addr8[0] == 0xff ||
	    ip6h->daddr.in6_u.u6_addr8[0] == 0xff ||
	    unspecified_v6(&ip6h->saddr))
		w->no_answer = 1;
	return LOC_DNS;
}

/*
 * Where the DNS message is (struct dns_where): the message's bytes are
 * the UDP length less its header, at least a DNS header, within the IP
 * payload; in a first fragment, those of them it holds. A broadcast or
 * multicast MAC on either side forbids an answer as an address does.
 */
static __always_inline int dns_locate(void *ctx, const int tc, __u32 family,
				      struct dns_where *w)
{
	struct udphdr *udp = NULL;
	struct hdr_cursor c;
	__u32 room = 0, ulen;
	struct ethhdr *eth;
	int loc;

	eth = frame_cursor(ctx, tc, &c);
	if ((void *)(eth + 1) > c.end)
		return LOC_NOT_DNS;
	w->l3off = c.off;
	if (family == BW_V4)
		loc = locate_v4(&c, w, &udp, &room);
	else
		loc = locate_v6(&c, w, &udp, &room);
	if (loc != LOC_DNS || !udp || (void *)(udp + 1) > c.end)
		return loc;
	if ((eth->h_dest[0] | eth->h_source[0]) & 1)
		w->no_answer = 1;
	ulen = bpf_ntohs(udp->len);
	if (ulen < sizeof(*udp) + DNS_HDR_LEN || (ulen > room && !w->frag))
		return LOC_BAD;
	w->sport = udp->source;
	w->l4off = c.off;
	w->dlen = (ulen < room ? ulen : room) - sizeof(*udp);
	return LOC_DNS;
}

/*
 * The DNS judgment of a packet the address filter passed, for either
 * program: ctx is the XDP program's or (tc, a constant) the TC program's
 * skb, whose bytes are read with that program's helper; counts in
 * dns_map (a struct bw_dns_stats). On the way out a blocked query is
 * dropped whatever the action: the answer is XDP's alone.
 */
static __always_inline int dns_judge(void *ctx, const int tc, __u32 family,
				     void *dns_map)
{
	const struct bw_dns_consts *dc = dns_c();
	/* Only the copies of a filter with names come here. */
	const struct bw_hdr *hdr = loaded_header(BW_VARIANT_FILTER);
	struct bw_dns_stats *ds;
	struct dns_scratch *s;
	struct dns_loop lc;
	struct dns_where w = {};
	__u32 key = 0, action;
	__u64 qend, copy;
	__u8 *d;
	int loc;

	/* Other traffic costs the parse to its UDP port, no map lookup. */
	loc = dns_locate(ctx, tc, family, &w);
	if (loc == LOC_NOT_DNS)
		return DNS_PASS;
	s = bpf_map_lookup_elem(&dns_scratch, &key);
	ds = bpf_map_lookup_elem(dns_map, &key);
	if (!s || !ds)
		return DNS_PASS;
	if (loc == LOC_FRAG) {
		ds->fragments++;
		return DNS_PASS;
	}
	if (loc != LOC_DNS)
		goto malformed;
	s->sport = w.sport;
	copy = w.dlen;
	if (copy > DNS_QUERY_MAX)
		copy = DNS_QUERY_MAX;
	if (copy < DNS_HDR_LEN)
		goto malformed;
	if (tc ? bpf_skb_load_bytes(ctx, w.l4off + sizeof(struct udphdr),
				    &s->buf[SCR_DNS], copy)
	       : bpf_xdp_load_bytes(ctx, w.l4off + sizeof(struct udphdr),
				    &s->buf[SCR_DNS], copy))
		goto malformed;
	d = &s->buf[SCR_DNS];
	/* QR set (a response) or an OPCODE other than QUERY. */
	if (d[2] & 0xf8) {
		ds->not_query++;
		return DNS_PASS;
	}
	if (d[4] || d[5] != 1)
		goto malformed;
	s->len = copy;
	s->pos = DNS_HDR_LEN;
	s->n = 0;
	s->state = DNS_ST_RUN;
	lc.s = s;
	/* 127 labels and the root's. */
	bpf_loop(BW_NAME_LABELS_MAX + 1, dns_label_cb, &lc, 0);
	if (s->state != DNS_ST_NAME)
		goto malformed;
	/* The root label, QTYPE and QCLASS, all copied. */
	qend = s->pos;
	__asm__ __volatile__("" : "+r"(qend));
	if (qend > DNS_QUERY_MAX - 5)
		goto malformed;
	qend += 5;
	if (qend > copy)
		goto malformed;
	/* The root name: no key to test. */
	if (!s->n)
		return DNS_PASS;
	ds->queries++;
	if (!name_listed(s, &lc))
		return DNS_PASS;
	if (name_allowed(s, &lc)) {
		ds->allowed++;
		return DNS_PASS;
	}
	if (hdr->flags & BW_F_MONITOR) {
		ds->monitored++;
		return DNS_PASS;
	}
	action = dc->action;
	if (tc || action >= BW_DNS_ACTIONS || action == BW_DNS_DROP) {
		ds->blocked[BW_DNS_DROP]++;
		return DNS_DROP;
	}
	/*
	 * An answer to a first fragment would leave the rest of the datagram
	 * to reach the host; one from a broadcast or multicast address would
	 * be sent from it. Dropped: the name stays blocked.
	 */
	if (w.frag || w.no_answer) {
		ds->not_answered++;
		return DNS_DROP;
	}
	if (dns_answer(ctx, family, s, w.l3off, qend)) {
		ds->answer_failed++;
		return DNS_DROP;
	}
	ds->blocked[action]++;
	return DNS_TX;
malformed:
	/*
	 * A first fragment whose question is not all in it: no client's
	 * link is that narrow, and passed, it would carry any name past the
	 * filter in the fragments after it.
	 */
	if (w.frag && loc == LOC_DNS) {
		ds->frag_dropped++;
		return DNS_DROP;
	}
	ds->malformed++;
	return DNS_PASS;
}

/*
 * The XDP program's DNS judgment: a subprogram (one copy, verified per
 * call with the family a constant), reached only when the filter has
 * names. Counts in dns_stats; the caller counts the packet in stats by
 * the result.
 */
static __noinline int judge_dns(struct xdp_md *ctx, __u32 family)
{
	return dns_judge(ctx, 0, family, &BW_MAP_DNS_STATS);
}

#endif /* __BW_DNS_VERDICT_H */
