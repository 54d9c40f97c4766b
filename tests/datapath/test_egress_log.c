// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The TC egress program's copies beyond the plain one, through
 * BPF_PROG_TEST_RUN: with logging, a drop is logged as egress with the
 * local source and the listed destination and the socket of the run's
 * skb (its cookie, its owner's uid); with names, a leaving query for a listed name is shot
 * and counted in egress_dns, an unlisted one and UDP to port 53 that is
 * no query pass. And who tried on ingress: the XDP program with --match
 * dst counts the sources of the packets it stops for their destination.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bloomwall.h"
#include "datapath.h"
#include "dns_fixture.h"
#include "kernel/egress.h"
#include "kernel/stats.h"
#include "out/droplog.h"
#include "test_helpers.h"

#define A4 "203.0.113.10" /* listed */
#define A6 "2001:db8:a::10"
#define L4 "192.0.2.7" /* a local source, never listed */
#define L6 "2001:db8:1::7"
#define C4 "198.51.100.30" /* never listed */
#define CLIENT_PORT 40000  /* dns_fixture.c's source port */
#define MAX_EVENTS 8

static const char *const list_a[] = { A4, A6, NULL };

struct events {
	struct bw_log_event ev[MAX_EVENTS];
	int n;
};

static int collect(void *ctx, void *data, size_t size)
{
	struct events *e = ctx;

	if (e->n < MAX_EVENTS)
		bw_log_event_read(data, size, &e->ev[e->n++]);
	return 0;
}

/* The egress fixture with logging at rate (0: off): its ring into e. */
static bool open_tc(struct bw_dp *dp, long rate, struct events *e,
		    struct ring_buffer **rb)
{
	memset(e, 0, sizeof(*e));
	*rb = NULL;
	if (!bw_dp_open_egress(dp))
		return false;
	dp->maps.log_rate = rate;
	*rb = ring_buffer__new(dp->maps.log_ring, collect, e, NULL);
	return ASSERT_OK_PTR(*rb, "ring_buffer__new");
}

static __u32 run_q(struct bw_dp *dp, const struct dns_q *q)
{
	static __u8 buf[DNS_PKT_MAX];
	__u32 ret = ~0U;

	if (!ASSERT_OK(bw_dp_run(dp, buf, dns_query(q, buf), &ret), "run"))
		return ~0U;
	return ret;
}

static void expect_addr(const struct bw_log_event *ev, bool dst,
			const char *want, const char *what)
{
	char got[64];

	bw_log_addr(ev, dst, got, sizeof(got));
	ASSERT_STREQ(got, want, what);
}

/* e holds one egress event from src to dst of this reason and action. */
static void expect_event(struct ring_buffer *rb, struct events *e,
			 const char *what, const char *src, const char *dst,
			 __u8 reason, __u8 action)
{
	const struct bw_log_event *ev = &e->ev[0];

	e->n = 0;
	ring_buffer__consume(rb);
	if (!ASSERT_EQ(e->n, 1, what))
		return;
	ASSERT_EQ(ev->direction, BW_LOG_EGRESS, what);
	ASSERT_STREQ(bw_log_direction(ev->direction), "egress", what);
	expect_addr(ev, false, src, what);
	expect_addr(ev, true, dst, what);
	ASSERT_EQ(ev->proto, IPPROTO_UDP, what);
	ASSERT_EQ(ev->sport, CLIENT_PORT, what);
	ASSERT_EQ(ev->reason, reason, what);
	ASSERT_EQ(ev->action, action, what);
	ASSERT_NEQ(ev->ifindex, 0, what);
	/*
	 * A test run's skb comes from a socket the kernel makes for the
	 * run, owned by the caller: its cookie, and our uid.
	 */
	ASSERT_NEQ(ev->cookie, 0, what);
	ASSERT_EQ(ev->uid, geteuid(), what);
}

static void expect_egress(struct ring_buffer *rb, struct events *e,
			  const char *what, const char *src, const char *dst,
			  __u8 reason)
{
	expect_event(rb, e, what, src, dst, reason, BW_LOG_DROP);
}

BW_TEST(test_egress_log)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = {
		.name = "x.example", .src = L4, .dst = A4, .dport = 4000
	};

	if (!open_tc(&dp, 1000, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a, 0, &m), "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q), XDP_DROP, "v4 to a listed place: shot");
	expect_egress(rb, &e, "v4 event", L4, A4, BW_LOG_ADDRESS);
	ASSERT_EQ(e.ev[0].dport, 4000, "v4 event: dport");
	q = (struct dns_q){
		.name = "x.example", .src = L6, .dst = A6, .dport = 4000
	};
	ASSERT_EQ(run_q(&dp, &q), XDP_DROP, "v6 to a listed place: shot");
	expect_egress(rb, &e, "v6 event", L6, A6, BW_LOG_ADDRESS);
	q = (struct dns_q){
		.name = "x.example", .src = L4, .dst = C4, .dport = 4000
	};
	ASSERT_EQ(run_q(&dp, &q), XDP_PASS, "unlisted: passed");
	e.n = 0;
	ring_buffer__consume(rb);
	ASSERT_EQ(e.n, 0, "no event for an unlisted packet");
	/* Monitor mode: passed, logged as such. */
	bw_filter_close(&m);
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a, BW_F_MONITOR, &m),
		       "commit monitor"))
		goto out;
	q = (struct dns_q){
		.name = "x.example", .src = L4, .dst = A4, .dport = 4000
	};
	ASSERT_EQ(run_q(&dp, &q), XDP_PASS, "monitor: passed");
	expect_event(rb, &e, "monitor event", L4, A4, BW_LOG_ADDRESS,
		     BW_LOG_MONITOR);
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* --log-rate 0: the drop, and no event. */
BW_TEST(test_egress_log_off)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = L4, .dst = A4 };

	if (!open_tc(&dp, 0, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a, 0, &m), "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q), XDP_DROP, "shot");
	ring_buffer__consume(rb);
	ASSERT_EQ(e.n, 0, "no event with logging off");
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

static bool read_dns(int fd, struct bw_dns_stats *s, const char *what)
{
	return ASSERT_OK(bw_dns_stats_read(fd, s), what);
}

/*
 * Runs q through the egress program: its action, egress_stats by want,
 * egress_dns's queries and blocked_drop by the deltas given, and the
 * ingress dns_stats unmoved.
 */
static void expect_dns_out(struct bw_dp *dp, const char *what,
			   const struct dns_q *q, enum bw_outcome want,
			   __u64 queries, __u64 blocked)
{
	static __u8 buf[DNS_PKT_MAX];
	struct bw_dns_stats eb, ea, ib, ia;
	char desc[128];

	if (!read_dns(dp->egress.dns, &eb, what) ||
	    !read_dns(dp->maps.dns_stats, &ib, what))
		return;
	bw_dp_expect(dp, what, buf, dns_query(q, buf), want);
	if (!read_dns(dp->egress.dns, &ea, what) ||
	    !read_dns(dp->maps.dns_stats, &ia, what))
		return;
	snprintf(desc, sizeof(desc), "%s: egress_dns queries", what);
	ASSERT_EQ_U64(ea.queries - eb.queries, queries, desc);
	snprintf(desc, sizeof(desc), "%s: egress_dns blocked_drop", what);
	ASSERT_EQ_U64(ea.blocked[BW_DNS_DROP] - eb.blocked[BW_DNS_DROP],
		      blocked, desc);
	snprintf(desc, sizeof(desc), "%s: ingress dns_stats unmoved", what);
	ASSERT_TRUE(!memcmp(&ia, &ib, sizeof(ia)), desc);
}

/*
 * Names on the way out: whatever the action (NULL here, an answer on
 * ingress), a leaving query for a listed name is shot.
 */
BW_TEST(test_egress_dns)
{
	static const char *const names[] = { "bad.example", NULL };
	static const char *const subtree[] = { "ads.example", NULL };
	struct dns_filter f = { .exact = names,
				.subtree = subtree,
				.action = BW_DNS_NULL,
				.ttl = 60 };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct bw_who_row rows[4];
	struct bw_dns_stats s;
	struct events e;
	struct bw_dp dp;
	struct dns_q q;
	int n;

	if (!open_tc(&dp, 1000, &e, &rb))
		goto out;
	if (!ASSERT_OK(dns_commit(&dp, &f, &m), "commit names"))
		goto out;
	q = (struct dns_q){ .name = "bad.example", .src = L4 };
	expect_dns_out(&dp, "listed name v4", &q, BW_OUT_DROP_V4, 1, 1);
	expect_egress(rb, &e, "dns event", L4, "192.0.2.53", BW_LOG_DNS);
	ASSERT_EQ(e.ev[0].name_len, 13, "the name, in wire format");
	q = (struct dns_q){ .name = "x.Ads.example", .src = L6 };
	expect_dns_out(&dp, "listed subtree v6", &q, BW_OUT_DROP_V6, 1, 1);
	q = (struct dns_q){ .name = "good.example", .src = L4 };
	expect_dns_out(&dp, "unlisted name", &q, BW_OUT_PASS, 1, 0);
	q = (struct dns_q){ .name = "bad.example", .src = L4, .dport = 4000 };
	expect_dns_out(&dp, "not to port 53", &q, BW_OUT_PASS, 0, 0);
	q = (struct dns_q){ .name = "bad.example", .src = L4, .tcp = true };
	expect_dns_out(&dp, "TCP to 53", &q, BW_OUT_PASS, 0, 0);
	/* A response (QR) to port 53 is no query: passed, counted so. */
	q = (struct dns_q){ .name = "bad.example",
			    .src = L4,
			    .flags = 0x8180,
			    .flags_set = true };
	expect_dns_out(&dp, "a response to 53", &q, BW_OUT_PASS, 0, 0);
	/* Not DNS at all: a few bytes of UDP to port 53. */
	q = (struct dns_q){ .name = "bad.example", .src = L4, .cut = 5 };
	expect_dns_out(&dp, "garbage to 53", &q, BW_OUT_PASS, 0, 0);
	if (read_dns(dp.egress.dns, &s, "egress_dns")) {
		ASSERT_EQ_U64(s.not_query, 1, "the response: not_query");
		ASSERT_EQ_U64(s.malformed, 1, "the garbage: malformed");
	}
	e.n = 0;
	ring_buffer__consume(rb);
	ASSERT_EQ(e.n, 1, "one more event: the v6 query only");
	/* Who tried: the senders of the two blocked queries, none other. */
	n = bw_who_top(dp.egress.who, dp.egress.stats, rows, 4);
	if (ASSERT_EQ(n, 2, "who tried: two senders")) {
		ASSERT_EQ(rows[0].packets + rows[1].packets, 2, "a query each");
		ASSERT_TRUE((rows[0].key.family == BW_V4 &&
			     rows[0].key.addr[1] == bw_addr(L4).lo) ||
				    (rows[1].key.family == BW_V4 &&
				     rows[1].key.addr[1] == bw_addr(L4).lo),
			    "the IPv4 sender");
	}
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Monitor mode: the query leaves, counted monitored. */
BW_TEST(test_egress_dns_monitor)
{
	static const char *const names[] = { "bad.example", NULL };
	struct dns_filter f = { .exact = names, .flags = BW_F_MONITOR };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dns_stats s;
	struct bw_dp dp;
	struct dns_q q = { .name = "bad.example", .src = L4 };

	if (!bw_dp_open_egress(&dp))
		goto out;
	if (!ASSERT_OK(dns_commit(&dp, &f, &m), "commit names"))
		goto out;
	expect_dns_out(&dp, "monitored", &q, BW_OUT_PASS, 1, 0);
	if (read_dns(dp.egress.dns, &s, "egress_dns"))
		ASSERT_EQ_U64(s.monitored, 1, "monitored");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

static int who_rows(struct bw_dp *dp, struct bw_who_row *rows, int max)
{
	return bw_who_top(dp->maps.who, -1, rows, max);
}

/*
 * Who tried on ingress: with --match dst the XDP program counts the
 * sources of packets it stops for their destination (monitored hits
 * too); a source match counts nothing there.
 */
BW_TEST(test_who_ingress_dst)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_who_row rows[4];
	struct bw_dp dp = {};
	struct bw_pkt_spec s;
	__u8 buf[BW_PKT_MAX];
	int i, n;

	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a, BW_F_MATCH_SRC, &m),
		       "commit src"))
		goto out;
	s = (struct bw_pkt_spec){ .src = A4, .dst = C4, .payload = 16 };
	bw_dp_expect(&dp, "source listed", buf, bw_pkt_build(&s, buf),
		     BW_OUT_DROP_V4);
	ASSERT_EQ(who_rows(&dp, rows, 4), 0, "--match src: nobody tried");
	bw_filter_close(&m);
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a,
					  BW_F_MATCH_SRC | BW_F_MATCH_DST, &m),
		       "commit both"))
		goto out;
	bw_dp_expect(&dp, "both: source listed", buf, bw_pkt_build(&s, buf),
		     BW_OUT_DROP_V4);
	ASSERT_EQ(who_rows(&dp, rows, 4), 0, "a listed source is no who");
	for (i = 0; i < 2; i++) {
		s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .payload = 16 };
		bw_dp_expect(&dp, "both: destination listed", buf,
			     bw_pkt_build(&s, buf), BW_OUT_DROP_V4);
	}
	s = (struct bw_pkt_spec){ .src = L6, .dst = A6, .payload = 16 };
	bw_dp_expect(&dp, "both: v6 destination listed", buf,
		     bw_pkt_build(&s, buf), BW_OUT_DROP_V6);
	s = (struct bw_pkt_spec){ .src = L4, .dst = C4, .payload = 16 };
	bw_dp_expect(&dp, "unlisted", buf, bw_pkt_build(&s, buf), BW_OUT_PASS);
	n = who_rows(&dp, rows, 4);
	if (ASSERT_EQ(n, 2, "two sources")) {
		ASSERT_EQ(rows[0].key.family, BW_V4, "the IPv4 source first");
		ASSERT_EQ_U64(rows[0].key.addr[1], bw_addr(L4).lo,
			      "its address");
		ASSERT_EQ_U64(rows[0].packets, 2, "its 2 packets");
		ASSERT_EQ(rows[1].key.family, BW_V6, "then the IPv6 one");
		ASSERT_EQ_U64(rows[1].packets, 1, "its packet");
	}
	bw_filter_close(&m);
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_a,
					  BW_F_MATCH_DST | BW_F_MONITOR, &m),
		       "commit dst monitor"))
		goto out;
	s = (struct bw_pkt_spec){ .src = L4, .dst = A4, .payload = 16 };
	bw_dp_expect(&dp, "monitored", buf, bw_pkt_build(&s, buf),
		     BW_OUT_MONITOR);
	n = who_rows(&dp, rows, 4);
	if (ASSERT_EQ(n, 2, "the same two sources, kept over the reload"))
		ASSERT_EQ_U64(rows[0].packets, 3, "one more: monitored");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
