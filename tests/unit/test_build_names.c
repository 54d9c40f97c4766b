// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The builder's names (user/filter/builder.c, user/filter/bloom_names.c): lists with
 * domain entries give a format 3 filter with the DNS block and two name
 * regions whose bits are really set (every entry's key tests positive
 * through bw_name_lookup, the data path's twin; other names mostly
 * negative, at about the rate the fill estimates), the record area after
 * them, the DNS options and added names kept in records, and the checks a
 * filter from a map or an image must pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "lists/list_load.h"
#include "lists/names.h"
#include "test_helpers.h"
#include "unit.h"

/* Writes lines to a temporary list file; its path in path (free nothing). */
static bool write_list(char *path, const char *text)
{
	int fd = mkstemp(path);
	ssize_t len = (ssize_t)strlen(text);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, (size_t)len) == len;
	close(fd);
	return ok;
}

/* Builds req into a fresh buffer: the filter, or NULL (err set). */
static void *build_mem(const struct bw_build_req *req, struct bw_build *b,
		       int *err)
{
	void *mem;

	*err = bw_build_plan(req, b);
	if (*err)
		return NULL;
	mem = calloc(bw_build_blocks(b), BW_BLOCK_BYTES);
	if (!mem) {
		bw_build_free(b);
		*err = -ENOMEM;
		return NULL;
	}
	bw_build_fill(b, mem);
	return mem;
}

/* The verdict text of a name: "-", "exact:N" or "subtree:N" (N labels). */
static const char *judge(const void *mem, const char *name, char *buf,
			 size_t len)
{
	struct bw_name_hit hit;
	int ret = bw_name_lookup(mem, name, strlen(name), &hit);

	if (ret < 0)
		return "bad";
	if (!ret)
		return "-";
	snprintf(buf, len, "%s:%d",
		 hit.region == BW_NAME_SUBTREE ? "subtree" : "exact",
		 hit.labels);
	return buf;
}

#define ASSERT_JUDGE(mem, name, want)                                          \
	do {                                                                   \
		char ___b[32];                                                 \
		__ASSERT_MADE();                                               \
		const char *___j = judge((mem), (name), ___b, sizeof(___b));   \
		if (strcmp(___j, (want)))                                      \
			__ASSERT_FAIL("%s: got %s, expected %s", (name), ___j, \
				      (want));                                 \
	} while (0)

static const char MIXED[] = "# every form, and an address\n"
			    "0.0.0.0 ads.example.com tracker.example.net\n"
			    "127.0.0.1 localhost\n"
			    "Exact.Example.ORG.\n"
			    "*.doubleclick.net\n"
			    "||ad.com^\n"
			    "@@||good.ad.com^\n"
			    "10.0.0.0/8\n";

