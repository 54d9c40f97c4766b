// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Sizing and building (user/filter/builder.c): filters built in memory from real and
 * random lists, then queried through bw_filter_lookup(), the userspace twin
 * of the data path. No false negatives ever; false positives near target.
 */
#include <stdlib.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/bloom_size.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

/* Measured rate may exceed the target by this factor (sampling, model). */
#define FPR_SLACK 1.5
#define FPR_TRIALS 1000000

/* A filter image for a finished list; NULL on failure (err set). */
static void *build(const struct bw_list *l, double fpr, __u32 seed,
		   struct bw_plan *plan, int *err)
{
	struct bw_build_opts o = { .fpr = fpr,
				   .seed = seed,
				   .flags = BW_F_MATCH_SRC };
	void *mem;

	*err = bw_plan_filter(l, &o, plan);
	if (*err)
		return NULL;
	mem = calloc(plan->nblocks, BW_BLOCK_BYTES);
	if (!mem) {
		*err = -ENOMEM;
		return NULL;
	}
	bw_fill_filter(mem, plan, l);
	return mem;
}

static bool lookup_v4(const void *mem, __u32 addr)
{
	struct bw_prefix p = { .lo = addr, .family = BW_V4, .plen = 32 };

	return bw_filter_lookup(mem, &p, NULL) == 1;
}

static bool lookup_v6(const void *mem, __u64 hi, __u64 lo)
{
	struct bw_prefix p = {
		.hi = hi, .lo = lo, .family = BW_V6, .plen = 128
	};

	return bw_filter_lookup(mem, &p, NULL) == 1;
}

/* ---- (a) no false negatives on the real lists ---- */

static const __u8 v4_targets[] = { 8, 16, 24, 32 };
static const __u8 v6_targets[] = { 28, 32, 40, 48, 128 };

/* Shortest target length that is >= plen (controlled prefix expansion). */
static unsigned int target_of(const __u8 *t, size_t n, unsigned int plen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] >= plen)
			return t[i];
	return plen;
}

/*
 * Expands every prefix of a finished list to the next target length, so
 * that a family has at most four lengths, as the builder requires. The
 * test does its own expansion: it checks lookups, not the expander.
 */
static int expand(const struct bw_list *in, struct bw_list *out)
{
	struct bw_prefix p = { .family = BW_V4 };
	unsigned int t, plen;
	__u64 i, j, n;

	for (i = 0; i < in->n4; i++) {
		plen = bw_v4key_plen(in->v4[i]);
		t = target_of(v4_targets, sizeof(v4_targets), plen);
		n = 1ULL << (t - plen);
		for (j = 0; j < n; j++) {
			p.lo = bw_v4key_addr(in->v4[i]) + (j << (32 - t));
			p.plen = (__u8)t;
			if (bw_list_push(out, &p))
				return -ENOMEM;
		}
	}
	p.family = BW_V6;
	for (i = 0; i < in->n6; i++) {
		plen = in->v6[i].plen;
		t = target_of(v6_targets, sizeof(v6_targets), plen);
		/* all v6 targets but 128 are <= 64: only hi changes */
		if (t != plen && (t > 64 || t - plen > 20))
			return -E2BIG;
		n = t == plen ? 1 : 1ULL << (t - plen);
		for (j = 0; j < n; j++) {
			p.hi = in->v6[i].hi + (t == plen ? 0 : j << (64 - t));
			p.lo = in->v6[i].lo;
			p.plen = (__u8)t;
			if (bw_list_push(out, &p))
				return -ENOMEM;
		}
	}
	bw_list_finish(out);
	return 0;
}

/* First, last and a random address of every entry must hit. */
static size_t count_misses(const void *mem, const struct bw_list *l)
{
	__u64 s = 5, span, hi_span, r;
	size_t i, miss = 0;
	__u32 a, plen;

	for (i = 0; i < l->n4; i++) {
		a = bw_v4key_addr(l->v4[i]);
		plen = bw_v4key_plen(l->v4[i]);
		span = (1ULL << (32 - plen)) - 1;
		r = bw_test_splitmix64(&s) & span;
		miss += !lookup_v4(mem, a) +
			!lookup_v4(mem, (__u32)(a + span)) +
			!lookup_v4(mem, (__u32)(a + r));
	}
	for (i = 0; i < l->n6; i++) {
		const struct bw_v6key *k = &l->v6[i];

		hi_span = k->plen >= 64 ? 0 : ~0ULL >> k->plen;
		miss += !lookup_v6(mem, k->hi, k->lo);
		miss += !lookup_v6(mem, k->hi | hi_span,
				   k->plen >= 64 ? k->lo : ~0ULL);
		miss += !lookup_v6(
			mem, k->hi | (bw_test_splitmix64(&s) & hi_span),
			k->plen >= 64 ? k->lo : bw_test_splitmix64(&s));
	}
	return miss;
}

