// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The drop log (bpf/droplog.h): the events a program with logging writes
 * to its ring (addresses, family, protocol and ports, reason, action,
 * generation, a DNS query's name), the token bucket's exact allowance in
 * a burst and the drops past it counted, and with --log-rate 0 no event
 * and no instruction that touches the log's maps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "datapath.h"
#include "dns_fixture.h"
#include "out/droplog.h"
#include "kernel/prog.h"
#include "kernel/prog_spec.h"
#include "kernel/stats.h"
#include "test_helpers.h"

#define A4 "203.0.113.10" /* listed */
#define A6 "2001:db8:a::10"
#define C4 "203.0.113.30" /* never listed */
#define CLIENT_PORT 40000 /* dns_fixture.c's source port */
#define MAX_EVENTS 64

static const char *const listed[] = { A4, A6, NULL };

struct events {
	struct bw_log_event ev[MAX_EVENTS];
	int n;
};

static int collect(void *ctx, void *data, size_t size)
{
	struct events *e = ctx;

	if (size >= sizeof(e->ev[0]) && e->n < MAX_EVENTS)
		memcpy(&e->ev[e->n++], data, sizeof(e->ev[0]));
	return 0;
}

/* The fixture with logging at rate: its ring, read into e. */
static bool open_logged(struct bw_dp *dp, long rate, struct events *e,
			struct ring_buffer **rb)
{
	memset(e, 0, sizeof(*e));
	*rb = NULL;
	if (!bw_dp_open(dp))
		return false;
	dp->maps.log_rate = rate;
	*rb = ring_buffer__new(dp->maps.log_ring, collect, e, NULL);
	return ASSERT_OK_PTR(*rb, "ring_buffer__new");
}

static void drain(struct ring_buffer *rb, struct events *e)
{
	e->n = 0;
	ring_buffer__consume(rb);
}

static bool log_stats(struct bw_dp *dp, struct bw_log_stats *s)
{
	return ASSERT_OK(bw_log_stats_read(dp->maps.log_stats, s),
			 "bw_log_stats_read");
}

/* Runs a frame repeat times in one BPF_PROG_TEST_RUN (one CPU). */
static __u32 run(struct bw_dp *dp, const __u8 *pkt, size_t len, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len,
		    .repeat = repeat);

	if (!ASSERT_OK(bpf_prog_test_run_opts(dp->prog_fd, &o), "test_run"))
		return ~0U;
	return o.retval;
}

static __u32 run_q(struct bw_dp *dp, const struct dns_q *q, int repeat)
{
	static __u8 buf[DNS_PKT_MAX];

	return run(dp, buf, dns_query(q, buf), repeat);
}

static __u64 generation(const struct bw_filter_map *m)
{
	const struct bw_info *info =
		(const void *)((const char *)m->mem + BW_BLOCK_BYTES);

	return info->generation;
}

static void expect_addr(const struct bw_log_event *ev, bool dst,
			const char *want, const char *what)
{
	char got[64], desc[96];

	bw_log_addr(ev, dst, got, sizeof(got));
	snprintf(desc, sizeof(desc), "%s: %s", what, dst ? "dst" : "src");
	ASSERT_STREQ(got, want, desc);
}

/* One event with these fields (ports 0: none). */
static void expect_event(const struct events *e, const char *what,
			 const char *src, const char *dst, __u8 proto,
			 __u16 sport, __u16 dport, __u8 reason, __u8 action,
			 __u64 gen)
{
	const struct bw_log_event *ev = &e->ev[0];

	if (!ASSERT_EQ(e->n, 1, what))
		return;
	ASSERT_EQ(ev->family, strchr(src, ':') ? BW_V6 : BW_V4, what);
	expect_addr(ev, false, src, what);
	expect_addr(ev, true, dst, what);
	ASSERT_EQ(ev->proto, proto, what);
	ASSERT_EQ(ev->sport, sport, what);
	ASSERT_EQ(ev->dport, dport, what);
	ASSERT_EQ(ev->reason, reason, what);
	ASSERT_EQ(ev->action, action, what);
	ASSERT_EQ_U64(ev->generation, gen, what);
	ASSERT_NEQ(ev->time_ns, 0, what);
	if (reason != BW_LOG_DNS) {
		static const __u8 zero[BW_LOG_NAME_MAX];

		ASSERT_EQ(ev->name_len, 0, what);
		ASSERT_TRUE(!memcmp(ev->name, zero, sizeof(zero)), what);
	}
}