BW_TEST(test_build_names_regions)
{
	char path[] = "/tmp/bw-names-XXXXXX";
	const char *lists[] = { path };
	const struct bw_dns_hdr *dns;
	struct bw_build_req req;
	struct bw_records rec;
	struct bw_build b;
	__u32 nblocks;
	void *mem;
	int err;

	ASSERT_TRUE(write_list(path, MIXED), "list file");
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.seed = 7;
	req.opts.dns_action = BW_DNS_REFUSED;
	req.opts.dns_ttl = 60;
	mem = build_mem(&req, &b, &err);
	unlink(path);
	if (!ASSERT_OK_PTR(mem, "build"))
		return;
	nblocks = bw_build_blocks(&b);
	ASSERT_OK(bw_filter_check(mem, nblocks), "the filter checks");
	ASSERT_EQ(b.plan.hdr.version, 3, "format 3");
	ASSERT_TRUE(b.plan.hdr.flags & BW_F_DNS, "BW_F_DNS");
	dns = bw_filter_dns(mem);
	ASSERT_EQ(dns->magic, BW_DNS_MAGIC, "DNS block magic");
	ASSERT_EQ(bw_dns_block(mem), b.plan.hdr.region_end[BW_REGIONS - 1],
		  "the DNS block follows the address regions");
	ASSERT_EQ(dns->action, BW_DNS_REFUSED, "action");
	ASSERT_EQ(dns->ttl, 60, "ttl");
	ASSERT_EQ(dns->flags, BW_DNS_F_ALLOW, "a @@ line sets BW_DNS_F_ALLOW");
	ASSERT_EQ(dns->region_entries[BW_NAME_EXACT], 3, "exact entries");
	ASSERT_EQ(dns->region_entries[BW_NAME_SUBTREE], 2, "subtree entries");
	ASSERT_EQ(b.sum.local, 1, "localhost skipped");
	ASSERT_EQ(b.allow_names.ndom, 1, "the allow entry goes to the map");
	ASSERT_EQ(bw_records_start(mem), dns->region_end[BW_NAME_SUBTREE],
		  "the record area follows the name regions");

	ASSERT_JUDGE(mem, "ads.example.com", "exact:3");
	ASSERT_JUDGE(mem, "ADS.Example.Com.", "exact:3");
	ASSERT_JUDGE(mem, "tracker.example.net", "exact:3");
	ASSERT_JUDGE(mem, "exact.example.org", "exact:3");
	ASSERT_JUDGE(mem, "www.ads.example.com", "-");
	ASSERT_JUDGE(mem, "example.com", "-");
	ASSERT_JUDGE(mem, "doubleclick.net", "subtree:2");
	ASSERT_JUDGE(mem, "a.b.c.doubleclick.net", "subtree:2");
	ASSERT_JUDGE(mem, "ad.com", "subtree:2");
	ASSERT_JUDGE(mem, "x.ad.com", "subtree:2");
	ASSERT_JUDGE(mem, "bad.com", "-");
	ASSERT_JUDGE(mem, "notdoubleclick.net", "-");
	/* The allow entry is no key: good.ad.com meets the block of ad.com. */
	ASSERT_JUDGE(mem, "good.ad.com", "subtree:2");
	ASSERT_JUDGE(mem, "localhost", "-");

	ASSERT_OK(bw_records_read(mem, nblocks, &rec), "records");
	ASSERT_TRUE(rec.have_dns, "the DNS options are recorded");
	ASSERT_EQ(rec.dns.action, BW_DNS_REFUSED, "recorded action");
	ASSERT_EQ(rec.dns.ttl, 60, "recorded ttl");
	ASSERT_EQ(rec.dns.opts, 0, "no --subdomains");
	bw_records_free(&rec);
	bw_build_free(&b);
	free(mem);
}

