// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Domain names through the real program: which queries a filter with
 * exact and subtree entries blocks (exact names, parent suffixes, an
 * exact entry's children, names that only share a string suffix, mixed
 * case, the root), over IPv4 and IPv6 with no, one and two VLAN tags;
 * the name allowlist, monitor mode, the address filter first, a filter
 * without BW_F_DNS. Every answer is checked field by field and by scapy.
 */
#include <stdio.h>
#include <linux/if_ether.h>

#include "dns_fixture.h"
#include "test_helpers.h"

#define TTL 300

static const char *const exact[] = { "ads.example.com", "tracker.test", NULL };
static const char *const subtree[] = { "doubleclick.net", "ad.com", NULL };

/* Names the filter must block (exact or under a subtree entry). */
static const char *const blocked[] = {
	"ads.example.com", "tracker.test",
	"doubleclick.net", "a.b.doubleclick.net",
	"ad.com",	   "x.ad.com",
	"ADS.Example.COM", "A.B.DoubleClick.NET",
	"aD.CoM",	   "TRACKER.TEST",
};

/* Names it must not: children of exact entries, string suffixes, parents. */
static const char *const clean[] = {
	"x.ads.example.com", "example.com",	   "com",  "bad.com",
	"xad.com",	     "notdoubleclick.net", "net",  "ads.example.org",
	"a.tracker.test",    "ad.com.evil.org",	   "test", "ad.co",
};

struct variant {
	const char *name;
	const char *src;
	__u16 tpid[2];
};

static const struct variant variants[] = {
	{ "ipv4", "198.51.100.7", { 0, 0 } },
	{ "ipv6", "2001:db8:c11e::7", { 0, 0 } },
	{ "ipv4 vlan", "198.51.100.7", { ETH_P_8021Q, 0 } },
	{ "ipv6 vlan", "2001:db8:c11e::7", { ETH_P_8021Q, 0 } },
	{ "ipv4 qinq", "198.51.100.7", { ETH_P_8021AD, ETH_P_8021Q } },
	{ "ipv6 qinq", "2001:db8:c11e::7", { ETH_P_8021AD, ETH_P_8021Q } },
};

#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static struct dns_q q_for(const struct variant *v, const char *name)
{
	struct dns_q q = { .src = v->src, .name = name };

	q.tpid[0] = v->tpid[0];
	q.tpid[1] = v->tpid[1];
	return q;
}

static bool open_filter(struct bw_dp *dp, struct bw_filter_map *m,
			const struct dns_filter *f)
{
	size_t i;

	if (!bw_dp_open(dp) || !ASSERT_OK(dns_commit(dp, f, m), "commit"))
		return false;
	for (i = 0; i < sizeof(clean) / sizeof(clean[0]); i++)
		if (!ASSERT_FALSE(dns_listed(m, clean[i]),
				  "precondition: a clean name is no false "
				  "positive"))
			return false;
	return true;
}

