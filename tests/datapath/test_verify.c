// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Verify mode through the XDP program: members drop, no non-member ever
 * does, and every Bloom hit the exact trie refuses is counted in
 * `false_pos`, exactly; the real lists (firehol_level1, spamhaus
 * drop/dropv6, firehol_level4) give zero false negatives and zero false
 * positives, and an allowlisted member passes. (What the confirmation
 * costs per packet is measured by `make bench`, part c.)
 */
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "lists/cidr.h"
#include "lists_fixture.h"
#include "kernel/lpm.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

static void expect_members(struct bw_dp *dp, char *file)
{
	struct bw_list src;

	bw_list_init(&src);
	if (lf_load_src(&file, 1, &src))
		ASSERT_EQ(lf_member_misses(dp, &src), 0,
			  "false negatives (listed addresses not dropped)");
	bw_list_free(&src);
}

#define NONMEMBERS 100000

/*
 * A synthetic list: IPv4 inside 100.0.0.0/8, IPv6 inside 2001:db8::/32, at
 * lengths that get expanded. Everything outside those two is a non-member
 * by construction, without asking any trie.
 */
static char *write_synthetic(void)
{
	static const struct {
		int family;
		unsigned int plen, n;
	} mix[] = { { BW_V4, 32, 4000 },  { BW_V4, 24, 1000 },
		    { BW_V4, 22, 200 },	  { BW_V4, 19, 20 },
		    { BW_V6, 128, 2000 }, { BW_V6, 64, 500 },
		    { BW_V6, 48, 300 },	  { BW_V6, 44, 50 } };
	static char path[128];
	struct bw_prefix p;
	char txt[64];
	size_t i, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s/synthetic.txt", lf_tmp_dir());
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return NULL;
	for (i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		for (j = 0; j < mix[i].n; j++) {
			p = (struct bw_prefix){ .family = (__u8)mix[i].family,
						.plen = (__u8)mix[i].plen };
			if (p.family == BW_V4) {
				p.lo = bw_mask_v4(0x64000000 |
							  (lf_rnd() & 0xffffff),
						  p.plen);
			} else {
				p.hi = bw_mask64(0x20010db800000000ULL |
							 (lf_rnd() >> 32),
						 p.plen);
				p.lo = p.plen > 64 ? lf_rnd() : 0;
			}
			fprintf(f, "%s\n", bw_prefix_str(&p, txt, sizeof(txt)));
		}
	}
	fclose(f);
	return path;
}

/* Random addresses outside 100.0.0.0/8 and 2001:db8::/32, half each. */
static void nonmembers(struct bw_prefix *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i & 1) {
			a[i] = lf_addr_at(BW_V6,
					  (u128)lf_rnd() << 64 | lf_rnd());
			if ((a[i].hi >> 32) == 0x20010db8)
				a[i].hi ^= 1ULL << 63;
			continue;
		}
		a[i] = lf_addr_at(BW_V4, (__u32)lf_rnd());
		if ((a[i].lo >> 24) == 100)
			a[i].lo ^= 1U << 31;
	}
}

static size_t bloom_hits(const void *mem, const struct bw_prefix *a, size_t n,
			 struct bw_prefix *hits)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (bw_filter_lookup(mem, &a[i], NULL))
			hits[k++] = a[i];
	return k;
}

/*
 * The same filter (same keys, same seed) without and with verify. Without,
 * the Bloom hits among 100,000 non-members are real drops; with, not one
 * non-member is dropped and exactly those hits are counted in false_pos.
 */
