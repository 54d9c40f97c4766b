/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * parse.h - bounded header parsing for the XDP program.
 *
 * Contract: each parse_* helper reads one header at the cursor, checks that
 * the whole header lies before data_end BEFORE touching it, advances the
 * cursor past it and returns the next protocol in host byte order (an
 * ethertype, or for IP headers 0). A header that does not fit, or that is
 * invalid (IPv4 ihl < 5, wrong version), returns BW_PARSE_BAD and leaves the
 * cursor where it was. A frame shorter than the IP header's own length is
 * invalid too. Nothing here reads a byte past data_end.
 *
 * The program is multi-buffer aware (xdp.frags): a jumbo frame arrives as
 * a linear part (data .. data_end) and fragments. Every header read here
 * lies in the linear part (drivers put at least the first few hundred
 * bytes there; a frame whose headers do not fit is malformed), but the IP
 * length is compared with the whole frame's length.
 *
 * Addresses come out as numbers in host byte order, the form that
 * include/bw_hash.h hashes: IPv4 as one __u32, IPv6 as two __u64 with
 * hi = the first 8 bytes on the wire. A NULL source or destination is not
 * read.
 */
#ifndef __BW_PARSE_H
#define __BW_PARSE_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef ETH_P_8021Q
#define ETH_P_8021Q 0x8100
#endif
#ifndef ETH_P_8021AD
#define ETH_P_8021AD 0x88A8
#endif

/* Tags read before giving up: 802.1ad outer + 802.1Q inner (QinQ). */
#define BW_VLAN_MAX_DEPTH 2

#define BW_PARSE_BAD (-1)

/* An IPv4 frag_off in host order: more fragments, and the offset. */
#define IP_MF 0x2000
#define IP_OFFSET 0x1fff

struct hdr_cursor {
	void *pos;
	void *end;	    /* of the linear part */
	struct xdp_md *ctx; /* for the whole frame's length */
	__u32 off;	    /* pos - data, as a number (ip_frame_room) */
	/*
	 * A constant where the cursor is made: 1 in the TC program, whose
	 * packet's whole length is skb_len (the XDP copies never read it).
	 */
	int tc;
	__u32 skb_len;
};

/* Not in the UAPI headers: the 4 bytes after the TPID of a VLAN tag. */
struct bw_vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

/* One key address of either family, host byte order (IPv4 in lo). */
struct bw_addr {
	__u64 hi;
	__u64 lo;
};

static __always_inline int proto_is_vlan(__u16 proto)
{
	return proto == ETH_P_8021Q || proto == ETH_P_8021AD;
}

static __always_inline int parse_ethhdr(struct hdr_cursor *c)
{
	struct ethhdr *eth = c->pos;

	if ((void *)(eth + 1) > c->end)
		return BW_PARSE_BAD;
	c->pos = eth + 1;
	c->off += sizeof(*eth);
	return bpf_ntohs(eth->h_proto);
}

/*
 * Up to BW_VLAN_MAX_DEPTH tags of either TPID, in any order. Returns the
 * ethertype after the last tag read; a frame with more tags returns a VLAN
 * TPID, which the caller treats as not IP.
 */
static __always_inline int parse_vlans(struct hdr_cursor *c, int proto)
{
	struct bw_vlan_hdr *vh;
	int i;

#pragma unroll
	for (i = 0; i < BW_VLAN_MAX_DEPTH; i++) {
		if (!proto_is_vlan(proto))
			break;
		vh = c->pos;
		if ((void *)(vh + 1) > c->end)
			return BW_PARSE_BAD;
		c->pos = vh + 1;
		c->off += sizeof(*vh);
		proto = bpf_ntohs(vh->encap_proto);
	}
	return proto;
}

/*
 * A cursor past the link layer of the frame, for code that runs after the
 * address path parsed it (the DNS judgment, its answer): returns the
 * frame's start (the Ethernet header, checked against c->end by the
 * caller). ctx is the XDP program's, or with tc (a constant) the TC
 * program's skb.
 */
static __always_inline void *frame_cursor(void *ctx, const int tc,
					  struct hdr_cursor *c)
{
	struct __sk_buff *skb = ctx;
	struct xdp_md *xdp = ctx;
	void *start;
	int proto;

	if (tc) {
		start = (void *)(long)skb->data;
		c->end = (void *)(long)skb->data_end;
	} else {
		start = (void *)(long)xdp->data;
		c->end = (void *)(long)xdp->data_end;
		c->ctx = xdp;
	}
	c->pos = start;
	c->off = 0;
	proto = parse_ethhdr(c);
	if (proto != BW_PARSE_BAD)
		parse_vlans(c, proto);
	return start;
}

/*
 * Bytes from the IP header to the end of the whole frame (its fragments
 * too). The IP header's offset is found by parsing the link layer again,
 * counting: counting on the first pass would cost every packet an
 * instruction, and subtracting packet pointers needs CAP_PERFMON. Out of
 * line, as a subprogram: only a frame whose IP length reaches past the
 * linear part calls it, and it is not copied into each family's path.
 */
static __noinline __u32 ip_frame_room(struct xdp_md *ctx)
{
	struct hdr_cursor c = {};
	__u32 len = bpf_xdp_get_buff_len(ctx);

	frame_cursor(ctx, 0, &c);
	return c.off < len ? len - c.off : 0;
}

