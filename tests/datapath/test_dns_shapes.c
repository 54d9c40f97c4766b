// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The program loads for every shape of filter (no names, exact names
 * only, subtrees only, both, with the name allowlist, monitor and verify
 * mode, both addresses matched) and judges a query right in each; its
 * size and the verifier's work are printed for the record (doc/dns.md). A
 * filter without names must cost what it did before names existed: the
 * DNS code is not even in its program (fewer instructions than any shape
 * with names, and the same count as the address-only filter with no DNS
 * block at all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dns_fixture.h"
#include "test_helpers.h"

static const char *const exact[] = { "ads.example.com", NULL };
static const char *const subtree[] = { "example.net", NULL };

struct shape {
	const char *name;
	bool ex, sub;
	__u16 flags;
	__u8 dns_flags;
	bool no_dns;
};

static const struct shape shapes[] = {
	{ "no names (no BW_F_DNS)", false, false, 0, 0, true },
	{ "no names (empty regions)", false, false, 0, 0, false },
	{ "exact names", true, false, 0, 0, false },
	{ "subtree names", false, true, 0, 0, false },
	{ "exact + subtree", true, true, 0, 0, false },
	{ "both + name allowlist", true, true, 0, BW_DNS_F_ALLOW, false },
	{ "both, monitor", true, true, BW_F_MONITOR, 0, false },
	{ "both, verify", true, true, BW_F_VERIFY, 0, false },
	{ "both, match src+dst, allow", true, true, BW_F_MATCH_DST | BW_F_ALLOW,
	  BW_DNS_F_ALLOW, false },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static bool prog_info(int fd, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return ASSERT_OK(bpf_obj_get_info_by_fd(fd, info, &len), "info");
}

/* BW_TEST_PAUSE=N: time to run bpftool prog dump xlated on each. */
static void maybe_pause(const struct bpf_prog_info *info)
{
	const char *p = getenv("BW_TEST_PAUSE");

	if (p && atoi(p) > 0) {
		printf("  program id %u\n", info->id);
		fflush(stdout);
		sleep(atoi(p));
	}
}

/* A query for a name under the subtree entry. */
static void judge(struct bw_dp *dp, const struct shape *s)
{
	struct dns_q q = { .src = "198.51.100.7", .name = "x.example.net" };
	struct dns_want w = dns_want_query(&q);

	if (s->no_dns || (!s->ex && !s->sub)) {
		w = dns_want_pass(&q);
	} else if (s->sub && !(s->flags & BW_F_MONITOR)) {
		dns_expect_blocked(dp, s->name, &q, BW_DNS_REFUSED, 0);
		return;
	} else if (s->sub) {
		w.dns.monitored = 1;
	}
	dns_expect_q(dp, s->name, &q, &w);
}

BW_TEST(test_dns_shapes)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bpf_prog_info info;
	__u32 xlated[NSHAPES] = {};
	struct bw_dp dp = {};
	size_t i;

	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < NSHAPES; i++) {
		const struct shape *s = &shapes[i];
		struct dns_filter f = { .exact = s->ex ? exact : NULL,
					.subtree = s->sub ? subtree : NULL,
					.flags = s->flags,
					.dns_flags = s->dns_flags,
					.no_dns = s->no_dns,
					.block_addr = "203.0.113.9",
					.action = BW_DNS_REFUSED };

		bw_filter_close(&m);
		if (!ASSERT_OK(dns_commit(&dp, &f, &m), s->name) ||
		    !prog_info(dp.prog_fd, &info))
			continue;
		xlated[i] = info.xlated_prog_len / 8;
		printf("  %-28s xlated %5u insns, jited %6u bytes, verifier "
		       "processed %6u insns\n",
		       s->name, xlated[i], info.jited_prog_len,
		       info.verified_insns);
		maybe_pause(&info);
		judge(&dp, s);
	}
	ASSERT_EQ(xlated[1], xlated[0],
		  "empty name regions: the same program as no BW_F_DNS");
	for (i = 2; i < NSHAPES; i++)
		ASSERT_GE(xlated[i], xlated[0] + 100,
			  "a filter with names has the DNS code");
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