static const struct {
	const char *rel;
} real_lists[] = {
	{ "ipv4/ipsum/ipsum.txt" },
	{ "ipv4/ipsum/levels/3.txt" },
	{ "ipv4/ipsum/levels/8.txt" },
	{ "ipv4/firehol/feodo.ipset" },
	{ "ipv4/firehol/tor_exits.ipset" },
	{ "ipv6/openshield/tor-exit-nodes_ipv6.txt" },
	{ "ipv4/firehol/dshield.netset" },
	{ "ipv4/firehol/spamhaus_drop.netset" },
	{ "ipv4/firehol/firehol_level1.netset" },
	{ "ipv4/firehol/firehol_level2.netset" },
	{ "ipv4/firehol/firehol_level4.netset" },
	{ "spamhaus/drop.txt" },
	{ "spamhaus/dropv6.txt" },
	{ "ipv6/openshield/high-risk-networks_ipv6-cidrs.txt" },
};

static void check_real_list(const char *rel)
{
	struct bw_list l, x;
	struct bw_plan plan;
	void *mem = NULL;
	int err;

	bw_list_init(&l);
	bw_list_init(&x);
	if (!ASSERT_OK(bw_test_load_data(&l, rel), rel))
		goto out;
	bw_list_finish(&l);
	if (!ASSERT_OK(expand(&l, &x), "expand"))
		goto out;
	mem = build(&x, BW_DEFAULT_FPR, 0x5eed, &plan, &err);
	if (!ASSERT_OK(err, rel))
		goto out;
	ASSERT_OK(bw_filter_check(mem, plan.nblocks), "filter check");
	ASSERT_EQ(count_misses(mem, &l), 0, rel);
out:
	free(mem);
	bw_list_free(&x);
	bw_list_free(&l);
}

BW_TEST(test_build_real_lists_no_false_negatives)
{
	size_t i;

	if (!bw_test_data_dir())
		return;
	for (i = 0; i < sizeof(real_lists) / sizeof(real_lists[0]); i++)
		check_real_list(real_lists[i].rel);
}

/* ---- (b) false-positive rate on random lists ---- */

static bool in_v4(const struct bw_list *l, __u32 addr)
{
	__u64 key = bw_v4key(addr, 32);
	size_t lo = 0, hi = l->n4, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->v4[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n4 && l->v4[lo] == key;
}

/* n random IPv4 hosts; the rate measured on FPR_TRIALS non-members. */
static void check_fpr_v4(size_t n, double fpr, __u64 seed)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	size_t i, trials = 0, hits = 0, miss = 0;
	struct bw_plan plan;
	struct bw_list l;
	char name[64];
	void *mem;
	int err;

	snprintf(name, sizeof(name), "n=%zu fpr=%g", n, fpr);
	bw_list_init(&l);
	for (i = 0; i < n; i++) {
		p.lo = (__u32)bw_test_splitmix64(&seed);
		if (!ASSERT_OK(bw_list_push(&l, &p), "push"))
			goto out;
	}
	bw_list_finish(&l);
	mem = build(&l, fpr, (__u32)seed, &plan, &err);
	if (!ASSERT_OK(err, name))
		goto out;
	for (i = 0; i < l.n4; i += 1 + l.n4 / 100000)
		miss += !lookup_v4(mem, bw_v4key_addr(l.v4[i]));
	ASSERT_EQ(miss, 0, name);
	while (trials < FPR_TRIALS) {
		__u32 a = (__u32)bw_test_splitmix64(&seed);

		if (in_v4(&l, a))
			continue;
		trials++;
		hits += lookup_v4(mem, a);
	}
	/* BW_TEST_VERBOSE=1 shows the measured rates */
	if (getenv("BW_TEST_VERBOSE"))
		fprintf(stderr, "  %s: measured %g, %u blocks\n", name,
			(double)hits / trials, plan.nblocks);
	ASSERT_LE((double)hits / trials, FPR_SLACK * fpr, name);
	free(mem);
out:
	bw_list_free(&l);
}