BW_TEST(test_droplog_events)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct bw_log_stats ls;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = A4 };
	__u64 gen;

	if (!open_logged(&dp, 1000, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, 0, &m), "commit"))
		goto out;
	gen = generation(&m);
	q.tcp = true;
	q.dport = 80;
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_DROP, "v4 tcp dropped");
	drain(rb, &e);
	expect_event(&e, "v4 tcp", A4, "192.0.2.53", IPPROTO_TCP, CLIENT_PORT,
		     80, BW_LOG_ADDRESS, BW_LOG_DROP, gen);
	q = (struct dns_q){ .name = "x.example", .src = A6, .dport = 4000 };
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_DROP, "v6 udp dropped");
	drain(rb, &e);
	expect_event(&e, "v6 udp", A6, "2001:db8::53", IPPROTO_UDP, CLIENT_PORT,
		     4000, BW_LOG_ADDRESS, BW_LOG_DROP, gen);
	/* A non-first fragment: the protocol, no ports to read. */
	q = (struct dns_q){ .name = "x.example", .src = A4, .frag = 8 };
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_DROP, "v4 fragment dropped");
	drain(rb, &e);
	expect_event(&e, "v4 fragment", A4, "192.0.2.53", IPPROTO_UDP, 0, 0,
		     BW_LOG_ADDRESS, BW_LOG_DROP, gen);
	/* Unlisted: passed, no event. */
	q = (struct dns_q){ .name = "x.example", .src = C4, .dport = 4000 };
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_PASS, "unlisted passed");
	drain(rb, &e);
	ASSERT_EQ(e.n, 0, "no event for an unlisted packet");
	if (log_stats(&dp, &ls)) {
		ASSERT_EQ_U64(ls.logged, 3, "logged");
		ASSERT_EQ_U64(ls.lost_rate, 0, "lost_rate");
		ASSERT_EQ_U64(ls.lost_ring, 0, "lost_ring");
	}
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Monitor mode: the hit passes, and is logged as such. */
BW_TEST(test_droplog_monitor)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = A4, .dport = 4000 };

	if (!open_logged(&dp, 1000, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed,
					  BW_F_MATCH_SRC | BW_F_MONITOR, &m),
		       "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_PASS, "monitored passed");
	drain(rb, &e);
	expect_event(&e, "monitored", A4, "192.0.2.53", IPPROTO_UDP,
		     CLIENT_PORT, 4000, BW_LOG_ADDRESS, BW_LOG_MONITOR,
		     generation(&m));
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * The bucket starts full with burst = rate tokens and refills at rate a
 * second: a burst of 200 drops in one test run (well under a second at
 * rates 1 and 2) logs exactly rate events, and counts the rest lost.
 * After a second and a bit (the tick count's worth of one: HZ right) it
 * is full again, and the next burst logs rate more.
 */
static void burst_at(long rate)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct bw_log_stats ls;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = A4, .dport = 4000 };
	char what[64];

	snprintf(what, sizeof(what), "rate %ld", rate);
	if (!open_logged(&dp, rate, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, 0, &m), "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q, 200), XDP_DROP, what);
	drain(rb, &e);
	ASSERT_EQ(e.n, rate, what);
	if (log_stats(&dp, &ls)) {
		ASSERT_EQ_U64(ls.logged, rate, what);
		ASSERT_EQ_U64(ls.lost_rate, 200 - rate, what);
		ASSERT_EQ_U64(ls.lost_ring, 0, what);
	}
	usleep(1100000);
	ASSERT_EQ(run_q(&dp, &q, 200), XDP_DROP, what);
	drain(rb, &e);
	if (log_stats(&dp, &ls)) {
		ASSERT_EQ_U64(ls.logged, 2 * rate, "refilled: rate more");
		ASSERT_EQ_U64(ls.lost_rate, 400 - 2 * rate, "the rest lost");
	}
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_droplog_bucket)
{
	burst_at(1);
	burst_at(2);
}

/* The ring full (nobody reading): events past it are counted, not lost. */
BW_TEST(test_droplog_ring_full)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct bw_log_stats ls;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = A4, .dport = 4000 };
	/* Each event takes its size and an 8-byte header in the ring. */
	long fit = BW_LOG_RING_BYTES / (sizeof(struct bw_log_event) + 8);

	if (!open_logged(&dp, BW_LOG_RATE_MAX, &e, &rb))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, 0, &m), "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q, fit + 100), XDP_DROP, "flood");
	if (log_stats(&dp, &ls)) {
		ASSERT_EQ_U64(ls.logged, fit, "logged: what the ring holds");
		ASSERT_EQ_U64(ls.lost_ring, 100, "lost_ring: the rest");
		ASSERT_EQ_U64(ls.lost_rate, 0, "lost_rate");
	}
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* A blocked query's event: the query's addresses, ports and name. */
static void expect_query(struct bw_dp *dp, struct ring_buffer *rb,
			 struct events *e, const struct dns_q *q, __u32 xdp,
			 __u8 action, const char *dst, __u64 gen)
{
	char name[300];

	ASSERT_EQ(run_q(dp, q, 1), xdp, q->name);
	drain(rb, e);
	expect_event(e, q->name, q->src, dst, IPPROTO_UDP, CLIENT_PORT, 53,
		     BW_LOG_DNS, action, gen);
	if (e->n != 1)
		return;
	ASSERT_OK(bw_log_name(e->ev[0].name, e->ev[0].name_len, name,
			      sizeof(name)),
		  "the name decodes");
	ASSERT_STREQ(name, q->name, "the query's name");
}

