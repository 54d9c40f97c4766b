// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Every action on every kind of question: NULL (A 0.0.0.0, AAAA ::,
 * NODATA for other types and classes), NXDOMAIN, REFUSED, DROP; IPv4 and
 * IPv6, tags, EDNS OPT in the additional section (cut from the answer),
 * Ethernet padding after the packet (cut), a query in a jumbo frame whose
 * tail is in fragments (the answer shrinks it), the longest names (the
 * answer grows past the query). Each answer checked in C and by scapy.
 */
#include <stdio.h>
#include <linux/if_ether.h>

#include "dns_fixture.h"
#include "test_helpers.h"

#define TTL 3600

static const char *const subtree[] = { "blocked.example", NULL };

static const __u16 qtypes[] = { 1, 28, 15, 16, 65, 255 };

static const char *const action_names[] = { "null", "nxdomain", "refused",
					    "drop" };

struct shape {
	const char *name;
	const char *src;
	__u16 tpid[2];
	bool edns;
	__u16 pad;
};

static const struct shape shapes[] = {
	{ "ipv4", "198.51.100.7", { 0, 0 }, false, 0 },
	{ "ipv6", "2001:db8::7", { 0, 0 }, false, 0 },
	{ "ipv4 edns", "198.51.100.7", { 0, 0 }, true, 0 },
	{ "ipv6 edns qinq",
	  "2001:db8::7",
	  { ETH_P_8021AD, ETH_P_8021Q },
	  true,
	  0 },
	{ "ipv4 vlan padded", "198.51.100.7", { ETH_P_8021Q, 0 }, false, 9 },
	{ "ipv6 jumbo", "2001:db8::7", { 0, 0 }, true, 5000 },
	{ "ipv4 jumbo qinq",
	  "198.51.100.7",
	  { ETH_P_8021AD, ETH_P_8021Q },
	  false,
	  4500 },
};

static void check_action(struct bw_dp *dp, __u8 action)
{
	struct dns_q q;
	char what[160];
	size_t s, t;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		for (t = 0; t < sizeof(qtypes) / sizeof(qtypes[0]); t++) {
			q = (struct dns_q){ .src = shapes[s].src,
					    .name = "Www.Blocked.Example",
					    .qtype = qtypes[t],
					    .edns = shapes[s].edns,
					    .pad = shapes[s].pad };
			q.tpid[0] = shapes[s].tpid[0];
			q.tpid[1] = shapes[s].tpid[1];
			snprintf(what, sizeof(what), "%s: %s, qtype %u",
				 action_names[action], shapes[s].name,
				 qtypes[t]);
			dns_expect_blocked(dp, what, &q, action, TTL);
		}
		/* Class CH: NULL answers it with no record. */
		q.qtype = 1;
		q.qclass = 3;
		snprintf(what, sizeof(what), "%s: %s, class CH",
			 action_names[action], shapes[s].name);
		dns_expect_blocked(dp, what, &q, action, TTL);
	}
}

BW_TEST(test_dns_actions)
{
	struct dns_filter f = { .subtree = subtree, .ttl = TTL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	__u8 a;

	if (!bw_dp_open(&dp))
		goto out;
	for (a = 0; a < BW_DNS_ACTIONS; a++) {
		bw_filter_close(&m);
		f.action = a;
		if (!ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
			goto out;
		check_action(&dp, a);
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* RD is echoed, whatever else the query's flags held (CD, AD, Z). */
BW_TEST(test_dns_answer_flags)
{
	static const __u16 flags[] = { 0x0000, 0x0100, 0x0010, 0x0130, 0x0140 };
	struct dns_filter f = { .subtree = subtree, .action = BW_DNS_REFUSED };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7",
			   .name = "blocked.example",
			   .flags_set = true };
	char what[80];
	size_t i;

	if (!bw_dp_open(&dp) || !ASSERT_OK(dns_commit(&dp, &f, &m), "commit"))
		goto out;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		q.flags = flags[i];
		snprintf(what, sizeof(what), "query flags %#06x", flags[i]);
		dns_expect_blocked(&dp, what, &q, BW_DNS_REFUSED, 0);
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