/* --subdomains and names added at run time; a filter without names. */
BW_TEST(test_build_names_subdomains_added)
{
	char path[] = "/tmp/bw-names-XXXXXX";
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_records rec;
	struct bw_entries added;
	struct bw_build b;
	void *mem;
	int err;

	ASSERT_TRUE(write_list(path, "example.com\n10.1.2.3\n"), "list");
	bw_entries_init(&added);
	bw_entries_push(&added, bw_key_name("late.test", 9, 0), 0);
	bw_entries_push(&added, bw_key_name("wild.test", 9, BW_DOM_SUBTREE), 0);
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.subdomains = true;
	req.added = &added;
	mem = build_mem(&req, &b, &err);
	if (ASSERT_OK_PTR(mem, "build")) {
		ASSERT_JUDGE(mem, "www.example.com", "subtree:2");
		ASSERT_JUDGE(mem, "x.late.test", "subtree:2");
		ASSERT_JUDGE(mem, "x.wild.test", "subtree:2");
		ASSERT_OK(bw_records_read(mem, bw_build_blocks(&b), &rec),
			  "records");
		ASSERT_EQ(bw_entries_count(&rec.added, BW_ENTRY_NAME), 2,
			  "added names recorded as given");
		ASSERT_EQ(rec.added.v[0].d.flags, 0, "exact as added");
		ASSERT_EQ(rec.dns.opts, BW_REC_DNS_SUBDOMAINS,
			  "--subdomains recorded");
		bw_records_free(&rec);
		bw_build_free(&b);
		free(mem);
	}

	/* Only addresses: format 3, no DNS block, records after region 7. */
	unlink(path);
	strcpy(path, "/tmp/bw-names-XXXXXX");
	ASSERT_TRUE(write_list(path, "10.1.2.3\n"), "list");
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	mem = build_mem(&req, &b, &err);
	unlink(path);
	if (ASSERT_OK_PTR(mem, "build without names")) {
		ASSERT_EQ(b.plan.hdr.version, 3, "format 3");
		ASSERT_FALSE(b.plan.hdr.flags & BW_F_DNS, "no BW_F_DNS");
		ASSERT_TRUE(bw_filter_dns(mem) == NULL, "no DNS block");
		ASSERT_EQ(bw_records_start(mem),
			  b.plan.hdr.region_end[BW_REGIONS - 1],
			  "records after the address regions");
		ASSERT_JUDGE(mem, "example.com", "-");
		ASSERT_OK(bw_filter_check(mem, bw_build_blocks(&b)), "check");
		bw_build_free(&b);
		free(mem);
	}
	bw_entries_free(&added);
}

/*
 * A watch's build (adds_live) of a list without names and two added
 * names: the names are recorded but not in the blocks, and both name
 * regions exist, sized with room for them (the watch's hook sets them);
 * the same build without adds_live has them in the blocks.
 */
BW_TEST(test_build_names_added_live)
{
	char path[] = "/tmp/bw-names-XXXXXX";
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_records rec;
	struct bw_entries added;
	struct bw_build b;
	void *mem;
	int err, live;

	ASSERT_TRUE(write_list(path, "10.1.2.3\n"), "list");
	bw_entries_init(&added);
	bw_entries_push(&added, bw_key_name("late.test", 9, 0), 0);
	bw_entries_push(&added, bw_key_name("wild.test", 9, BW_DOM_SUBTREE), 0);
	for (live = 1; live >= 0; live--) {
		bw_build_req_init(&req, "test");
		req.lists = lists;
		req.nlists = 1;
		req.added = &added;
		req.adds_live = live;
		mem = build_mem(&req, &b, &err);
		if (!ASSERT_OK_PTR(mem, "build"))
			break;
		ASSERT_TRUE(bw_name_has_region(mem, false), "an exact region");
		ASSERT_TRUE(bw_name_has_region(mem, true), "a subtree region");
		ASSERT_JUDGE(mem, "late.test", live ? "-" : "exact:2");
		ASSERT_JUDGE(mem, "x.wild.test", live ? "-" : "subtree:2");
		if (live)
			ASSERT_GE(b.plan.dns.region_end[BW_NAME_SUBTREE] -
					  bw_name_region_start(&b.plan.hdr,
							       &b.plan.dns,
							       BW_NAME_EXACT),
				  2 * 60, "room for thousands of names");
		ASSERT_OK(bw_records_read(mem, bw_build_blocks(&b), &rec),
			  "records");
		ASSERT_EQ(bw_entries_count(&rec.added, BW_ENTRY_NAME), 2,
			  "the names recorded");
		bw_records_free(&rec);
		bw_build_free(&b);
		free(mem);
	}
	unlink(path);
	bw_entries_free(&added);
}

/* A random name of 2 or 3 labels into buf; its length. */
static size_t random_name(__u64 *s, char *buf)
{
	__u64 r = bw_test_splitmix64(s);
	int labels = 2 + (int)(r & 1), i, j, n;
	size_t len = 0;

	for (i = 0; i < labels; i++) {
		n = 3 + (int)((r >> (8 * i + 1)) % 10);
		if (i)
			buf[len++] = '.';
		for (j = 0; j < n; j++)
			buf[len++] = (char)('a' + bw_test_splitmix64(s) % 26);
	}
	return len;
}