/*
 * 1 if the IP packet at the cursor, len bytes, is all in the frame. The
 * linear part answers for every frame up to a page; only a longer packet
 * (a jumbo frame's, in fragments) asks for the whole frame.
 */
static __always_inline int ip_fits_frame(const struct hdr_cursor *c, __u32 len)
{
	if (c->pos + len <= c->end)
		return 1;
	if (c->tc)
		return c->off <= c->skb_len && len <= c->skb_len - c->off;
	return len <= ip_frame_room(c->ctx);
}

/*
 * Where the IP header at l3 carries its source (dst 0) or destination
 * address: the bytes the judgment reads (ip_addr_words()).
 */
static __always_inline const void *ip_addr_at(const void *l3, const int v6,
					      const int dst)
{
	if (v6)
		return l3 + (dst ? offsetof(struct ipv6hdr, daddr)
				 : offsetof(struct ipv6hdr, saddr));
	return l3 + (dst ? offsetof(struct iphdr, daddr)
			 : offsetof(struct iphdr, saddr));
}

/*
 * The address at p (ip_addr_at()) as the packet carries it, no byte
 * swapped (struct bw_who_latest's raw): IPv6's 16 bytes as two words,
 * IPv4's 4 as a __u32 in raw[1]. The JITs of x86 and arm64 load a word at
 * any address, and the verifier lets them: two 8-byte loads there (a
 * cast, not a memcpy, which clang would split by the header's 4-byte
 * alignment).
 */
static __always_inline void ip_addr_raw(const void *p, const int v6,
					__u64 raw[2])
{
	if (!v6) {
		raw[0] = 0;
		raw[1] = *(const __u32 *)p;
		return;
	}
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
	raw[0] = *(const __u64 *)p;
	raw[1] = *(const __u64 *)((const __u8 *)p + 8);
#else
	__builtin_memcpy(raw, p, 2 * sizeof(__u64));
#endif
}

/* The address at p as the numbers include/bw_hash.h hashes. */
static __always_inline void ip_addr_words(const void *p, const int v6,
					  __u64 *hi, __u64 *lo)
{
	__u64 raw[2];

	ip_addr_raw(p, v6, raw);
	*hi = v6 ? bpf_be64_to_cpu(raw[0]) : 0;
	*lo = v6 ? bpf_be64_to_cpu(raw[1]) : bpf_ntohl((__u32)raw[1]);
}

/*
 * The source address of the IP header at l3, which its parse has checked
 * (parse_iphdr(), or with v6 parse_ip6hdr()), for the code that keeps it
 * (the drop log, the exact trie's key).
 */
static __always_inline void ip_src(const void *l3, const int v6,
				   struct bw_addr *a)
{
	ip_addr_words(ip_addr_at(l3, v6, 0), v6, &a->hi, &a->lo);
}

/* The source of the IP header at l3 as the packet carries it. */
static __always_inline void ip_src_raw(const void *l3, const int v6,
				       __u64 raw[2])
{
	ip_addr_raw(ip_addr_at(l3, v6, 0), v6, raw);
}

/*
 * IPv4 with any IHL: the options are not read, but they must be in the
 * frame, since a header cut short is not a packet the stack would accept.
 * Fragments carry the source address in every piece, so they parse like
 * any packet.
 */
static __always_inline int parse_iphdr(struct hdr_cursor *c,
				       struct bw_addr *src, struct bw_addr *dst)
{
	struct iphdr *iph = c->pos;
	__u32 hlen, tot_len;

	if ((void *)(iph + 1) > c->end)
		return BW_PARSE_BAD;
	if (iph->version != 4 || iph->ihl < 5)
		return BW_PARSE_BAD;
	hlen = iph->ihl * 4;
	if (c->pos + hlen > c->end)
		return BW_PARSE_BAD;
	/*
	 * A frame shorter than its IP length is a truncated packet that the
	 * stack would drop anyway: pass it, counted, never judge it. A jumbo
	 * frame's IP length reaches into its fragments: whole frame.
	 */
	tot_len = bpf_ntohs(iph->tot_len);
	if (tot_len < hlen || !ip_fits_frame(c, tot_len))
		return BW_PARSE_BAD;
	c->pos += hlen;
	c->off += hlen;
	if (src)
		ip_src(iph, 0, src);
	if (dst)
		ip_addr_words(&iph->daddr, 0, &dst->hi, &dst->lo);
	return 0;
}

/* The fixed header only: extension headers never hide the addresses. */
static __always_inline int
parse_ip6hdr(struct hdr_cursor *c, struct bw_addr *src, struct bw_addr *dst)
{
	struct ipv6hdr *ip6h = c->pos;
	__u32 plen;

	if ((void *)(ip6h + 1) > c->end)
		return BW_PARSE_BAD;
	if (ip6h->version != 6)
		return BW_PARSE_BAD;
	/* Payload length 0 is a jumbogram's: its real length is elsewhere. */
	plen = bpf_ntohs(ip6h->payload_len);
	if (!ip_fits_frame(c, sizeof(*ip6h) + plen))
		return BW_PARSE_BAD;
	c->pos = ip6h + 1;
	c->off += sizeof(*ip6h);
	if (src)
		ip_src(ip6h, 1, src);
	if (dst)
		ip_addr_words(&ip6h->daddr, 1, &dst->hi, &dst->lo);
	return 0;
}

#endif /* __BW_PARSE_H */