BW_TEST(test_verify_zero_false_positives)
{
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT;
	struct bw_prefix *a = NULL, *hits = NULL;
	struct bw_stats s0, s1;
	struct bw_build_req req;
	size_t nhits, drops;
	struct bw_dp dp = {};
	char *files[1];

	if (!bw_dp_open(&dp) || !lf_tmp_setup())
		goto out;
	files[0] = write_synthetic();
	a = calloc(NONMEMBERS, sizeof(*a));
	hits = calloc(NONMEMBERS, sizeof(*hits));
	if (!files[0] || !ASSERT_OK_PTR(a, "calloc") ||
	    !ASSERT_OK_PTR(hits, "calloc"))
		goto out;
	nonmembers(a, NONMEMBERS);
	lf_req_init(&req, files, 1, false, 0, 1);
	req.opts.fpr = 0.02; /* a Bloom filter with plenty of false hits */
	if (!ASSERT_OK(bw_build_lists(&req, &b1), "build") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b1, NULL), "swap"))
		goto out;
	nhits = bloom_hits(b1.filter.mem, a, NONMEMBERS, hits);
	printf("  %zu of %d non-members hit the Bloom filter (target fpr 2%%)\n",
	       nhits, NONMEMBERS);
	ASSERT_GE(nhits, 100, "Bloom hits without verify");
	lf_run_all(&dp, hits, nhits, &drops);
	ASSERT_EQ(drops, nhits, "without verify every Bloom hit drops");

	lf_req_init(&req, files, 1, true, 1, 2);
	req.opts.fpr = 0.02;
	if (!ASSERT_OK(bw_build_lists(&req, &b2), "build verify") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b2, NULL), "swap verify"))
		goto out;
	ASSERT_EQ(bloom_hits(b2.filter.mem, a, NONMEMBERS, hits), nhits,
		  "the verify filter has the same Bloom hits");
	bw_dp_stats(&dp, &s0);
	lf_run_all(&dp, a, NONMEMBERS, &drops);
	bw_dp_stats(&dp, &s1);
	ASSERT_EQ(drops, 0, "non-members dropped in verify mode");
	ASSERT_EQ(s1.dropped_v4 + s1.dropped_v6 - s0.dropped_v4 - s0.dropped_v6,
		  0, "dropped counters");
	ASSERT_EQ(s1.false_pos - s0.false_pos, nhits,
		  "false_pos counts exactly the Bloom hits");
	ASSERT_EQ(s1.passed - s0.passed, NONMEMBERS, "passed");
	expect_members(&dp, files[0]);
out:
	free(a);
	free(hits);
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}

/* ---- verify mode with the real lists ------------------------------------- */

/*
 * Is a covered by a merged (disjoint, sorted) list? Binary search for the
 * last prefix starting at or before a: userspace, independent of any trie.
 */
static bool covered(const struct bw_list *m, const struct bw_prefix *a)
{
	size_t lo = 0, hi, mid, base = a->family == BW_V4 ? 0 : m->n4;
	u128 x = lf_addr_num(a);
	struct bw_prefix p;

	hi = a->family == BW_V4 ? m->n4 : m->n6;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		bw_list_prefix(m, base + mid, &p);
		if (lf_addr_num(&p) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	bw_list_prefix(m, base + lo - 1, &p);
	return x - lf_addr_num(&p) <= lf_span_of(&p);
}

/* Random addresses: IPv4 over the whole space, IPv6 mostly in 2000::/4. */
static void random_addrs(struct bw_prefix *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i % 4 == 3)
			a[i] = lf_addr_at(
				BW_V6, ((u128)lf_rnd() << 64 | lf_rnd()) >> 4 |
					       (u128)2 << 124);
		else
			a[i] = lf_addr_at(BW_V4, (__u32)lf_rnd());
	}
}

/* Members of the sample drop, non-members pass; false_pos counts the hits. */
static void check_sample(struct bw_dp *dp, const void *mem,
			 const struct bw_list *merged)
{
	size_t i, n = NONMEMBERS, members = 0, hits = 0, drops;
	struct bw_stats s0, s1;
	struct bw_prefix *a;

	a = calloc(n, sizeof(*a));
	if (!ASSERT_OK_PTR(a, "calloc"))
		return;
	random_addrs(a, n);
	for (i = 0; i < n; i++) {
		if (covered(merged, &a[i]))
			members++;
		else
			hits += bw_filter_lookup(mem, &a[i], NULL);
	}
	bw_dp_stats(dp, &s0);
	lf_run_all(dp, a, n, &drops);
	bw_dp_stats(dp, &s1);
	printf("  sample of %zu: %zu listed, %zu unlisted Bloom hits\n", n,
	       members, hits);
	ASSERT_EQ(drops, members, "dropped = listed (no false positive)");
	ASSERT_EQ(s1.false_pos - s0.false_pos, hits,
		  "false_pos = unlisted Bloom hits");
	ASSERT_GE(members, 1, "the sample has listed addresses");
	/* Without verify these would be drops: the filter keeps its target. */
	ASSERT_LE(hits, 2 * 0.001 * (n - members), "Bloom false positives");
	free(a);
}