/*
 * 20,000 exact and 5,000 subtree names at --fpr 0.001:
 * every entry tests positive, and 1,000,000 other names hit at about the
 * rate the fill estimates (the regions' rates, weighted by the keys a
 * name of 2 or 3 labels tests in each).
 */
BW_TEST(test_build_names_fpr)
{
	struct bw_build_opts o = { .fpr = 0.001, .seed = 99 };
	double est[BW_NAME_REGIONS], expect;
	__u64 s = 1, set, total, hits = 0, trials = 1000000, i;
	char name[64];
	struct bw_name_hit hit;
	struct bw_plan plan;
	struct bw_list l;
	size_t len, miss = 0;
	void *mem;
	int n;

	bw_list_init(&l);
	for (i = 0; i < 25000; i++) {
		len = random_name(&s, name);
		bw_domain_push(&l, name, len, i < 20000 ? 0 : BW_DOM_SUBTREE);
	}
	bw_list_finish(&l);
	if (!ASSERT_OK(bw_plan_filter(&l, &o, &plan), "plan"))
		return;
	mem = calloc(plan.nblocks, BW_BLOCK_BYTES);
	if (!ASSERT_OK_PTR(mem, "memory"))
		return;
	bw_fill_filter(mem, &plan, &l);
	for (i = 0; i < l.ndom; i++)
		miss += bw_name_lookup(mem, bw_domain_name(&l, &l.dom[i]),
				       l.dom[i].len, &hit) != 1;
	ASSERT_EQ(miss, 0, "no false negatives");
	for (n = 0; n < BW_NAME_REGIONS; n++)
		bw_name_region_fill(mem, n, &set, &total, &est[n]);
	s = 0xfeed;
	for (i = 0; i < trials; i++) {
		len = random_name(&s, name);
		hits += bw_name_lookup(mem, name, len, &hit) == 1;
	}
	/* One exact key and 2.5 subtree keys per name, on average. */
	expect = est[BW_NAME_EXACT] + 2.5 * est[BW_NAME_SUBTREE];
	printf("  name regions: est. exact %.3g%%, subtree %.3g%%; per name expected %.3g%%, measured %.3g%% (%llu of %llu)\n",
	       est[0] * 100, est[1] * 100, expect * 100,
	       (double)hits / trials * 100, (unsigned long long)hits,
	       (unsigned long long)trials);
	ASSERT_TRUE(est[0] <= 0.001 && est[1] <= 0.001,
		    "each region meets the target per key");
	ASSERT_TRUE((double)hits / trials <= expect * 1.3 + 1e-5,
		    "measured rate near the estimate");
	ASSERT_TRUE((double)hits / trials >= expect * 0.7 - 1e-5,
		    "measured rate near the estimate (not too low: bits set)");
	free(mem);
	bw_list_free(&l);
}

/* ---- the rate per query, by labels, with real names ---- */

#define QUERY_SEEDS 2
#define QUERY_MAX_LABELS 8

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int labels_of(const char *name)
{
	int n = 1;

	for (; *name; name++)
		n += *name == '.';
	return n;
}

/* Listed (in the sorted set) as the name or a parent of it. */
static bool covered(char **set, size_t n, const char *name)
{
	const char *p = name;

	for (;;) {
		if (bsearch(&p, set, n, sizeof(*set), cmp_str))
			return true;
		p = strchr(p, '.');
		if (!p++)
			return false;
	}
}

