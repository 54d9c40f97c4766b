// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Packet builder of the datapath tests: Ethernet, VLAN tags, IPv4 with
 * options and fragment fields, IPv6 with a Fragment header, UDP. Checksums
 * are right, so a frame means the same here as on a wire.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "datapath.h"

#define IPV6_FRAGHDR_LEN 8

struct bw_prefix bw_addr(const char *text)
{
	struct bw_prefix p = {};
	__u8 b[16];
	int i;

	if (inet_pton(AF_INET, text, b) == 1) {
		p.family = BW_V4;
		p.plen = 32;
		p.lo = ntohl(*(__u32 *)b);
		return p;
	}
	if (inet_pton(AF_INET6, text, b) != 1) {
		fprintf(stderr, "bad address in a test: %s\n", text);
		abort();
	}
	p.family = BW_V6;
	p.plen = 128;
	for (i = 0; i < 8; i++) {
		p.hi = p.hi << 8 | b[i];
		p.lo = p.lo << 8 | b[8 + i];
	}
	return p;
}

static void put_addr6(__u8 *out, const struct bw_prefix *a)
{
	int i;

	for (i = 0; i < 8; i++) {
		out[i] = a->hi >> (56 - 8 * i);
		out[8 + i] = a->lo >> (56 - 8 * i);
	}
}

static __u16 csum16(const void *data, size_t len)
{
	const __u8 *p = data;
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static size_t put_eth(const struct bw_pkt_spec *s, __u8 *buf, __u16 proto)
{
	struct ethhdr *eth = (struct ethhdr *)buf;
	size_t off = sizeof(*eth);
	int i;

	memcpy(eth->h_dest, "\x02\x00\x00\x00\x00\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(s->tpid[0] ? s->tpid[0] : proto);
	for (i = 0; i < BW_PKT_TAGS && s->tpid[i]; i++) {
		__u16 next = i + 1 < BW_PKT_TAGS && s->tpid[i + 1]
				     ? s->tpid[i + 1]
				     : proto;
		__u16 tci = htons(100 + i), enc = htons(next);

		memcpy(buf + off, &tci, 2);
		memcpy(buf + off + 2, &enc, 2);
		off += 4;
	}
	return off;
}

/* UDP header + payload, or bare fragment data for a non-first fragment. */
static size_t put_l4(const struct bw_pkt_spec *s, __u8 *buf, bool first)
{
	struct udphdr *udp = (struct udphdr *)buf;
	size_t len = s->payload;

	memset(buf + (first ? sizeof(*udp) : 0), 0xab, s->payload);
	if (!first)
		return len;
	len += sizeof(*udp);
	udp->source = htons(40000);
	udp->dest = htons(9);
	udp->len = htons(len);
	udp->check = 0; /* optional in IPv4; never read by the program */
	return len;
}

static size_t put_v4(const struct bw_pkt_spec *s, __u8 *buf,
		     const struct bw_prefix *src, const struct bw_prefix *dst)
{
	struct iphdr *iph = (struct iphdr *)buf;
	unsigned int ihl = s->ihl == BW_PKT_IHL_ZERO ? 0 : s->ihl ? s->ihl : 5;
	size_t hlen = ihl * 4, l4;

	memset(buf, 0, ihl >= 5 ? hlen : sizeof(*iph));
	if (ihl > 5)
		memset(buf + sizeof(*iph), 1, hlen - sizeof(*iph)); /* NOPs */
	if (ihl < 5)
		hlen = sizeof(*iph); /* a bad IHL still sends 20 bytes */
	iph->version = s->version ? s->version : 4;
	iph->ihl = ihl;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->frag_off = htons(s->frag);
	iph->saddr = htonl((__u32)src->lo);
	iph->daddr = htonl((__u32)dst->lo);
	l4 = put_l4(s, buf + hlen, (s->frag & 0x1fff) == 0);
	iph->tot_len = htons(hlen + l4);
	iph->check = csum16(buf, hlen);
	return hlen + l4;
}

static size_t put_v6(const struct bw_pkt_spec *s, __u8 *buf,
		     const struct bw_prefix *src, const struct bw_prefix *dst)
{
	struct ipv6hdr *ip6h = (struct ipv6hdr *)buf;
	size_t off = sizeof(*ip6h);
	bool first = true;

	memset(ip6h, 0, sizeof(*ip6h));
	ip6h->version = s->version ? s->version : 6;
	ip6h->hop_limit = 64;
	ip6h->nexthdr = IPPROTO_UDP;
	put_addr6((__u8 *)&ip6h->saddr, src);
	put_addr6((__u8 *)&ip6h->daddr, dst);
	if (s->v6_frag) {
		__u8 *fh = buf + off;
		__u16 fo = htons(s->v6_frag_off);

		ip6h->nexthdr = IPPROTO_FRAGMENT;
		memset(fh, 0, IPV6_FRAGHDR_LEN);
		fh[0] = IPPROTO_UDP;
		memcpy(fh + 2, &fo, 2);
		memcpy(fh + 4, "\x12\x34\x56\x78", 4); /* identification */
		off += IPV6_FRAGHDR_LEN;
		first = (s->v6_frag_off >> 3) == 0;
	}
	off += put_l4(s, buf + off, first);
	ip6h->payload_len = htons(off - sizeof(*ip6h));
	return off;
}

size_t bw_pkt_build_addr(const struct bw_pkt_spec *s,
			 const struct bw_prefix *src,
			 const struct bw_prefix *dst, void *buf)
{
	bool v6 = src->family == BW_V6;
	size_t off;

	memset(buf, 0, BW_PKT_MAX);
	if (s->ethertype) {
		off = put_eth(s, buf, s->ethertype);
		/* Something ARP-sized after the header, never parsed as IP. */
		memset((__u8 *)buf + off, 0x5a, 28 + s->payload);
		return off + 28 + s->payload;
	}
	off = put_eth(s, buf, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6)
		return off + put_v6(s, (__u8 *)buf + off, src, dst);
	return off + put_v4(s, (__u8 *)buf + off, src, dst);
}

size_t bw_pkt_build(const struct bw_pkt_spec *s, void *buf)
{
	struct bw_prefix src = bw_addr(s->src ? s->src : "198.51.100.7");
	struct bw_prefix dst;

	if (s->dst)
		dst = bw_addr(s->dst);
	else
		dst = bw_addr(src.family == BW_V6 ? "2001:db8::1"
						  : "192.0.2.1");
	return bw_pkt_build_addr(s, &src, &dst, buf);
}

size_t bw_pkt_needed(const struct bw_pkt_spec *s)
{
	size_t n = sizeof(struct ethhdr);
	int i;

	for (i = 0; i < BW_PKT_TAGS && s->tpid[i]; i++)
		n += 4;
	if (s->ethertype)
		return n;
	if (s->src && strchr(s->src, ':'))
		return n + sizeof(struct ipv6hdr);
	return n + (s->ihl ? s->ihl : 5) * 4;
}
