// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The ways a query was walked past the name filter or answered wrong:
 * IPv6 extension headers before UDP (hop-by-hop, routing, destination
 * options, an atomic fragment), fragments (a first one with the whole
 * question, one with part of it, later ones), broadcast and multicast
 * destinations and MACs, IPv4 options (a source route) in the answer, and
 * an answer that cannot be built (answer_failed). Every answer is checked
 * field by field and by scapy.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <netinet/in.h>

#include "dns_fixture.h"
#include "test_helpers.h"

#define V4 "198.51.100.7"
#define V6 "2001:db8::7"
#define BLOCKED "ads.blocked.example"
#define CLEAN "www.example.org"

static const char *const subtree[] = { "blocked.example", NULL };

static bool open_action(struct bw_dp *dp, struct bw_filter_map *m, __u8 action)
{
	struct dns_filter f = { .subtree = subtree, .action = action };

	bw_filter_close(m);
	return ASSERT_OK(dns_commit(dp, &f, m), "commit") &&
	       ASSERT_FALSE(dns_listed(m, CLEAN),
			    "precondition: " CLEAN " is no false positive");
}

static struct dns_want want_with(const struct dns_q *q, __u32 xdp,
				 size_t field_off)
{
	struct dns_want w = dns_want_query(q);

	if (xdp == XDP_DROP)
		w.stats = strchr(q->src, ':') ? BW_OUT_DROP_V6 : BW_OUT_DROP_V4;
	w.xdp = xdp;
	*(__u64 *)((char *)&w.dns + field_off) += 1;
	return w;
}

#define WANT(q, xdp, field) \
	want_with(q, xdp, offsetof(struct bw_dns_stats, field))

/* Chains of extension headers a stack delivers, the last the deepest. */
static const __u8 hbh[] = { IPPROTO_HOPOPTS };
static const __u8 dst[] = { IPPROTO_DSTOPTS };
static const __u8 rt[] = { IPPROTO_ROUTING };
static const __u8 hbh_dst[] = { IPPROTO_HOPOPTS, IPPROTO_DSTOPTS };
static const __u8 hbh_rt_dst[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING,
				   IPPROTO_DSTOPTS };
static const __u8 six[] = { IPPROTO_HOPOPTS, IPPROTO_DSTOPTS, IPPROTO_ROUTING,
			    IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS };
static const __u8 seven[] = { IPPROTO_HOPOPTS, IPPROTO_DSTOPTS, IPPROTO_ROUTING,
			      IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
			      IPPROTO_DSTOPTS };

static const struct {
	const char *name;
	const __u8 *ext;
	size_t n;
	bool atomic_frag; /* a Fragment header, offset 0, M 0, last */
} chains[] = {
	{ "hop-by-hop", hbh, 1, false },
	{ "destination options", dst, 1, false },
	{ "routing, 0 segments left", rt, 1, false },
	{ "atomic fragment", NULL, 0, true },
	{ "hop-by-hop, destination options", hbh_dst, 2, false },
	{ "hop-by-hop, routing, destination options", hbh_rt_dst, 3, false },
	{ "hop-by-hop, destination options, atomic fragment", hbh_dst, 2,
	  true },
	{ "six extension headers", six, 6, false },
};

static struct dns_q chain_q(size_t i, const char *name)
{
	return (struct dns_q){ .src = V6,
			       .name = name,
			       .v6_ext = chains[i].ext,
			       .nv6_ext = chains[i].n,
			       .v6_frag = chains[i].atomic_frag };
}