/* base grown to want labels by fresh random labels in front of it. */
static size_t grow_name(__u64 *s, const char *base, int want, char *buf)
{
	int i, j, len;
	size_t out = 0;

	for (i = labels_of(base); i < want; i++) {
		len = 3 + (int)(bw_test_splitmix64(s) % 8);
		for (j = 0; j < len; j++)
			buf[out++] = "abcdefghijklmnopqrstuvwxyz0123456789"
				[bw_test_splitmix64(s) % 36];
		buf[out++] = '.';
	}
	strcpy(buf + out, base);
	return out + strlen(base);
}

struct rate {
	__u64 hits[QUERY_MAX_LABELS + 1], trials[QUERY_MAX_LABELS + 1];
};

/* Queries the names of q, grown to 2..8 labels, against one filter. */
static void query_rates(const void *mem, char **q, size_t nq, char **set,
			size_t nset, __u64 seed, struct rate *r)
{
	struct bw_name_hit hit;
	char name[BW_NAME_MAX + 64];
	__u64 s = seed;
	size_t i, len;
	int n;

	for (n = 2; n <= QUERY_MAX_LABELS; n++) {
		for (i = 0; i < nq; i++) {
			if (labels_of(q[i]) > n)
				continue;
			len = grow_name(&s, q[i], n, name);
			if (len > BW_NAME_MAX || covered(set, nset, name))
				continue;
			r->trials[n]++;
			r->hits[n] += bw_name_lookup(mem, name, len, &hit) == 1;
		}
	}
}

/* Every other name of l into a block list (as subtrees if sub), the rest into q. */
static void split_names(const struct bw_list *l, bool sub, struct bw_list *blk,
			char **set, size_t *nset, char **q, size_t *nq)
{
	const struct bw_domain *d;
	size_t i;
	char *name;

	bw_list_init(blk);
	*nset = *nq = 0;
	for (i = 0; i < l->ndom; i++) {
		d = &l->dom[i];
		name = strndup(bw_domain_name(l, d), d->len);
		if (i % 2) {
			q[(*nq)++] = name;
			continue;
		}
		/* Half exact, half subtree when not all are subtrees. */
		bw_domain_push(blk, name, d->len,
			       sub || i % 4 ? BW_DOM_SUBTREE : 0);
		set[(*nset)++] = name;
	}
	bw_list_finish(blk);
	qsort(set, *nset, sizeof(*set), cmp_str);
}

/*
 * Subtree entries: a query of n labels tests n subtree keys and one exact
 * key, and the regions are sized for BW_NAME_FPR_LABELS of them, so --fpr
 * holds per query up to 5 labels and deeper names meet at most n / 5 of
 * it. Measured with StevenBlack's names: every other one listed (all as
 * subtrees, then half and half), the others queried, grown by random
 * labels in front to 2..8 labels, those a listed entry covers left out
 * (an exact set says which), two seeds pooled; within the bound plus 3
 * binomial sigma. The exact entries of an "exact" half are covered only by
 * their own name, which a grown query never is, so the set is right for both.
 */
