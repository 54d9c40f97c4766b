/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What the DNS datapath tests share: filters with name regions made by
 * hand (the layout of bw_layout.h, bits set with bw_name_* and
 * bw_block_set), DNS query frames, runs that keep the rewritten frame,
 * the DNS counters' deltas, a field-by-field check of an answer, and the
 * answers handed to an independent decoder (dns_check.py, scapy).
 */
#ifndef __BW_DNS_FIXTURE_H
#define __BW_DNS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "datapath.h"

/* Frames up to a jumbo frame's (Ethernet padding after a query). */
#define DNS_PKT_MAX 6144
#define DNS_SEED 0x5eed
#define DNS_REGION_BLOCKS 64

struct dns_filter {
	const char *const *exact;   /* NULL-terminated names, or NULL */
	const char *const *subtree; /* the same, subtree entries */
	const char *block_addr;	    /* an IPv4 address listed too, or NULL */
	__u16 flags;		    /* more header flags: BW_F_MONITOR ... */
	__u8 action;		    /* enum bw_dns_action */
	__u8 dns_flags;		    /* BW_DNS_F_ALLOW */
	__u32 ttl;
	__u32 seed; /* with seed_set; DNS_SEED without */
	bool seed_set;
	bool no_dns; /* the same regions without BW_F_DNS in the header */
	/* Keys set as they are (the pinned vectors), beside the names. */
	const __u64 *exact_keys;
	size_t nexact_keys;
	const __u64 *subtree_keys;
	size_t nsubtree_keys;
};

/*
 * Builds the filter into a new block map and commits it (the program is
 * loaded for it). m stays open; the caller closes it. 0 or -errno.
 */
int dns_commit(struct bw_dp *dp, const struct dns_filter *f,
	       struct bw_filter_map *m);

/* Whether the dotted name is listed in m as the data path must judge it. */
bool dns_listed(const struct bw_filter_map *m, const char *name);

/* Puts a name in the name allowlist (its exact or its subtree key). */
int dns_allow(struct bw_dp *dp, const char *name, bool subtree);

struct dns_q {
	const char *src;  /* client; its family picks IPv4 / IPv6 */
	const char *dst;  /* server; default 192.0.2.53 / 2001:db8::53 */
	__u16 tpid[2];	  /* VLAN TPIDs, outer first */
	const char *name; /* dotted, case kept; "" the root */
	const __u8 *wire; /* or the question name's bytes as they are */
	size_t wire_len;
	__u16 qtype;	/* default A */
	__u16 qclass;	/* default IN */
	__u16 flags;	/* DNS header flags; default RD */
	bool flags_set; /* flags as given, even 0 */
	__u16 qdcount;	/* default 1 */
	bool qdcount_set;
	bool edns;	   /* an OPT record in the additional section */
	bool tcp;	   /* TCP to port 53 instead */
	__u16 dport;	   /* default 53 */
	int cut;	   /* > 0: the DNS message cut to cut - 1 bytes */
	__u16 frag;	   /* IPv4 frag_off, host order */
	bool v6_frag;	   /* IPv6: a Fragment header before UDP */
	__u16 v6_frag_off; /* its offset field: offset << 3 | M */
	int udp_len_delta; /* added to the UDP length field */
	__u16 pad;	   /* bytes of Ethernet padding after the packet */
	/* IPv6 extension headers before UDP (IPPROTO_*), in order. */
	const __u8 *v6_ext;
	size_t nv6_ext;
	__u8 v6_rt_left;     /* a routing header's segments left */
	const __u8 *ip_opts; /* IPv4 options, a multiple of 4 bytes */
	size_t ip_opts_len;  /* at most 40 */
	size_t frag_bytes;   /* > 0: the IP packet holds only these bytes
			       * of its UDP datagram (a first fragment) */
	const __u8 *dst_mac; /* default 02:00:00:00:00:53 */
};

/* Bytes of the IP header and the extension headers or options. */
size_t dns_ip_hlen(const struct dns_q *q);

/* Builds the query frame into buf (DNS_PKT_MAX); returns its length. */
size_t dns_query(const struct dns_q *q, __u8 *buf);

/* Offset of the DNS message in a frame dns_query() built. */
size_t dns_msg_off(const struct dns_q *q);

/* What a run must do: the XDP action and every counter's delta. */
struct dns_want {
	__u32 xdp;		 /* XDP_PASS, XDP_DROP, XDP_TX */
	enum bw_outcome stats;	 /* how stats counts the packet */
	struct bw_dns_stats dns; /* dns_stats deltas */
};

/*
 * Runs the frame once, asserts the action and the deltas of both
 * counter maps; the frame after the run in out (DNS_PKT_MAX), its length
 * in *out_len. A passed or dropped frame must come out unchanged.
 */
bool dns_expect(struct bw_dp *dp, const char *what, const void *pkt, size_t len,
		const struct dns_want *w, __u8 *out, __u32 *out_len);

/* The same with ctx as the run's struct xdp_md (ctx_in). */
struct xdp_md;
bool dns_expect_ctx(struct bw_dp *dp, const char *what, const void *pkt,
		    size_t len, const struct dns_want *w, __u8 *out,
		    __u32 *out_len, const struct xdp_md *ctx);

/* Shorthands for the common outcomes of a query for q's family. */
struct dns_want dns_want_pass(const struct dns_q *q);
struct dns_want dns_want_query(const struct dns_q *q); /* tested, clean */
struct dns_want dns_want_blocked(const struct dns_q *q, __u8 action);
struct dns_want dns_want_malformed(const struct dns_q *q);

/* dns_query() and dns_expect() in one (the frame after the run in out). */
bool dns_expect_q(struct bw_dp *dp, const char *what, const struct dns_q *q,
		  const struct dns_want *w);

/*
 * A query that must be blocked with action: dropped, or answered and the
 * answer checked (dns_check_answer).
 */
bool dns_expect_blocked(struct bw_dp *dp, const char *what,
			const struct dns_q *q, __u8 action, __u32 ttl);

/*
 * Checks an answer field by field against its query (C), and saves it for
 * dns_scapy_check(). rcode and ancount as the action must make them.
 */
bool dns_check_answer(const char *what, const struct dns_q *q,
		      const __u8 *query, size_t qlen, const __u8 *ans,
		      size_t alen, __u8 action, __u32 ttl);

/* The Python with Debian's python3-scapy that the decoders run under. */
#define PYTHON "/usr/bin/python3"

/* Whether PYTHON can import scapy (the independent decoder). */
bool dns_have_scapy(void);

/*
 * Runs tests/datapath/dns_check.py over every answer saved since the last
 * call; a failure there fails the test. Skips (marks the test skipped,
 * returns true) when /usr/bin/python3 has no scapy.
 */
bool dns_scapy_check(void);

#endif /* __BW_DNS_FIXTURE_H */