/* Item: an extension header before UDP got the resolver's answer. */
BW_TEST(test_dns_ipv6_ext_headers)
{
	static const __u8 actions[] = { BW_DNS_NXDOMAIN, BW_DNS_NULL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q;
	struct dns_want w;
	char what[160];
	size_t a, i;

	if (!bw_dp_open(&dp))
		goto out;
	for (a = 0; a < sizeof(actions); a++) {
		if (!open_action(&dp, &m, actions[a]))
			goto out;
		for (i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
			q = chain_q(i, BLOCKED);
			q.qtype = a ? 28 : 1;
			snprintf(what, sizeof(what), "%s: blocked, answered",
				 chains[i].name);
			dns_expect_blocked(&dp, what, &q, actions[a], 0);
			q.tpid[0] = 0x8100;
			snprintf(what, sizeof(what), "vlan, %s: answered",
				 chains[i].name);
			dns_expect_blocked(&dp, what, &q, actions[a], 0);
			q = chain_q(i, CLEAN);
			w = dns_want_query(&q);
			snprintf(what, sizeof(what), "%s: clean name passed",
				 chains[i].name);
			dns_expect_q(&dp, what, &q, &w);
		}
	}
	/* Past the walk's bound: passed, counted, never judged. */
	q = (struct dns_q){
		.src = V6, .name = BLOCKED, .v6_ext = seven, .nv6_ext = 7
	};
	w = dns_want_malformed(&q);
	dns_expect_q(&dp, "seven extension headers: passed as malformed", &q,
		     &w);
	/* A routing header with segments left: the destination is a hop. */
	q = (struct dns_q){ .src = V6,
			    .name = BLOCKED,
			    .v6_ext = hbh_rt_dst,
			    .nv6_ext = 3,
			    .v6_rt_left = 1 };
	w = WANT(&q, XDP_DROP, not_answered);
	dns_expect_q(&dp, "segments left: dropped, not answered", &q, &w);
	q.tcp = true;
	w = dns_want_pass(&q);
	dns_expect_q(&dp, "TCP behind extension headers: passed", &q, &w);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Bytes of q's datagram up to the question's end, rounded up to 8. */
static size_t question_bytes(const struct dns_q *q)
{
	return (8 + 12 + strlen(q->name) + 2 + 4 + 7) / 8 * 8;
}

static void first_fragments(struct bw_dp *dp, bool v6)
{
	struct dns_q q = { .src = v6 ? V6 : V4, .name = BLOCKED, .edns = true };
	struct dns_want w;

	if (v6) {
		q.v6_frag = true;
		q.v6_frag_off = 1; /* offset 0, M */
	} else {
		q.frag = 0x2000; /* MF */
	}
	/* EDNS OPT after the question: the datagram goes on past it. */
	q.frag_bytes = question_bytes(&q);
	w = WANT(&q, XDP_DROP, not_answered);
	dns_expect_q(dp, "first fragment, whole question: dropped", &q, &w);
	q.name = CLEAN;
	q.frag_bytes = question_bytes(&q);
	w = dns_want_query(&q);
	dns_expect_q(dp, "first fragment, clean name: passed", &q, &w);
	q.name = BLOCKED;
	q.frag_bytes = 16; /* UDP header, 8 bytes of DNS header */
	w = dns_want_pass(&q);
	w.xdp = XDP_DROP;
	w.stats = v6 ? BW_OUT_DROP_V6 : BW_OUT_DROP_V4;
	w.dns.frag_dropped = 1;
	dns_expect_q(dp, "first fragment, DNS header cut: dropped", &q, &w);
	q.frag_bytes = 24; /* the question's first bytes */
	dns_expect_q(dp, "first fragment, question cut: dropped", &q, &w);
	q.name = CLEAN;
	dns_expect_q(dp, "first fragment, clean name cut: dropped", &q, &w);
	/* A fragmented response to port 53 is no query: passed. */
	q.flags_set = true;
	q.flags = 0x8180;
	w = dns_want_pass(&q);
	w.dns.not_query = 1;
	dns_expect_q(dp, "first fragment of a response: passed", &q, &w);
}

static void later_fragments(struct bw_dp *dp, bool v6)
{
	struct dns_q q = { .src = v6 ? V6 : V4, .name = BLOCKED };
	struct dns_want w = dns_want_pass(&q);

	w.dns.fragments = 1;
	if (v6) {
		q.v6_frag = true;
		q.v6_frag_off = 185 << 3 | 1;
		dns_expect_q(dp, "later fragment: counted, passed", &q, &w);
		q.v6_frag_off = 185 << 3;
		dns_expect_q(dp, "last fragment: counted, passed", &q, &w);
		q.v6_ext = hbh;
		q.nv6_ext = 1;
		dns_expect_q(dp, "hop-by-hop, later fragment", &q, &w);
		return;
	}
	q.frag = 0x2000 | 185;
	dns_expect_q(dp, "later fragment: counted, passed", &q, &w);
	q.frag = 3;
	dns_expect_q(dp, "last fragment: counted, passed", &q, &w);
	/* Any UDP port: a later fragment has none to read. */
	q.dport = 5353;
	dns_expect_q(dp, "later fragment of port 5353", &q, &w);
}

/* Item: an IPv4 query in two fragments got the resolver's answer. */
BW_TEST(test_dns_fragments)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = V4, .name = BLOCKED, .edns = true };
	struct dns_want w;
	int v6;

	if (!bw_dp_open(&dp) || !open_action(&dp, &m, BW_DNS_NXDOMAIN))
		goto out;
	for (v6 = 0; v6 < 2; v6++) {
		first_fragments(&dp, v6);
		later_fragments(&dp, v6);
	}
	q.frag = 0x4000; /* DF: not a fragment */
	dns_expect_blocked(&dp, "DF set: answered", &q, BW_DNS_NXDOMAIN, 0);
	if (!open_action(&dp, &m, BW_DNS_DROP))
		goto out;
	q.frag = 0x2000;
	q.frag_bytes = question_bytes(&q);
	w = dns_want_blocked(&q, BW_DNS_DROP);
	dns_expect_q(&dp, "action drop, first fragment: blocked_drop", &q, &w);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

static const __u8 mac_bcast[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const __u8 mac_mdns4[] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
static const __u8 mac_mdns6[] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0xfb };

static const struct {
	const char *name;
	const char *src, *dst;
	const __u8 *mac;
} groups[] = {
	{ "to 255.255.255.255", V4, "255.255.255.255", mac_bcast },
	{ "to 224.0.0.251", V4, "224.0.0.251", mac_mdns4 },
	{ "to 239.1.2.3, unicast MAC", V4, "239.1.2.3", NULL },
	{ "to a unicast address, broadcast MAC", V4, NULL, mac_bcast },
	{ "to a unicast address, multicast MAC", V4, NULL, mac_mdns4 },
	{ "from 0.0.0.0", "0.0.0.0", NULL, NULL },
	{ "to ff02::fb", V6, "ff02::fb", mac_mdns6 },
	{ "to ff05::1:3, unicast MAC", V6, "ff05::1:3", NULL },
	{ "ipv6 to a unicast address, multicast MAC", V6, NULL, mac_mdns6 },
	{ "from ::", "::", NULL, NULL },
};

/* Item: a query to a broadcast or multicast address got an answer from it. */
BW_TEST(test_dns_not_unicast)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q;
	struct dns_want w;
	char what[160];
	size_t i;

	if (!bw_dp_open(&dp) || !open_action(&dp, &m, BW_DNS_NULL))
		goto out;
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		q = (struct dns_q){ .src = groups[i].src,
				    .dst = groups[i].dst,
				    .dst_mac = groups[i].mac,
				    .name = BLOCKED };
		w = WANT(&q, XDP_DROP, not_answered);
		snprintf(what, sizeof(what), "%s: dropped, not answered",
			 groups[i].name);
		dns_expect_q(&dp, what, &q, &w);
		q.name = CLEAN;
		w = dns_want_query(&q);
		snprintf(what, sizeof(what), "%s: clean name passed",
			 groups[i].name);
		dns_expect_q(&dp, what, &q, &w);
	}
	q = (struct dns_q){ .src = V4, .name = BLOCKED };
	dns_expect_blocked(&dp, "unicast: answered", &q, BW_DNS_NULL, 0);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* LSRR and SSRR through two hops, a NOP to end on a 4-byte boundary. */