BW_TEST(test_build_names_fpr_per_query_real)
{
	const double fpr = 0.001;
	struct bw_list_opts lo = { .domains = true };
	struct bw_build_opts o = { .fpr = fpr };
	char **set = NULL, **q = NULL, path[4096];
	size_t nset = 0, nq = 0, i;
	struct bw_plan plan;
	struct bw_list l, blk;
	double p, bound, sigma;
	struct rate r;
	int sub, n, seed;
	void *mem;

	if (!bw_test_data_dir())
		return;
	snprintf(path, sizeof(path), "%s/domains/stevenblack/hosts",
		 bw_test_data_dir());
	bw_list_init(&l);
	if (!ASSERT_OK(bw_list_load(&l, path, &lo), "hosts"))
		goto out;
	bw_list_finish(&l);
	set = calloc(l.ndom, sizeof(*set));
	q = calloc(l.ndom, sizeof(*q));
	if (!ASSERT_OK_PTR(set && q ? set : NULL, "memory"))
		goto out;
	for (sub = 1; sub >= 0; sub--) {
		split_names(&l, sub, &blk, set, &nset, q, &nq);
		memset(&r, 0, sizeof(r));
		for (seed = 1; seed <= QUERY_SEEDS; seed++) {
			o.seed = 0x9e37 * seed;
			if (!ASSERT_OK(bw_plan_filter(&blk, &o, &plan), "plan"))
				break;
			mem = calloc(plan.nblocks, BW_BLOCK_BYTES);
			if (!ASSERT_OK_PTR(mem, "memory"))
				break;
			bw_fill_filter(mem, &plan, &blk);
			query_rates(mem, q, nq, set, nset, 0xd1ce + seed, &r);
			free(mem);
		}
		for (n = 2; n <= QUERY_MAX_LABELS; n++) {
			p = (double)r.hits[n] / r.trials[n];
			bound = fpr * (n > BW_NAME_FPR_LABELS
					       ? (double)n / BW_NAME_FPR_LABELS
					       : 1.0);
			sigma = sqrt(bound * (1 - bound) / r.trials[n]);
			printf("  %s, %d labels: %.4f%% (%llu of %llu), bound %.4f%%\n",
			       sub ? "subtrees" : "half exact", n, p * 100,
			       (unsigned long long)r.hits[n],
			       (unsigned long long)r.trials[n], bound * 100);
			ASSERT_LE(p, bound + 3 * sigma, "rate per query");
			ASSERT_LE(10000, r.trials[n], "queries enough");
		}
		/* The measure sees false hits at all: bits were set. */
		ASSERT_LE(fpr / 4, (double)r.hits[5] / r.trials[5],
			  "5 labels: near the target, not far under it");
		for (i = 0; i < nset; i++)
			free(set[i]);
		for (i = 0; i < nq; i++)
			free(q[i]);
		bw_list_free(&blk);
	}
out:
	free(set);
	free(q);
	bw_list_free(&l);
}

/* Every domain list of the test data builds; each of its names blocks. */
BW_TEST(test_build_names_real_lists)
{
	static const char *const rel[] = {
		"domains/stevenblack/hosts",
		"domains/hagezi/personal.txt",
		"domains/blocklistproject/ransomware-nl.txt",
	};
	const char *dir = bw_test_data_dir();
	struct bw_list_opts lo = { .domains = true };
	char paths[3][4096];
	const char *lists[3];
	struct bw_build_req req;
	struct bw_name_hit hit;
	struct bw_build b;
	struct bw_list l;
	size_t i, miss = 0;
	void *mem;
	int err;

	if (!dir)
		return;
	bw_list_init(&l);
	for (i = 0; i < 3; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, rel[i]);
		lists[i] = paths[i];
		ASSERT_OK(bw_list_load(&l, paths[i], &lo), rel[i]);
	}
	bw_list_finish(&l);
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 3;
	mem = build_mem(&req, &b, &err);
	if (ASSERT_OK_PTR(mem, "the shared domain lists build")) {
		for (i = 0; i < l.ndom; i++)
			miss += bw_name_lookup(mem,
					       bw_domain_name(&l, &l.dom[i]),
					       l.dom[i].len, &hit) != 1;
		ASSERT_EQ(miss, 0, "every listed name blocks");
		ASSERT_EQ(b.plan.dns.region_entries[BW_NAME_EXACT], l.ndom,
			  "every name an exact entry");
		bw_build_free(&b);
		free(mem);
	}
	bw_list_free(&l);
}