BW_TEST(test_dns_match)
{
	struct dns_filter f = { .exact = exact,
				.subtree = subtree,
				.action = BW_DNS_NXDOMAIN,
				.ttl = TTL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q;
	struct dns_want w;
	char what[160];
	size_t v, i;

	if (!open_filter(&dp, &m, &f))
		goto out;
	for (v = 0; v < NVARIANTS; v++) {
		for (i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++) {
			q = q_for(&variants[v], blocked[i]);
			snprintf(what, sizeof(what), "%s: %s blocked",
				 variants[v].name, blocked[i]);
			dns_expect_blocked(&dp, what, &q, BW_DNS_NXDOMAIN, TTL);
		}
		for (i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
			q = q_for(&variants[v], clean[i]);
			w = dns_want_query(&q);
			snprintf(what, sizeof(what), "%s: %s passed",
				 variants[v].name, clean[i]);
			dns_expect_q(&dp, what, &q, &w);
		}
		/* The root: a standard query with no name to test. */
		q = q_for(&variants[v], "");
		w = dns_want_pass(&q);
		snprintf(what, sizeof(what), "%s: the root", variants[v].name);
		dns_expect_q(&dp, what, &q, &w);
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* The name allowlist wins over any block, exact or subtree as written. */
BW_TEST(test_dns_allow)
{
	static const char *const sub[] = { "example.com", NULL };
	static const char *const ex[] = { "ads.example.org", NULL };
	struct dns_filter f = { .exact = ex,
				.subtree = sub,
				.action = BW_DNS_REFUSED,
				.dns_flags = BW_DNS_F_ALLOW };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7" };
	struct dns_want allowed = dns_want_query(&q);

	allowed.dns.allowed = 1;
	if (!bw_dp_open(&dp) ||
	    !ASSERT_OK(dns_allow(&dp, "good.example.com", false), "allow") ||
	    !ASSERT_OK(dns_allow(&dp, "safe.example.com", true), "allow") ||
	    !ASSERT_OK(dns_allow(&dp, "Ads.Example.Org", false), "allow") ||
	    !ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
		goto out;
	q.name = "good.example.com";
	dns_expect_q(&dp, "exact allow entry", &q, &allowed);
	q.name = "x.good.example.com";
	dns_expect_blocked(&dp, "an exact allow entry's child", &q,
			   BW_DNS_REFUSED, 0);
	q.name = "safe.example.com";
	dns_expect_q(&dp, "subtree allow entry itself", &q, &allowed);
	q.name = "a.b.SAFE.example.com";
	dns_expect_q(&dp, "under a subtree allow entry", &q, &allowed);
	q.name = "unsafe.example.com";
	dns_expect_blocked(&dp, "string suffix of an allow entry", &q,
			   BW_DNS_REFUSED, 0);
	q.name = "ads.example.org";
	dns_expect_q(&dp, "exact allow beats exact block", &q, &allowed);
	q.src = "2001:db8::7";
	q.name = "x.safe.example.com";
	allowed = dns_want_query(&q);
	allowed.dns.allowed = 1;
	dns_expect_q(&dp, "ipv6: under a subtree allow entry", &q, &allowed);
	/* Without BW_DNS_F_ALLOW the program does not read the map. */
	bw_filter_close(&m);
	f.dns_flags = 0;
	if (ASSERT_OK(dns_commit(&dp, &f, &m), "commit without allow"))
		dns_expect_blocked(&dp, "allow flag off: blocked", &q,
				   BW_DNS_REFUSED, 0);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_dns_monitor)
{
	struct dns_filter f = { .exact = exact,
				.subtree = subtree,
				.flags = BW_F_MONITOR };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7", .name = "x.ad.com" };
	struct dns_want w = dns_want_query(&q);

	w.dns.monitored = 1;
	if (!open_filter(&dp, &m, &f))
		goto out;
	dns_expect_q(&dp, "monitor: listed name passed", &q, &w);
	q.src = "2001:db8::7";
	dns_expect_q(&dp, "monitor ipv6: listed name passed", &q, &w);
	q.name = "example.com";
	w = dns_want_query(&q);
	dns_expect_q(&dp, "monitor: clean name", &q, &w);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* A listed address is dropped before its query is read. */
BW_TEST(test_dns_address_first)
{
	struct dns_filter f = { .exact = exact,
				.subtree = subtree,
				.block_addr = "198.51.100.66" };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.66", .name = "x.ad.com" };
	struct dns_want w = { .xdp = XDP_DROP, .stats = BW_OUT_DROP_V4 };

	if (!open_filter(&dp, &m, &f))
		goto out;
	dns_expect_q(&dp, "listed address, listed name: dropped", &q, &w);
	q.name = "example.com";
	dns_expect_q(&dp, "listed address, clean name: dropped", &q, &w);
	q.src = "198.51.100.67";
	q.name = "x.ad.com";
	dns_expect_blocked(&dp, "clean address, listed name: answered", &q,
			   BW_DNS_NULL, 0);
	q.name = "example.com";
	w = dns_want_query(&q);
	dns_expect_q(&dp, "clean address, clean name", &q, &w);
	/* Monitor mode: the address hit passes, the name is still judged. */
	bw_filter_close(&m);
	f.flags = BW_F_MONITOR;
	if (!ASSERT_OK(dns_commit(&dp, &f, &m), "commit monitor"))
		goto out;
	q.src = "198.51.100.66";
	w.stats = BW_OUT_MONITOR;
	dns_expect_q(&dp, "monitor: listed address, clean name", &q, &w);
	q.name = "x.ad.com";
	w.dns.monitored = 1;
	dns_expect_q(&dp, "monitor: listed address, listed name", &q, &w);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* The same regions, no BW_F_DNS: the program has no DNS code at all. */
BW_TEST(test_dns_flag_off)
{
	struct dns_filter f = { .exact = exact,
				.subtree = subtree,
				.no_dns = true };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7", .name = "ads.example.com" };
	struct dns_want w = dns_want_pass(&q);

	if (!bw_dp_open(&dp) || !ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
		goto out;
	dns_expect_q(&dp, "no BW_F_DNS: listed name passed untouched", &q, &w);
	q.src = "2001:db8::7";
	dns_expect_q(&dp, "no BW_F_DNS ipv6", &q, &w);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