static const __u8 lsrr[] = { 0x83, 11, 4, 192, 0, 2, 1, 192, 0, 2, 2, 1 };
static const __u8 ssrr[] = { 0x89, 11, 4, 192, 0, 2, 1, 192, 0, 2, 2, 1 };
/* 40 bytes: record route, nine slots, and a NOP. */
static const __u8 rr40[40] = { 7, 39, 4 };

/* Item: a source route option was echoed unreversed in the answer. */
BW_TEST(test_dns_ip_options)
{
	static const __u8 actions[] = { BW_DNS_NULL, BW_DNS_REFUSED };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct dns_q q = { .src = V4, .name = BLOCKED };
	struct bw_dp dp = {};
	char what[120];
	size_t a;

	if (!bw_dp_open(&dp))
		goto out;
	for (a = 0; a < sizeof(actions); a++) {
		if (!open_action(&dp, &m, actions[a]))
			goto out;
		q.ip_opts = lsrr;
		q.ip_opts_len = sizeof(lsrr);
		snprintf(what, sizeof(what), "LSRR, action %u", actions[a]);
		dns_expect_blocked(&dp, what, &q, actions[a], 0);
		q.ip_opts = ssrr;
		q.edns = true;
		snprintf(what, sizeof(what), "SSRR, EDNS, action %u",
			 actions[a]);
		dns_expect_blocked(&dp, what, &q, actions[a], 0);
		q.ip_opts = rr40;
		q.ip_opts_len = sizeof(rr40);
		q.tpid[0] = 0x88a8;
		q.tpid[1] = 0x8100;
		snprintf(what, sizeof(what), "IHL 15, QinQ, action %u",
			 actions[a]);
		dns_expect_blocked(&dp, what, &q, actions[a], 0);
		q = (struct dns_q){ .src = V4, .name = BLOCKED };
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * Runs the frame as received on a queue of a veth, made in a
 * private network namespace by a child process: a queue with no fragment
 * size, as most drivers register theirs, on which a frame in several
 * buffers cannot grow (the loopback queue BPF_PROG_TEST_RUN uses by
 * default can). The child's assertions decide its exit status.
 */
static bool expect_on_veth(struct bw_dp *dp, const char *what, const __u8 *pkt,
			   size_t len, const struct dns_want *w, __u32 linear)
{
	static __u8 out[DNS_PKT_MAX];
	struct xdp_md ctx = { .data_end = linear };
	__u32 olen = 0;
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) ||
		    system("ip link add bwdp0 type veth peer name bwdp1") != 0)
			_exit(2);
		ctx.ingress_ifindex = if_nametoindex("bwdp0");
		if (!ctx.ingress_ifindex)
			_exit(2);
		_exit(dns_expect_ctx(dp, what, pkt, len, w, out, &olen, &ctx)
			      ? 0
			      : 1);
	}
	if (!ASSERT_GE(pid, 0, "fork"))
		return false;
	waitpid(pid, &status, 0);
	return ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, what);
}