/* What a map or an image must hold before a name of it is trusted. */
BW_TEST(test_filter_check_dns)
{
	char path[] = "/tmp/bw-names-XXXXXX";
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_dns_hdr *dns;
	struct bw_build b;
	struct bw_hdr *hdr;
	__u32 nblocks;
	void *mem, *copy;
	int err;

	ASSERT_TRUE(write_list(path, "a.example\n*.b.example\n"), "list");
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	mem = build_mem(&req, &b, &err);
	unlink(path);
	if (!ASSERT_OK_PTR(mem, "build"))
		return;
	nblocks = bw_build_blocks(&b);
	copy = malloc((size_t)nblocks * BW_BLOCK_BYTES);
	hdr = copy;
#define MUTATE(what, stmt)                                                \
	do {                                                              \
		memcpy(copy, mem, (size_t)nblocks *BW_BLOCK_BYTES);       \
		dns = (struct bw_dns_hdr *)((char *)copy +                \
					    (size_t)bw_dns_block(hdr) *   \
						    BW_BLOCK_BYTES);      \
		stmt;                                                     \
		ASSERT_EQ(bw_filter_check(copy, nblocks), -EINVAL, what); \
	} while (0)
	MUTATE("DNS block magic", dns->magic ^= 1);
	MUTATE("action", dns->action = BW_DNS_ACTIONS);
	MUTATE("region past the map", dns->region_end[1] = nblocks + 1);
	MUTATE("regions out of order",
	       dns->region_end[0] = dns->region_end[1] + 1);
	MUTATE("probes", dns->probes[0] = 12);
	MUTATE("format 2 with names", hdr->version = 2);
	MUTATE("DNS block past the map",
	       hdr->region_end[BW_REGIONS - 1] = nblocks);
#undef MUTATE
	/* A format 2 filter (bloomwall 0.2): read, its records after region 7. */
	memcpy(copy, mem, (size_t)nblocks * BW_BLOCK_BYTES);
	hdr->version = 2;
	hdr->flags &= (__u16)~BW_F_DNS;
	ASSERT_OK(bw_filter_check(copy, nblocks), "format 2 still checks");
	ASSERT_EQ(bw_records_start(copy), hdr->region_end[BW_REGIONS - 1],
		  "format 2: records after the address regions");
	free(copy);
	bw_build_free(&b);
	free(mem);
}

/* The names and DNS options round-trip through the record area. */
BW_TEST(test_records_names_round_trip)
{
	struct bw_records r, back;
	__u32 nblocks = 64;
	struct bw_hdr *hdr;
	void *mem = calloc(nblocks, BW_BLOCK_BYTES);

	if (!ASSERT_OK_PTR(mem, "memory"))
		return;
	hdr = mem;
	hdr->magic = BW_MAGIC;
	hdr->version = BW_VERSION;
	for (int i = 0; i < BW_REGIONS; i++)
		hdr->region_end[i] = BW_HDR_BLOCKS;
	bw_records_init(&r);
	ASSERT_EQ(bw_records_add(&r, bw_key_name("a.example", 9, 0)), 1, "add");
	ASSERT_EQ(
		bw_records_add(&r, bw_key_name("b.example", 9, BW_DOM_SUBTREE)),
		1, "add subtree");
	ASSERT_EQ(bw_records_add(&r, bw_key_name("a.example", 9, 0)), 0,
		  "add twice");
	r.have_dns = true;
	r.dns.action = BW_DNS_DROP;
	r.dns.ttl = 5;
	ASSERT_OK(bw_records_write(mem, nblocks, &r), "write");
	ASSERT_OK(bw_records_read(mem, nblocks, &back), "read");
	ASSERT_EQ(bw_entries_count(&back.added, BW_ENTRY_NAME), 2,
		  "names back");
	ASSERT_TRUE(
		back.added.v[1].d.flags == BW_DOM_SUBTREE &&
			!memcmp(bw_entry_name(&back.added, &back.added.v[1]),
				"b.example", 9),
		"the subtree name back");
	ASSERT_TRUE(back.have_dns && back.dns.action == BW_DNS_DROP &&
			    back.dns.ttl == 5,
		    "DNS options back");
	ASSERT_TRUE(bw_records_same_added(&r, &back), "the same adds");
	bw_records_drop(&back, 0);
	ASSERT_EQ(bw_records_find(&back,
				  bw_key_name("b.example", 9, BW_DOM_SUBTREE)),
		  0, "drop keeps the order");
	ASSERT_FALSE(bw_records_same_added(&r, &back), "differ after a drop");
	bw_records_free(&back);
	/* A name that is no checked name is a malformed area. */
	memcpy(r.added.names, "A.example", 9);
	ASSERT_OK(bw_records_write(mem, nblocks, &r), "write");
	ASSERT_EQ(bw_records_read(mem, nblocks, &back), -EINVAL,
		  "an unfolded name is refused");
	bw_records_free(&r);
	free(mem);
}