BW_TEST(test_droplog_dns)
{
	static const char *const exact[] = { "ads.example.com", NULL };
	static const char *const sub[] = { "doubleclick.net", NULL };
	struct dns_filter f = { .exact = exact,
				.subtree = sub,
				.block_addr = A4,
				.action = BW_DNS_NULL,
				.ttl = 60 };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .src = "198.51.100.7", .name = "ads.example.com" };

	if (!open_logged(&dp, 1000, &e, &rb))
		goto out;
	if (!ASSERT_OK(dns_commit(&dp, &f, &m), "dns_commit"))
		goto out;
	/* Answered in place: the event has the query's side, not the answer's. */
	expect_query(&dp, rb, &e, &q, XDP_TX, BW_LOG_ANSWER, "192.0.2.53",
		     generation(&m));
	q = (struct dns_q){ .src = "2001:db8:c::7",
			    .name = "x.y.doubleclick.net",
			    .qtype = 28 };
	expect_query(&dp, rb, &e, &q, XDP_TX, BW_LOG_ANSWER, "2001:db8::53",
		     generation(&m));
	/* A listed source: the address decides first. */
	q = (struct dns_q){ .src = A4, .name = "ads.example.com" };
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_DROP, "listed source");
	drain(rb, &e);
	expect_event(&e, "listed source", A4, "192.0.2.53", IPPROTO_UDP,
		     CLIENT_PORT, 53, BW_LOG_ADDRESS, BW_LOG_DROP,
		     generation(&m));
	/* A clean name: no event. */
	q = (struct dns_q){ .src = "198.51.100.7", .name = "example.com" };
	ASSERT_EQ(run_q(&dp, &q, 1), XDP_PASS, "clean name");
	drain(rb, &e);
	ASSERT_EQ(e.n, 0, "no event for a clean name");
	bw_filter_close(&m);
	/* The drop action: dropped, and logged as a drop. */
	f.action = BW_DNS_DROP;
	if (!ASSERT_OK(dns_commit(&dp, &f, &m), "dns_commit drop"))
		goto out;
	q = (struct dns_q){ .src = "198.51.100.7", .name = "ads.example.com" };
	expect_query(&dp, rb, &e, &q, XDP_DROP, BW_LOG_DROP, "192.0.2.53",
		     generation(&m));
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Whether the loaded program's instructions load map id's address. */
static int refers_to(int prog_fd, __u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n, i;
	struct bpf_insn *insns;
	int found = 0;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	n = info.xlated_prog_len / sizeof(*insns);
	insns = calloc(n, sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(*insns);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		free(insns);
		return -errno;
	}
	/* The kernel dumps a map's address as its id (BPF_PSEUDO_MAP_*). */
	for (i = 0; i + 1 < n; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    (insns[i].src_reg == BPF_PSEUDO_MAP_FD ||
		     insns[i].src_reg == BPF_PSEUDO_MAP_VALUE) &&
		    (__u32)insns[i].imm == id)
			found = 1;
	free(insns);
	return found;
}