/*
 * The answer grows the frame (an A or AAAA record appended): a frame in
 * two buffers on a queue that cannot grow them cannot hold it. Dropped,
 * answer_failed. The same frame split on a queue that can, and whole,
 * is answered.
 */
BW_TEST(test_dns_answer_failed)
{
	static __u8 pkt[DNS_PKT_MAX], out[DNS_PKT_MAX];
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct dns_q q = { .src = V4, .name = BLOCKED };
	struct xdp_md split = {};
	struct bw_dp dp = {};
	struct dns_want w;
	__u32 olen;
	size_t len;
	int v6;

	if (!bw_dp_open(&dp) || !open_action(&dp, &m, BW_DNS_NULL))
		goto out;
	for (v6 = 0; v6 < 2; v6++) {
		q.src = v6 ? V6 : V4;
		q.qtype = v6 ? 28 : 1;
		/* Linear: the headers and 8 bytes of the DNS message. */
		split.data_end = v6 ? 70 : 50;
		len = dns_query(&q, pkt);
		w = WANT(&q, XDP_DROP, answer_failed);
		expect_on_veth(&dp, "answer cannot grow the frame: dropped",
			       pkt, len, &w, split.data_end);
		w = dns_want_blocked(&q, BW_DNS_NULL);
		dns_expect_ctx(&dp, "two buffers that can grow: answered", pkt,
			       len, &w, out, &olen, &split);
		dns_expect_blocked(&dp, "one buffer: answered", &q, BW_DNS_NULL,
				   0);
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