/* ---- a list read by two threads ---- */

/* The image bytes of lists built with threads; NULL on failure. */
static void *build_threads(const char *const *lists, int n,
			   unsigned int threads, bool skip, __u32 *nblocks)
{
	struct bw_build_req req;
	struct bw_build b;
	void *mem;
	int err;

	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = n;
	req.opts.seed = 0x7e57;
	req.origin = 0;
	req.threads = threads;
	req.skip_invalid = skip;
	mem = build_mem(&req, &b, &err);
	if (mem) {
		*nblocks = bw_build_blocks(&b);
		bw_build_free(&b);
	}
	return mem;
}

/* Writes count lines of addresses, with extra put in at line at. */
static bool write_big(char *path, size_t count, size_t at, const char *extra)
{
	FILE *f;
	int fd = mkstemp(path);
	size_t i;

	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	if (!f)
		return false;
	for (i = 0; i < count; i++) {
		if (i == at)
			fputs(extra, f);
		fprintf(f, "%zu.%zu.%zu.%zu%s\n", 1 + i % 200, (i >> 3) & 255,
			i & 255, (i * 7) & 255, i % 5 ? "" : " # note");
	}
	return !fclose(f);
}

/*
 * A regular file of 1 MiB or more is read by two threads: the same list,
 * the same filter bytes as one thread reads. Real lists (hosts lines,
 * comments, CIDRs), and a list whose second half has a bad line (skipped)
 * and an IPv4-mapped address (a note): the second thread stops at them
 * and the first reads on, so the messages and counts are one thread's.
 */
BW_TEST(test_build_threads_same_bytes)
{
	char path[] = "/tmp/bw-threads-XXXXXX", p1[4096], p2[4096];
	const char *real[2] = { p1, p2 }, *big[1] = { path };
	__u32 n1 = 0, n2 = 0;
	void *m1, *m2;
	bool have = bw_test_data_dir() != NULL;

	if (have) {
		snprintf(p1, sizeof(p1), "%s/domains/stevenblack/hosts",
			 bw_test_data_dir());
		snprintf(p2, sizeof(p2),
			 "%s/ipv4/firehol/firehol_level4.netset",
			 bw_test_data_dir());
		m1 = build_threads(real, 2, 1, false, &n1);
		m2 = build_threads(real, 2, 2, false, &n2);
		ASSERT_TRUE(
			m1 && m2 && n1 == n2 &&
				!memcmp(m1, m2, (size_t)n1 * BW_BLOCK_BYTES),
			"real lists: the same bytes from 1 and 2 threads");
		free(m1);
		free(m2);
	}
	/* 150,000 lines, about 2.5 MB: the bad lines are in the second half. */
	if (!ASSERT_TRUE(write_big(path, 150000, 120000,
				   "not-an-address\n::ffff:9.9.9.9\n"),
			 "list file"))
		return;
	m1 = build_threads(big, 1, 1, true, &n1);
	m2 = build_threads(big, 1, 2, true, &n2);
	ASSERT_TRUE(m1 && m2 && n1 == n2 &&
			    !memcmp(m1, m2, (size_t)n1 * BW_BLOCK_BYTES),
		    "bad lines in the second half: the same bytes");
	free(m1);
	free(m2);
	unlink(path);
}