BW_TEST(test_build_fpr_v4)
{
	size_t n;

	for (n = 1; n <= 10000000; n *= 10)
		check_fpr_v4(n, 0.001, 0x1000 + n);
	check_fpr_v4(100000, 0.01, 0x2000);
}

BW_TEST(test_build_fpr_v6)
{
	struct bw_prefix p = { .family = BW_V6, .plen = 128 };
	const size_t n = 100000;
	size_t i, hits = 0, miss = 0;
	struct bw_plan plan;
	struct bw_list l;
	__u64 s = 0x6666;
	void *mem;
	int err;

	bw_list_init(&l);
	for (i = 0; i < n; i++) {
		p.hi = bw_test_splitmix64(&s);
		p.lo = bw_test_splitmix64(&s);
		if (!ASSERT_OK(bw_list_push(&l, &p), "push"))
			goto out;
	}
	bw_list_finish(&l);
	mem = build(&l, 0.001, 77, &plan, &err);
	if (!ASSERT_OK(err, "build v6"))
		goto out;
	for (i = 0; i < l.n6; i++)
		miss += !lookup_v6(mem, l.v6[i].hi, l.v6[i].lo);
	ASSERT_EQ(miss, 0, "v6 members");
	/* 2^-128 chance that a random address is a member: ignore it */
	for (i = 0; i < FPR_TRIALS; i++)
		hits += lookup_v6(mem, bw_test_splitmix64(&s),
				  bw_test_splitmix64(&s));
	ASSERT_LE((double)hits / FPR_TRIALS, FPR_SLACK * 0.001, "v6 fpr");
	free(mem);
out:
	bw_list_free(&l);
}

/* ---- (c) sizing ---- */

BW_TEST(test_build_size_region)
{
	static const __u64 ns[] = { 1, 2, 10, 1000, 123457, 10000000 };
	__u32 nblocks = 123, prev = 0;
	unsigned int k, i;
	bool minimal;
	__u8 probes = 0;
	char name[64];

	ASSERT_OK(bw_size_region(0, 0.001, &nblocks, &probes), "n=0");
	ASSERT_EQ(nblocks, 0, "n=0 gives no blocks");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(name, sizeof(name), "n=%llu",
			 (unsigned long long)ns[i]);
		if (!ASSERT_OK(bw_size_region(ns[i], 0.001, &nblocks, &probes),
			       name))
			continue;
		ASSERT_GE(nblocks, 1, name);
		ASSERT_GE(nblocks, prev, "more keys, no fewer blocks");
		ASSERT_TRUE(probes == BW_ROUND_PROBES ||
				    probes == 2 * BW_ROUND_PROBES,
			    name);
		ASSERT_LE(bw_model_fpr(ns[i], nblocks, probes), 0.001, name);
		/* fewest blocks: one less misses the target at 8 and 16 */
		minimal = true;
		for (k = BW_ROUND_PROBES; nblocks > 1 && k <= BW_MAX_PROBES;
		     k += BW_ROUND_PROBES)
			minimal &= bw_model_fpr(ns[i], nblocks - 1, k) > 0.001;
		ASSERT_TRUE(minimal, name);
		prev = nblocks;
	}
	ASSERT_OK(bw_size_region(1000000, 0.01, &nblocks, &probes), "1%");
	ASSERT_OK(bw_size_region(1000000, 0.0001, &prev, &probes), "0.01%");
	ASSERT_GE(prev, nblocks, "lower rate, more blocks");
	/* 2^35 bits cannot hold 2^34 keys at 0.1% */
	ASSERT_EQ(bw_size_region(1ULL << 34, 0.001, &nblocks, &probes), -E2BIG,
		  "past BW_MAX_BLOCKS");
	ASSERT_EQ(nblocks, 0, "no blocks on E2BIG");
	ASSERT_EQ(bw_size_region(1ULL << 40, 0.001, &nblocks, &probes), -E2BIG,
		  "2^40 keys");
}

