/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * dns_answer.h - a blocked query turned into its answer in place, for
 * XDP_TX (dns_verdict.h's judgment calls dns_answer()): MACs, addresses
 * and ports swapped, TTL / hop limit 64, the DNS header made a response
 * (QR, RA, RD echoed, RCODE of the action), everything after the question
 * cut (EDNS OPT included) or, for the NULL action and an A / AAAA question
 * of class IN, one answer of 0.0.0.0 / :: appended; IPv4 header checksum
 * and UDP checksum (both families) right.
 *
 * The new UDP header and DNS message are built in the scratch value
 * behind their pseudo header, summed with one bpf_csum_diff, and written
 * with bpf_xdp_store_bytes after bpf_xdp_adjust_tail has given the frame
 * its new length: no packet byte past the IP header is touched through a
 * pointer, so a query in a jumbo frame's fragments is answered the same.
 */
#ifndef __BW_DNS_ANSWER_H
#define __BW_DNS_ANSWER_H

#include "maps.h"
#include "parse.h"
#include "dns.h"

#define DNS_TTL_HOPS 64
#define DNS_QTYPE_A 1
#define DNS_QTYPE_AAAA 28
#define DNS_CLASS_IN 1

static __always_inline void swap_macs(struct ethhdr *eth)
{
	__u8 tmp[ETH_ALEN];

	__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
}

static __always_inline __u16 csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/*
 * The IPv4 header of the answer, ulen its UDP length: addresses swapped,
 * TTL and total length written, IHL 5. The query's options are not the
 * answer's (a source route would send it back the way it named, not
 * reversed): the UDP header is written over them, and the checksum is
 * summed anew over the 20 bytes left. The pseudo header goes to s.
 */
static __always_inline int answer_v4(struct hdr_cursor *c,
				     struct dns_scratch *s, __u32 ulen)
{
	struct iphdr *iph = c->pos;
	__u16 *w = c->pos;
	__u32 addr, sum = 0, i;

	if ((void *)(iph + 1) > c->end)
		return -1;
	addr = iph->saddr;
	iph->saddr = iph->daddr;
	iph->daddr = addr;
	iph->ihl = 5;
	iph->ttl = DNS_TTL_HOPS;
	iph->tot_len = bpf_htons(sizeof(*iph) + ulen);
	iph->check = 0;
#pragma unroll
	for (i = 0; i < sizeof(*iph) / 2; i++)
		sum += w[i];
	iph->check = csum_fold(sum);
	/* Pseudo header: source, destination, zero, protocol, UDP length. */
	__builtin_memcpy(&s->buf[SCR_UDP - 12], &iph->saddr, 8);
	s->buf[SCR_UDP - 4] = 0;
	s->buf[SCR_UDP - 3] = IPPROTO_UDP;
	s->buf[SCR_UDP - 2] = ulen >> 8;
	s->buf[SCR_UDP - 1] = ulen & 0xff;
	return 0;
}

/*
 * The same for IPv6: addresses, hop limit, payload length, and UDP as the
 * next header: the extension headers are the query's, not the answer's.
 */
static __always_inline int answer_v6(struct hdr_cursor *c,
				     struct dns_scratch *s, __u32 ulen)
{
	struct ipv6hdr *ip6h = c->pos;
	struct in6_addr a;

	if ((void *)(ip6h + 1) > c->end)
		return -1;
	a = ip6h->saddr;
	ip6h->saddr = ip6h->daddr;
	ip6h->daddr = a;
	ip6h->hop_limit = DNS_TTL_HOPS;
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->payload_len = bpf_htons(ulen);
	/* Source, destination, 32-bit length, three zeros, next header. */
	__builtin_memcpy(&s->buf[SCR_UDP - 40], &ip6h->saddr, 32);
	s->buf[SCR_UDP - 8] = 0;
	s->buf[SCR_UDP - 7] = 0;
	s->buf[SCR_UDP - 6] = ulen >> 8;
	s->buf[SCR_UDP - 5] = ulen & 0xff;
	s->buf[SCR_UDP - 4] = 0;
	s->buf[SCR_UDP - 3] = 0;
	s->buf[SCR_UDP - 2] = 0;
	s->buf[SCR_UDP - 1] = IPPROTO_UDP;
	return 0;
}

static __always_inline __u8 action_rcode(__u32 action)
{
	if (action == BW_DNS_NXDOMAIN)
		return 3;
	if (action == BW_DNS_REFUSED)
		return 5;
	return 0;
}

/*
 * The response's DNS message in s, from the query there whose question
 * ends at qend: its length. The NULL action answers A and AAAA of class
 * IN with one record (the name as a pointer to the question's), other
 * types with no record (NODATA).
 */
static __always_inline __u64 build_message(struct dns_scratch *s, __u64 qend,
					   __u32 action, __u32 ttl)
{
	__u8 *d = &s->buf[SCR_DNS], *a;
	__u32 qtype, qclass, rdlen, i;

	qtype = d[qend - 4] << 8 | d[qend - 3];
	qclass = d[qend - 2] << 8 | d[qend - 1];
	d[2] = 0x80 | (d[2] & 0x01);	    /* QR, OPCODE 0, AA 0, TC 0, RD */
	d[3] = 0x80 | action_rcode(action); /* RA, Z/AD/CD 0 */
	for (i = 6; i < DNS_HDR_LEN; i++)
		d[i] = 0; /* QDCOUNT stays 1; AN, NS, AR counts 0 */
	if (action != BW_DNS_NULL || qclass != DNS_CLASS_IN ||
	    (qtype != DNS_QTYPE_A && qtype != DNS_QTYPE_AAAA))
		return qend;
	rdlen = qtype == DNS_QTYPE_A ? 4 : 16;
	d[7] = 1;
	a = &s->buf[SCR_DNS + qend];
	a[0] = 0xc0;
	a[1] = DNS_HDR_LEN;
	a[2] = qtype >> 8;
	a[3] = qtype & 0xff;
	a[4] = 0;
	a[5] = DNS_CLASS_IN;
	a[6] = ttl >> 24;
	a[7] = (ttl >> 16) & 0xff;
	a[8] = (ttl >> 8) & 0xff;
	a[9] = ttl & 0xff;
	a[10] = 0;
	a[11] = rdlen;
	for (i = 0; i < 16; i++)
		a[12 + i] = 0;
	return qend + 12 + rdlen;
}

/*
 * Rewrites the query, whose IP header is at l3off and whose question
 * ends qend bytes into its message (already in s), into the action's
 * answer, its UDP header right after the fixed IP header. 0, or -1 when
 * the frame cannot be made the answer (the caller drops it).
 */
static __always_inline int dns_answer(struct xdp_md *ctx, __u32 family,
				      struct dns_scratch *s, __u32 l3off,
				      __u64 qend)
{
	const struct bw_dns_consts *dc = dns_c();
	struct udphdr *udp = (struct udphdr *)&s->buf[SCR_UDP];
	__u64 dlen, ulen;
	__u32 plen, sum, l4off;
	struct hdr_cursor c;
	struct ethhdr *eth;
	int delta;

	/*
	 * clang knows these bounds from the caller and would drop the
	 * checks; the verifier does not follow it through the arithmetic,
	 * so both are made opaque first and checked here.
	 */
	__asm__ __volatile__("" : "+r"(qend));
	if (qend < DNS_HDR_LEN + 5 || qend > DNS_QUERY_MAX)
		return -1;
	dlen = build_message(s, qend, dc->action, dc->ttl);
	__asm__ __volatile__("" : "+r"(dlen));
	if (dlen > DNS_QUERY_MAX + DNS_ANSWER_MAX)
		return -1;
	/* Zeros to the next 4 bytes: bpf_csum_diff sums whole words. */
	s->buf[SCR_DNS + dlen] = 0;
	s->buf[SCR_DNS + dlen + 1] = 0;
	s->buf[SCR_DNS + dlen + 2] = 0;
	ulen = sizeof(*udp) + dlen;
	plen = family == BW_V4 ? 12 : 40;
	l4off = l3off + (family == BW_V4 ? sizeof(struct iphdr)
					 : sizeof(struct ipv6hdr));
	delta = (int)(l4off + ulen) - (int)bpf_xdp_get_buff_len(ctx);
	if (delta && bpf_xdp_adjust_tail(ctx, delta))
		return -1;
	eth = frame_cursor(ctx, 0, &c);
	if ((void *)(eth + 1) > c.end)
		return -1;
	swap_macs(eth);
	if (family == BW_V4 ? answer_v4(&c, s, ulen) : answer_v6(&c, s, ulen))
		return -1;
	udp->dest = s->sport;
	udp->source = bpf_htons(BW_DNS_PORT);
	udp->len = bpf_htons(ulen);
	udp->check = 0;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)&s->buf[SCR_UDP - plen],
			    plen + ((ulen + 3) & ~3U), 0);
	udp->check = csum_fold(sum) ?: 0xffff;
	return bpf_xdp_store_bytes(ctx, l4off, udp, ulen) ? -1 : 0;
}

#endif /* __BW_DNS_ANSWER_H */
