// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Real lists and random samples through the BPF program: no listed address
 * may pass (zero false negatives), and the false positives the program
 * produces are exactly those bw_filter_lookup() predicts, at about the
 * target rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "lists/list_load.h"
#include "test_helpers.h"

#define SAMPLE_SEED 0x0b100dULL

static struct bw_prefix v4_prefix(__u32 addr, __u8 plen)
{
	struct bw_prefix p = { .lo = addr, .family = BW_V4, .plen = plen };

	return p;
}

static struct bw_prefix v6_prefix(__u64 hi, __u64 lo, __u8 plen)
{
	struct bw_prefix p = {
		.hi = hi, .lo = lo, .family = BW_V6, .plen = plen
	};

	return p;
}

/* A packet from each entry (its first address) must be dropped. */
static void expect_all_dropped(struct bw_dp *dp, const struct bw_list *l)
{
	struct bw_pkt_spec s = { .payload = 16 };
	struct bw_prefix dst4 = bw_addr("192.0.2.1"),
			 dst6 = bw_addr("2001:db8::1");
	struct bw_stats before, after;
	size_t i, missed4 = 0, missed6 = 0;
	__u8 buf[BW_PKT_MAX];
	struct bw_prefix p;
	size_t len;

	if (!ASSERT_OK(bw_dp_stats(dp, &before), "stats before"))
		return;
	for (i = 0; i < l->n4; i++) {
		p = v4_prefix(bw_v4key_addr(l->v4[i]), bw_v4key_plen(l->v4[i]));
		len = bw_pkt_build_addr(&s, &p, &dst4, buf);
		if (bw_dp_verdict(dp, buf, len) != XDP_DROP && missed4++ < 5)
			fprintf(stderr, "  false negative: v4 entry %zu\n", i);
	}
	for (i = 0; i < l->n6; i++) {
		p = v6_prefix(l->v6[i].hi, l->v6[i].lo, l->v6[i].plen);
		len = bw_pkt_build_addr(&s, &p, &dst6, buf);
		if (bw_dp_verdict(dp, buf, len) != XDP_DROP && missed6++ < 5)
			fprintf(stderr, "  false negative: v6 entry %zu\n", i);
	}
	ASSERT_EQ(missed4, 0, "IPv4 false negatives");
	ASSERT_EQ(missed6, 0, "IPv6 false negatives");
	if (!ASSERT_OK(bw_dp_stats(dp, &after), "stats after"))
		return;
	ASSERT_EQ(after.dropped_v4 - before.dropped_v4, l->n4, "dropped_v4");
	ASSERT_EQ(after.dropped_v6 - before.dropped_v6, l->n6, "dropped_v6");
	ASSERT_EQ(after.passed - before.passed, 0, "passed");
}

BW_TEST(test_lists_no_false_negatives)
{
	static const char *const files[] = {
		"ipv4/ipsum/ipsum.txt",
		"ipv6/openshield/tor-exit-nodes_ipv6.txt",
	};
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_list_opts lo = {};
	const char *dir = bw_test_data_dir();
	struct bw_build_opts o;
	struct bw_list l;
	struct bw_dp dp = {};
	char path[512];
	size_t i;

	bw_list_init(&l);
	if (!dir)
		goto out;
	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (!ASSERT_OK(bw_list_load(&l, path, &lo), path))
			goto out;
	}
	bw_list_finish(&l);
	ASSERT_GE(l.n4, 100000, "ipsum entries");
	ASSERT_GE(l.n6, 600, "tor exit IPv6 entries");
	bw_build_opts_init(&o);
	if (ASSERT_OK(bw_dp_commit_list(&dp, &l, &o, &m), "commit filter"))
		expect_all_dropped(&dp, &l);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
	bw_list_free(&l);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_v6key(const void *a, const void *b)
{
	const struct bw_v6key *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->plen - (int)y->plen;
}

/*
 * Membership by binary search over a sorted copy of the list's keys (the
 * list's own order is the builder's business).
 */
struct members {
	__u64 *v4;
	struct bw_v6key *v6;
	size_t n4, n6;
};

static int members_init(struct members *s, const struct bw_list *l)
{
	s->n4 = l->n4;
	s->n6 = l->n6;
	s->v4 = malloc((s->n4 + 1) * sizeof(*s->v4));
	s->v6 = malloc((s->n6 + 1) * sizeof(*s->v6));
	if (!s->v4 || !s->v6)
		return -ENOMEM;
	memcpy(s->v4, l->v4, s->n4 * sizeof(*s->v4));
	memcpy(s->v6, l->v6, s->n6 * sizeof(*s->v6));
	qsort(s->v4, s->n4, sizeof(*s->v4), cmp_u64);
	qsort(s->v6, s->n6, sizeof(*s->v6), cmp_v6key);
	return 0;
}

static void members_free(struct members *s)
{
	free(s->v4);
	free(s->v6);
}