BW_TEST(test_build_plan_limits)
{
	struct bw_build_opts o = { .fpr = 0.001, .seed = 1 };
	struct bw_list_opts lo = {};
	static const char *lines[] = { "1.0.0.0/8", "2.0.0.0/9", "3.0.0.0/10",
				       "4.0.0.0/11", "5.0.0.0/12" };
	char err[BW_ERRLEN], *msgs;
	struct bw_capture cap;
	struct bw_plan plan;
	struct bw_list l;
	size_t i;
	int ret;

	bw_list_init(&l);
	for (i = 0; i < 4; i++)
		bw_list_parse_line(&l, lines[i], &lo, err, sizeof(err));
	bw_list_finish(&l);
	ASSERT_OK(bw_plan_filter(&l, &o, &plan), "4 lengths");
	ASSERT_EQ(plan.hdr.nlengths[BW_V4], 4, "nlengths");
	ASSERT_EQ(plan.hdr.plen[BW_V4][0], 11, "longest first");
	ASSERT_EQ(plan.hdr.plen[BW_V4][3], 8, "shortest last");
	ASSERT_EQ(plan.hdr.nlengths[BW_V6], 0, "no v6");
	ASSERT_EQ(plan.nblocks, plan.hdr.region_end[BW_REGIONS - 1],
		  "regions end the filter");
	bw_list_parse_line(&l, lines[4], &lo, err, sizeof(err));
	bw_list_finish(&l);
	bw_capture_start(&cap);
	ret = bw_plan_filter(&l, &o, &plan);
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -E2BIG, "5 lengths");
	ASSERT_STREQ(msgs, "IPv4 list has more than 4 prefix lengths\n", "msg");
	free(msgs);
	o.fpr = 0;
	ASSERT_EQ(bw_plan_filter(&l, &o, &plan), -EINVAL, "fpr 0");
	o.fpr = 0.5;
	ASSERT_EQ(bw_plan_filter(&l, &o, &plan), -EINVAL, "fpr 0.5");
	bw_list_free(&l);

	/* an empty list: header and info only, every lookup misses */
	bw_list_init(&l);
	o.fpr = 0.001;
	ASSERT_OK(bw_plan_filter(&l, &o, &plan), "empty list");
	ASSERT_EQ(plan.nblocks, BW_HDR_BLOCKS, "empty filter size");
}

/*
 * The target rate survives a rebuild exactly: reload plans the next filter
 * with the rate read back from the running one's info block. Filters of
 * format 2 from before kept it in parts per billion; they still read.
 */
BW_TEST(test_build_fpr_kept)
{
	static const double rates[] = { 1e-12, 0.001, 1.0 / 3, 0.4999, 1e-300 };
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	struct bw_plan plan, again;
	struct bw_info info = {};
	struct bw_list l;
	char name[64];
	void *mem;
	size_t i;
	int err;

	bw_list_init(&l);
	for (i = 0; i < 1000; i++) {
		p.lo = (__u32)(0x0a000000 + i);
		bw_list_push(&l, &p);
	}
	bw_list_finish(&l);
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		snprintf(name, sizeof(name), "fpr %g", rates[i]);
		bw_info_set_fpr(&info, rates[i]);
		ASSERT_TRUE(bw_info_fpr(&info) == rates[i], name);
	}
	mem = build(&l, 1e-12, 7, &plan, &err);
	if (!ASSERT_OK(err, "build at 1e-12"))
		goto out;
	/* What reload reads from the running filter: block 1. */
	memcpy(&info, (char *)mem + BW_BLOCK_BYTES, sizeof(info));
	ASSERT_TRUE(bw_info_fpr(&info) == 1e-12, "1e-12 read back exactly");
	free(mem);
	mem = build(&l, bw_info_fpr(&info), 8, &again, &err);
	if (ASSERT_OK(err, "rebuild at the rate read back"))
		ASSERT_EQ(again.nblocks, plan.nblocks,
			  "rebuild keeps the size");
	free(mem);
	/* The old form: parts per billion, top word zero. */
	info.fpr_lo = 1000000;
	info.fpr_hi = 0;
	ASSERT_TRUE(bw_info_fpr(&info) == 0.001, "format 2: 0.1%");
	info.fpr_lo = 1;
	ASSERT_TRUE(bw_info_fpr(&info) == 1e-9, "format 2: 1 ppb");
	info.fpr_lo = 0;
	ASSERT_TRUE(bw_info_fpr(&info) == BW_DEFAULT_FPR, "no rate: default");
	/* Not a rate the CLI would write: the default, not garbage. */
	bw_info_set_fpr(&info, 0.75);
	ASSERT_TRUE(bw_info_fpr(&info) == BW_DEFAULT_FPR, "0.75: default");
	/* A subnormal rate could not be told from the old form. */
	ASSERT_EQ(
		bw_plan_filter(&l,
			       &(struct bw_build_opts){
				       .fpr = 1e-320, .flags = BW_F_MATCH_SRC },
			       &again),
		-EINVAL, "subnormal fpr refused");