/*
 * Rate 0: drops but no event and no counter, and not one instruction that
 * reaches the ring or the log's counters (the verifier removed them); the
 * same check finds both in a program with logging.
 */
BW_TEST(test_droplog_off)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct ring_buffer *rb = NULL;
	struct bw_log_stats ls;
	struct events e;
	struct bw_dp dp;
	struct dns_q q = { .name = "x.example", .src = A4, .dport = 4000 };
	__u32 ring, counters;

	if (!open_logged(&dp, 0, &e, &rb))
		goto out;
	ring = bw_obj_id(dp.maps.log_ring);
	counters = bw_obj_id(dp.maps.log_stats);
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, 0, &m), "commit"))
		goto out;
	ASSERT_EQ(run_q(&dp, &q, 10), XDP_DROP, "dropped");
	drain(rb, &e);
	ASSERT_EQ(e.n, 0, "no event");
	if (log_stats(&dp, &ls))
		ASSERT_EQ_U64(ls.logged + ls.lost_rate + ls.lost_ring, 0,
			      "no log counter moved");
	ASSERT_EQ(refers_to(dp.prog_fd, ring), 0, "off: no ring access");
	ASSERT_EQ(refers_to(dp.prog_fd, counters), 0,
		  "off: no log counter access");
	dp.maps.log_rate = 10;
	if (!ASSERT_OK(bw_dp_commit(&dp, &m), "commit with logging"))
		goto out;
	ASSERT_EQ(refers_to(dp.prog_fd, ring), 1, "on: the ring");
	ASSERT_EQ(refers_to(dp.prog_fd, counters), 1, "on: the log counters");
out:
	ring_buffer__free(rb);
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * The rate a program runs with is read back from it, and a new program
 * keeps it unless one was set (--log-rate); a program of unknown rate
 * gets the default.
 */
BW_TEST(test_droplog_rate_kept)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_maps found = BW_MAPS_INIT;
	struct bw_log_consts lc;
	struct bw_dp dp;

	if (!bw_dp_open(&dp))
		goto out;
	dp.maps.log_rate = 7;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, 0, &m), "commit"))
		goto out;
	if (ASSERT_OK(bw_prog_log_consts(dp.prog_fd, &lc), "log_consts")) {
		ASSERT_EQ(lc.rate, 7, "rate");
		ASSERT_EQ(lc.burst, 7, "burst");
		/* A second's worth of credit buys the rate's events. */
		ASSERT_EQ_U64(lc.cost, ((__u64)bw_kernel_hz() << 32) / 7,
			      "cost: HZ << 32 / 7");
		ASSERT_EQ_U64(lc.cap, lc.cost * 7, "cap: a burst of 7");
	}
	if (ASSERT_OK(bw_prog_maps(dp.prog_fd, &found), "bw_prog_maps"))
		ASSERT_EQ(found.log_rate, 7, "bw_prog_maps reads the rate");
	ASSERT_EQ(bw_obj_id(found.log_ring), bw_obj_id(dp.maps.log_ring),
		  "the ring is shared");
	bw_maps_close(&found);
	ASSERT_EQ(bw_prog_log_rate(7), 7, "kept");
	ASSERT_EQ(bw_prog_log_rate(-1), BW_LOG_RATE_DEFAULT, "default");
	bw_prog_set_log_rate(3);
	ASSERT_EQ(bw_prog_log_rate(7), 3, "--log-rate wins");
	ASSERT_OK(bw_dp_commit(&dp, &m), "commit with --log-rate 3");
	if (ASSERT_OK(bw_prog_log_consts(dp.prog_fd, &lc), "log_consts"))
		ASSERT_EQ(lc.rate, 3, "rate set");
	bw_prog_set_log_rate(-1);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