static bool is_member(const struct members *s, const struct bw_prefix *p)
{
	if (p->family == BW_V4) {
		__u64 k = bw_v4key((__u32)p->lo, 32);

		return bsearch(&k, s->v4, s->n4, sizeof(k), cmp_u64);
	} else {
		struct bw_v6key k = { .hi = p->hi, .lo = p->lo, .plen = 128 };

		return bsearch(&k, s->v6, s->n6, sizeof(k), cmp_v6key);
	}
}

static struct bw_prefix random_addr(int family, __u64 *rng)
{
	if (family == BW_V4)
		return v4_prefix((__u32)bw_test_splitmix64(rng), 32);
	/* Global unicast 2000::/3, as real traffic would be. */
	return v6_prefix((bw_test_splitmix64(rng) >> 3) | 0x2000000000000000ULL,
			 bw_test_splitmix64(rng), 128);
}

static int random_list(struct bw_list *l, int family, size_t n, __u64 *rng)
{
	struct bw_prefix p;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		p = random_addr(family, rng);
		err = bw_list_push(l, &p);
		if (err)
			return err;
	}
	bw_list_finish(l);
	return 0;
}

struct sample {
	size_t sent;
	size_t fp;	 /* dropped by the BPF program */
	size_t disagree; /* BPF verdict != bw_filter_lookup() */
};

/* Random non-members through the program and through the userspace twin. */
static void send_sample(struct bw_dp *dp, const struct members *set,
			const struct bw_filter_map *m, int family,
			size_t probes, __u64 *rng, struct sample *out)
{
	struct bw_prefix dst =
		bw_addr(family == BW_V4 ? "192.0.2.1" : "2001:db8::1");
	struct bw_pkt_spec s = { .payload = 16 };
	__u8 buf[BW_PKT_MAX];
	int bpf_hit, user_hit;
	struct bw_prefix p;
	size_t len;

	memset(out, 0, sizeof(*out));
	while (out->sent < probes) {
		p = random_addr(family, rng);
		if (is_member(set, &p))
			continue;
		len = bw_pkt_build_addr(&s, &p, &dst, buf);
		bpf_hit = bw_dp_verdict(dp, buf, len) == XDP_DROP;
		user_hit = bw_filter_lookup(m->mem, &p, NULL) == 1;
		out->disagree += bpf_hit != user_hit;
		out->fp += bpf_hit;
		out->sent++;
	}
}

/* Counters and verdicts of a sample; 1.5x the target is > 5 sigma. */
static void check_sample(struct bw_dp *dp, const struct sample *r,
			 const struct bw_stats *before, double fpr)
{
	struct bw_stats after;

	ASSERT_EQ(r->disagree, 0, "BPF and bw_filter_lookup() verdicts differ");
	ASSERT_LE(r->fp, 1.5 * fpr * r->sent, "false positives");
	ASSERT_GE(r->fp, 1, "some false positives (the sample exercises hits)");
	if (!ASSERT_OK(bw_dp_stats(dp, &after), "stats after"))
		return;
	ASSERT_EQ(bw_stats_packets(&after) - bw_stats_packets(before), r->sent,
		  "packets");
	ASSERT_EQ((after.dropped_v4 + after.dropped_v6) -
			  (before->dropped_v4 + before->dropped_v6),
		  r->fp, "dropped");
	ASSERT_EQ(after.passed - before->passed, r->sent - r->fp, "passed");
}

/*
 * `entries` random members at fpr, then `probes` random non-members: every
 * BPF verdict must equal bw_filter_lookup()'s and the false-positive share
 * stay near the target.
 */
static void fp_sample(int family, size_t entries, size_t probes, double fpr)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct members set = {};
	__u64 rng = SAMPLE_SEED;
	struct bw_build_opts o;
	struct bw_stats before;
	struct bw_dp dp = {};
	struct sample r;
	struct bw_list l;

	bw_list_init(&l);
	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(random_list(&l, family, entries, &rng), "random list") ||
	    !ASSERT_OK(members_init(&set, &l), "member set"))
		goto out;
	bw_build_opts_init(&o);
	o.fpr = fpr;
	o.seed = 0x600dfee1;
	if (!ASSERT_OK(bw_dp_commit_list(&dp, &l, &o, &m), "commit filter") ||
	    !ASSERT_OK(bw_dp_stats(&dp, &before), "stats before"))
		goto out;
	send_sample(&dp, &set, &m, family, probes, &rng, &r);
	printf("  %s: %zu entries, %zu non-members, %zu false positives "
	       "(%.5f, target %.5f)\n",
	       family == BW_V4 ? "IPv4" : "IPv6", l.n4 + l.n6, r.sent, r.fp,
	       (double)r.fp / r.sent, fpr);
	check_sample(&dp, &r, &before, fpr);
out:
	members_free(&set);
	bw_filter_close(&m);
	bw_dp_close(&dp);
	bw_list_free(&l);
}

BW_TEST(test_lists_false_positives_v4)
{
	fp_sample(BW_V4, 100000, 200000, 0.001);
}

BW_TEST(test_lists_false_positives_v6)
{
	fp_sample(BW_V6, 100000, 100000, 0.001);
}