out:
	bw_list_free(&l);
}

/* ---- (d) insert ---- */

BW_TEST(test_build_insert)
{
	struct bw_list_opts lo = {};
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	struct bw_prefix net = { .family = BW_V4, .plen = 24 };
	struct bw_prefix v6 = {
		.hi = 0x20010db8ULL << 32, .lo = 1, .family = BW_V6, .plen = 128
	};
	char err[BW_ERRLEN];
	struct bw_plan plan;
	struct bw_list l;
	__u64 s = 3;
	void *mem;
	int ret, region = -1;

	bw_list_init(&l);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "192.168.0.0/24", &lo, err, sizeof(err));
	bw_list_finish(&l);
	mem = build(&l, 0.001, 9, &plan, &ret);
	if (!ASSERT_OK(ret, "build"))
		goto out;
	/* a fresh address that misses before its insert */
	do
		p.lo = (__u32)bw_test_splitmix64(&s);
	while (lookup_v4(mem, (__u32)p.lo));
	ASSERT_EQ(bw_filter_insert(mem, &p), 1, "new bits");
	ASSERT_TRUE(lookup_v4(mem, (__u32)p.lo), "hit after insert");
	ASSERT_EQ(bw_filter_insert(mem, &p), 0, "second insert: no new bits");
	net.lo = 0xac100000; /* 172.16.0.0/24 */
	ASSERT_FALSE(lookup_v4(mem, 0xac100063), "172.16.0.99 before");
	ASSERT_GE(bw_filter_insert(mem, &net), 0, "insert /24");
	ASSERT_EQ(bw_filter_lookup(mem,
				   &(struct bw_prefix){ .lo = 0xac100063,
							.family = BW_V4,
							.plen = 32 },
				   &region),
		  1, "172.16.0.99 after");
	ASSERT_EQ(region, 1, "found in the /24 region (second, after /32)");
	ASSERT_EQ(bw_filter_insert(mem, &v6), -ENOENT, "no v6 region");
	net.plen = 16;
	ASSERT_EQ(bw_filter_insert(mem, &net), -ENOENT, "no /16 region");
	ASSERT_FALSE(lookup_v6(mem, v6.hi, v6.lo), "v6 never hits");
	free(mem);
out:
	bw_list_free(&l);
}

BW_TEST(test_build_filter_check)
{
	struct bw_list_opts lo = {};
	char err[BW_ERRLEN];
	struct bw_plan plan;
	struct bw_list l;
	struct bw_hdr *hdr;
	void *mem;
	int ret;

	bw_list_init(&l);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "2001:db8::1", &lo, err, sizeof(err));
	bw_list_finish(&l);
	mem = build(&l, 0.001, 9, &plan, &ret);
	if (!ASSERT_OK(ret, "build"))
		goto out;
	hdr = mem;
	ASSERT_OK(bw_filter_check(mem, plan.nblocks), "valid");
	ASSERT_EQ(bw_filter_check(mem, plan.nblocks - 1), -EINVAL, "too small");
	ASSERT_EQ(hdr->seed, 9, "seed in header");
	ASSERT_TRUE(lookup_v4(mem, 0x0a000001), "v4 member");
	ASSERT_TRUE(lookup_v6(mem, 0x20010db8ULL << 32, 1), "v6 member");
	hdr->magic ^= 1;
	ASSERT_EQ(bw_filter_check(mem, plan.nblocks), -EINVAL, "bad magic");
	free(mem);
out:
	bw_list_free(&l);
}