/*
 * The acceptance lists, together, in verify mode through the CLI's build:
 * every listed prefix drops at its first, last and a random address; on a
 * random sample drops are exactly the listed addresses.
 */
BW_TEST(test_verify_real_lists)
{
	const char *dir = bw_test_data_dir();
	struct bw_built b = BW_BUILT_INIT;
	char paths[LF_NREAL][LF_PATH_MAX], *files[LF_NREAL];
	struct bw_list src, merged;
	struct bw_dp dp = {};

	bw_list_init(&src);
	bw_list_init(&merged);
	if (!dir)
		goto out;
	lf_real_lists(dir, paths, files);
	if (!bw_dp_open(&dp) || !lf_load_src(files, LF_NREAL, &src) ||
	    !lf_load_src(files, LF_NREAL, &merged) ||
	    !lf_build_swap(&dp, files, LF_NREAL, true, 1, &b))
		goto out;
	bw_cidr_merge(&merged, NULL);
	ASSERT_EQ(b.exact_entries, merged.n4 + merged.n6, "exact entries");
	ASSERT_EQ(bw_lpm_count(b.exact_fd), merged.n4 + merged.n6,
		  "entries in the kernel's trie");
	ASSERT_EQ(lf_member_misses(&dp, &src), 0, "false negatives");
	check_sample(&dp, b.filter.mem, &merged);
out:
	bw_built_close(&b);
	bw_dp_close(&dp);
	bw_list_free(&src);
	bw_list_free(&merged);
}

/*
 * The real lists with and without verify, and with an allowlist swapped
 * in (the CLI's way: the swap sets BW_F_ALLOW, the program is loaded for
 * it): an unlisted address takes its Bloom outcome, a listed one drops,
 * confirmed in verify mode, and passes as `allowed` once allowlisted.
 * `make bench` (part c) times these same packets.
 */
BW_TEST(test_verify_allow_real_lists)
{
	const char *const allowed[] = { "10.1.2.3", NULL };
	struct bw_built b1 = BW_BUILT_INIT, b2 = BW_BUILT_INIT;
	char paths[LF_NREAL][LF_PATH_MAX], *files[LF_NREAL];
	struct bw_prefix listed = bw_addr("10.1.2.3");
	struct bw_prefix unlisted = bw_addr("8.8.8.8");
	const char *dir = bw_test_data_dir();
	const char *allow_file[1];
	struct bw_list allow;
	struct bw_dp dp = {};

	bw_list_init(&allow);
	if (!dir || !bw_dp_open(&dp) || !lf_tmp_setup())
		goto out;
	lf_real_lists(dir, paths, files);
	if (!lf_build_swap(&dp, files, LF_NREAL, false, 1, &b1))
		goto out;
	lf_expect(&dp, &unlisted, lf_outside(b1.filter.mem, &unlisted));
	lf_expect(&dp, &listed, BW_OUT_DROP_V4);
	if (!lf_build_swap(&dp, files, LF_NREAL, true, 2, &b2))
		goto out;
	lf_expect(&dp, &unlisted, lf_outside(b2.filter.mem, &unlisted));
	lf_expect(&dp, &listed, BW_OUT_DROP_V4);
	allow_file[0] = lf_write_list("allow.txt", allowed);
	if (!allow_file[0] ||
	    !ASSERT_OK(bw_load_allow("dp", allow_file, 1, false, &allow),
		       "allow") ||
	    !ASSERT_OK(lf_swap_in(&dp, &b2, &allow), "swap with allowlist"))
		goto out;
	lf_expect(&dp, &listed, BW_OUT_ALLOWED);
	lf_expect(&dp, &unlisted, lf_outside(b2.filter.mem, &unlisted));
out:
	bw_list_free(&allow);
	bw_built_close(&b1);
	bw_built_close(&b2);
	bw_dp_close(&dp);
	lf_tmp_cleanup();
}
