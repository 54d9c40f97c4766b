// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Merging and prefix expansion (user/lists/cidr.c) against an exact oracle written
 * here independently: a tiny list reader (inet_pton), address intervals in
 * plain numbers (IPv4 not left-aligned, unlike cidr.c), coalesced and
 * binary-searched; a greedy range-to-CIDR count; and a brute-force search
 * over every choice of target lengths. The differential tests build real
 * filters (bw_plan_filter, bw_fill_filter) and ask bw_filter_lookup.
 */
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "filter/bloom.h"
#include "filter/builder.h"
#include "lists/cidr.h"
#include "lists/cidr_choose.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

typedef unsigned __int128 u128;

#define FPR_SAMPLES 400000
#define FPR_SLACK 1.5
#define TEST_SEED 0x5eed1234U

/* Inclusive address interval; an IPv4 address is a number below 2^32. */
struct ival {
	u128 lo, hi;
};

struct ivec {
	struct ival *v;
	size_t n, cap;
};

/* One list as the oracle sees it (per family) and as cidr.c gets it. */
struct tlist {
	struct ivec src[BW_FAMILIES]; /* every prefix read, as intervals */
	struct ivec set[BW_FAMILIES]; /* their union, coalesced, sorted */
	struct bw_list l;
};

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd64(void)
{
	return bw_test_xorshift64s(&rng_state);
}

static u128 rnd128(void)
{
	return (u128)rnd64() << 64 | rnd64();
}

static unsigned int width_of(int f)
{
	return f == BW_V4 ? 32 : 128;
}

static u128 space_max(int f)
{
	return f == BW_V4 ? (u128)0xffffffffU : ~(u128)0;
}

/* Host part of a /plen in a family: 2^(width - plen) - 1. */
static u128 host_part(int f, unsigned int plen)
{
	unsigned int w = width_of(f);

	return plen == 0 ? space_max(f) : (((u128)1 << (w - plen)) - 1);
}

static int ivec_push(struct ivec *iv, u128 lo, u128 hi)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 256;
		struct ival *v = realloc(iv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = (struct ival){ lo, hi };
	return 0;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Sorted union of intervals, touching ones joined. */
static int coalesce(const struct ivec *in, int f, struct ivec *out)
{
	struct ival *tmp;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!in->n)
		return 0;
	tmp = malloc(in->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, in->v, in->n * sizeof(*tmp));
	qsort(tmp, in->n, sizeof(*tmp), cmp_ival);
	for (i = 0; i < in->n; i++) {
		struct ival *last = out->n ? &out->v[out->n - 1] : NULL;

		if (last &&
		    (last->hi == space_max(f) || tmp[i].lo <= last->hi + 1)) {
			if (tmp[i].hi > last->hi)
				last->hi = tmp[i].hi;
			continue;
		}
		if (ivec_push(out, tmp[i].lo, tmp[i].hi)) {
			free(tmp);
			return -ENOMEM;
		}
	}
	free(tmp);
	return 0;
}

static bool oracle_has(const struct ivec *set, u128 x)
{
	size_t lo = 0, hi = set->n;

	/* Last interval starting at or below x. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->v[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && x <= set->v[lo - 1].hi;
}

/* Fewest prefixes that cover exactly the union: greedy largest blocks. */
static __u64 min_cidrs(const struct ivec *set, int f)
{
	unsigned int w = width_of(f), s;
	__u64 n = 0;
	size_t i;

	for (i = 0; i < set->n; i++) {
		u128 lo = set->v[i].lo, hi = set->v[i].hi;

		if (lo == 0 && hi == space_max(f))
			return n + 1;
		for (;;) {
			for (s = w - 1; s > 0; s--)
				if (!(lo & (((u128)1 << s) - 1)) &&
				    ((u128)1 << s) - 1 <= hi - lo)
					break;
			n++;
			if (hi - lo == ((u128)1 << s) - 1)
				break;
			lo += (u128)1 << s;
		}
	}
	return n;
}

static struct bw_prefix to_bw(int f, u128 addr, unsigned int plen)
{
	struct bw_prefix p = { .family = (__u8)f, .plen = (__u8)plen };

	if (f == BW_V4) {
		p.lo = (__u64)addr;
	} else {
		p.hi = (__u64)(addr >> 64);
		p.lo = (__u64)addr;
	}
	return p;
}

static int tlist_add(struct tlist *t, int f, u128 addr, unsigned int plen)
{
	struct bw_prefix p;

	addr &= ~host_part(f, plen);
	p = to_bw(f, addr, plen);
	if (ivec_push(&t->src[f], addr, addr | host_part(f, plen)))
		return -ENOMEM;
	return bw_list_push(&t->l, &p);
}

static int tlist_seal(struct tlist *t)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++)
		if (coalesce(&t->src[f], f, &t->set[f]))
			return -ENOMEM;
	return 0;
}

static void tlist_free(struct tlist *t)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		free(t->src[f].v);
		free(t->set[f].v);
	}
	bw_list_free(&t->l);
	memset(t, 0, sizeof(*t));
}

/* "a.b.c.d", "x::y", either with "/len": 0, 1 (not an address) or error. */
static int parse_entry(const char *tok, int *f, u128 *addr, unsigned int *plen)
{
	char buf[64], *slash;
	unsigned char b[16];
	int i, nb;

	if (strlen(tok) >= sizeof(buf))
		return 1;
	strcpy(buf, tok);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, b) == 1) {
		*f = BW_V4;
		nb = 4;
	} else if (inet_pton(AF_INET6, buf, b) == 1) {
		*f = BW_V6;
		nb = 16;
	} else {
		return 1;
	}
	for (*addr = 0, i = 0; i < nb; i++)
		*addr = *addr << 8 | b[i];
	*plen = slash ? (unsigned int)atoi(slash) : width_of(*f);
	return *plen <= width_of(*f) ? 0 : -EINVAL;
}

/* Reads a list file: comments '#' and ';', first token of each line. */
static int read_list(const char *path, struct tlist *t)
{
	char *line = NULL, tok[80];
	size_t cap = 0;
	unsigned int plen;
	u128 addr;
	int f, err = 0;
	FILE *fp = fopen(path, "r");

	if (!fp)
		return -errno;
	while (!err && getline(&line, &cap, fp) > 0) {
		if (sscanf(line, " %79[^ \t\r\n;#]", tok) != 1)
			continue;
		if (parse_entry(tok, &f, &addr, &plen))
			continue;
		err = tlist_add(t, f, addr, plen);
	}
	free(line);
	fclose(fp);
	return err ? err : tlist_seal(t);
}

/* Intervals covered by a list's prefixes, coalesced. */
static int list_set(const struct bw_list *l, int f, struct ivec *out)
{
	struct ivec raw = { 0 };
	size_t i, n = f == BW_V4 ? l->n4 : l->n6;
	int err;

	for (i = 0; i < n; i++) {
		unsigned int plen;
		u128 a;

		if (f == BW_V4) {
			a = bw_v4key_addr(l->v4[i]);
			plen = bw_v4key_plen(l->v4[i]);
		} else {
			a = (u128)l->v6[i].hi << 64 | l->v6[i].lo;
			plen = l->v6[i].plen;
		}
		if (ivec_push(&raw, a, a | host_part(f, plen)))
			return -ENOMEM;
	}
	err = coalesce(&raw, f, out);
	free(raw.v);
	return err;
}

static bool same_set(const struct ivec *a, const struct ivec *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].lo != b->v[i].lo || a->v[i].hi != b->v[i].hi)
			return false;
	return true;
}

/* Every key of out is at a target length and out covers the oracle's set. */
static void check_expanded(const struct tlist *t, const struct bw_list *out,
			   const struct bw_cidr_stats *st, const char *name)
{
	struct ivec got;
	size_t i, j, n;
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		const struct bw_cidr_family_stats *fs = &st->fam[f];
		size_t bad = 0;

		n = f == BW_V4 ? out->n4 : out->n6;
		ASSERT_EQ(n, fs->expanded, name);
		ASSERT_EQ(fs->merged, min_cidrs(&t->set[f], f), name);
		ASSERT_LE(fs->nlengths, BW_MAX_LENGTHS, name);
		for (i = 0; i < n; i++) {
			unsigned int plen = f == BW_V4
						    ? bw_v4key_plen(out->v4[i])
						    : out->v6[i].plen;

			for (j = 0; j < fs->nlengths; j++)
				if (fs->plen[j] == plen)
					break;
			bad += j == fs->nlengths;
		}
		ASSERT_EQ(bad, 0, name);
		if (!ASSERT_OK(list_set(out, f, &got), name))
			continue;
		ASSERT_TRUE(same_set(&got, &t->set[f]), name);
		free(got.v);
	}
}

static u128 rnd_in(u128 lo, u128 hi)
{
	u128 span = hi - lo + 1;

	return span ? lo + rnd128() % span : rnd128();
}

struct filter {
	struct bw_plan plan;
	void *mem;
};

static int build(const struct bw_list *keys, struct filter *flt)
{
	struct bw_build_opts o;
	int err;

	bw_build_opts_init(&o);
	o.seed = TEST_SEED;
	err = bw_plan_filter(keys, &o, &flt->plan);
	if (err)
		return err;
	flt->mem = calloc(flt->plan.nblocks, BW_BLOCK_BYTES);
	if (!flt->mem)
		return -ENOMEM;
	bw_fill_filter(flt->mem, &flt->plan, keys);
	return 0;
}

static bool hits(const struct filter *flt, int f, u128 addr)
{
	struct bw_prefix p = to_bw(f, addr, width_of(f));

	return bw_filter_lookup(flt->mem, &p, NULL) == 1;
}

/* First, last and a random address of every source prefix must hit. */
static size_t false_negatives(const struct tlist *t, const struct filter *flt)
{
	size_t i, fn = 0;
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		for (i = 0; i < t->src[f].n; i++) {
			const struct ival *iv = &t->src[f].v[i];

			fn += !hits(flt, f, iv->lo);
			fn += !hits(flt, f, iv->hi);
			fn += !hits(flt, f, rnd_in(iv->lo, iv->hi));
		}
	}
	return fn;
}

/*
 * Share of random addresses outside the list that hit, in total and per
 * region (fp_region[r], same unit); -1 if none could be drawn.
 */
static double measured_fpr(const struct tlist *t, const struct filter *flt,
			   int f, double *fp_region)
{
	size_t tries, outside = 0, fp = 0, per[BW_REGIONS] = { 0 };
	struct bw_prefix p;
	int r;

	for (tries = 0; tries < 4 * FPR_SAMPLES && outside < FPR_SAMPLES;
	     tries++) {
		u128 a = f == BW_V4 ? (u128)(__u32)rnd64() : rnd128();

		if (oracle_has(&t->set[f], a))
			continue;
		outside++;
		p = to_bw(f, a, width_of(f));
		if (bw_filter_lookup(flt->mem, &p, &r) == 1) {
			fp++;
			per[r]++;
		}
	}
	for (r = 0; r < BW_REGIONS; r++)
		fp_region[r] = outside ? (double)per[r] / outside : 0.0;
	return outside ? (double)fp / outside : -1.0;
}

/* Where the false positives of a family came from, against each share. */
static void explain_fpr(const struct filter *flt, int f, const double *fpr_r)
{
	const struct bw_hdr *h = &flt->plan.hdr;
	const struct bw_info *info = &flt->plan.info;
	__u64 total = 0;
	int i, r;

	for (i = 0; i < h->nlengths[f]; i++)
		total += info->region_entries[f * BW_MAX_LENGTHS + i];
	for (i = 0; i < h->nlengths[f]; i++) {
		r = f * BW_MAX_LENGTHS + i;
		fprintf(stderr,
			"    region /%u: %u keys, share %.6f, measured %.6f\n",
			h->plen[f][i], info->region_entries[r],
			BW_DEFAULT_FPR * info->region_entries[r] / total,
			fpr_r[r]);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_family(const struct bw_cidr_family_stats *fs, int f,
			 double fpr)
{
	unsigned int i;

	if (!fs->source)
		return;
	printf("    %s %llu -> merged %llu -> %llu keys (x%.2f), targets",
	       f == BW_V4 ? "v4" : "v6", (unsigned long long)fs->source,
	       (unsigned long long)fs->merged, (unsigned long long)fs->expanded,
	       bw_cidr_factor(fs));
	for (i = 0; i < fs->nlengths; i++)
		printf(" /%u:%llu", fs->plen[i],
		       (unsigned long long)fs->keys[i]);
	printf(", shortest /%u, fpr %.5f\n", fs->shortest, fpr);
}

/*
 * The whole path on one list: prepare, check against the oracle, build,
 * no false negatives, false-positive rate within FPR_SLACK of the target.
 */
static void differential(struct tlist *t, const char *name, bool verbose)
{
	struct filter flt = { 0 };
	struct bw_cidr_stats st;
	struct bw_list out;
	double t0 = now_ms(), t1, fpr[BW_FAMILIES], fpr_r[BW_REGIONS], target;
	int f;

	if (!ASSERT_OK(bw_cidr_prepare(&t->l, NULL, &out, &st), name))
		return;
	t1 = now_ms();
	check_expanded(t, &out, &st, name);
	if (!ASSERT_OK(build(&out, &flt), name))
		goto out;
	target = BW_DEFAULT_FPR;
	ASSERT_EQ(false_negatives(t, &flt), 0, name);
	for (f = 0; f < BW_FAMILIES; f++) {
		ASSERT_EQ(flt.plan.hdr.nlengths[f], st.fam[f].nlengths, name);
		ASSERT_TRUE(!memcmp(flt.plan.hdr.plen[f], st.fam[f].plen,
				    st.fam[f].nlengths),
			    name);
		fpr[f] = t->src[f].n ? measured_fpr(t, &flt, f, fpr_r) : 0.0;
		if (!ASSERT_LE(fpr[f], FPR_SLACK * target, name))
			explain_fpr(&flt, f, fpr_r);
	}
	if (!verbose)
		goto out;
	printf("  %s: prepare %.0f ms, filter %llu KiB\n", name, t1 - t0,
	       (unsigned long long)flt.plan.nblocks * BW_BLOCK_BYTES / 1024);
	for (f = 0; f < BW_FAMILIES; f++)
		print_family(&st.fam[f], f, fpr[f]);
out:
	free(flt.mem);
	bw_list_free(&out);
}

#define MAX_FILES 64
static char *found[MAX_FILES];
static int nfound;

static int collect(const char *path, const struct stat *sb, int type,
		   struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_F && nfound < MAX_FILES && !strstr(path, "README"))
		found[nfound++] = strdup(path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

BW_TEST(test_cidr_data_lists)
{
	static const char *const sub[] = { "ipv4", "ipv6", "spamhaus" };
	const char *dir = bw_test_data_dir();
	char path[4096];
	size_t i;
	int j;

	if (!dir)
		return;
	nfound = 0;
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		nftw(path, collect, 8, FTW_PHYS);
	}
	qsort(found, nfound, sizeof(found[0]), cmp_str);
	ASSERT_GE(nfound, 1, "list files found");
	for (j = 0; j < nfound; j++) {
		struct tlist t = { 0 };
		const char *name = found[j] + strlen(dir) + 1;

		if (ASSERT_OK(read_list(found[j], &t), name) &&
		    ASSERT_GE(t.l.n4 + t.l.n6, 1, name))
			differential(&t, name, true);
		tlist_free(&t);
		free(found[j]);
	}
}

/* Mostly long prefixes, as real lists have, some of any length. */
static unsigned int random_len(int f)
{
	unsigned int w = width_of(f), min = f == BW_V4 ? 4 : 16;

	if (rnd64() % 4 == 0)
		return min + rnd64() % (w - min + 1);
	return w / 2 + rnd64() % (w / 2 + 1);
}

/*
 * Random prefixes clustered under a few bases, so that duplicates, nesting
 * and siblings are common; lengths from a random set of a few lengths.
 */
static int random_list(struct tlist *t, int f, size_t n)
{
	unsigned int w = width_of(f), lens[8], nlens = 1 + rnd64() % 8, i;
	u128 base[16];
	size_t k;
	int err = 0;

	for (i = 0; i < nlens; i++)
		lens[i] = random_len(f);
	for (i = 0; i < 16; i++)
		base[i] = f == BW_V4 ? (u128)(__u32)rnd64() : rnd128();
	for (k = 0; k < n && !err; k++) {
		unsigned int plen = lens[rnd64() % nlens];
		/* 12 random bits at the end of the network part. */
		u128 spread = (u128)(rnd64() & 0xfff) << (w - plen);
		u128 a = (base[rnd64() % 16] ^ spread) & space_max(f);

		err = tlist_add(t, f, a, plen);
	}
	return err ? err : tlist_seal(t);
}

BW_TEST(test_cidr_random_lists)
{
	char name[64];
	int i, f;

	for (i = 0; i < 16; i++) {
		struct tlist t = { 0 };

		f = i % 2;
		snprintf(name, sizeof(name), "random %s list %d",
			 f == BW_V4 ? "v4" : "v6", i);
		if (ASSERT_OK(random_list(&t, f, 500 + rnd64() % 20000), name))
			differential(&t, name, false);
		tlist_free(&t);
	}
}

/* Keys for a set of targets: each length to the nearest target above. */
static u128 brute_cost(const __u64 *count, unsigned int w, const bool *is_t)
{
	unsigned int len, t;
	u128 cost = 0;

	for (len = 0; len <= w; len++) {
		if (!count[len])
			continue;
		for (t = len; t <= w && !is_t[t]; t++)
			;
		if (t > w)
			return ~(u128)0; /* a length with no target above */
		cost += (u128)count[len] << (t - len);
	}
	return cost;
}

/* Fewest keys over every set of at most k lengths from lo..w. */
static u128 brute_best(const __u64 *count, unsigned int lo, unsigned int w,
		       unsigned int k, bool *is_t, unsigned int from)
{
	u128 best = brute_cost(count, w, is_t), c;
	unsigned int t;

	if (!k)
		return best;
	for (t = from; t <= w; t++) {
		if (t < lo || is_t[t])
			continue;
		is_t[t] = true;
		c = brute_best(count, lo, w, k - 1, is_t, t + 1);
		is_t[t] = false;
		if (c < best)
			best = c;
	}
	return best;
}

static void dp_case(unsigned int w, unsigned int span, unsigned int lo)
{
	__u64 count[129] = { 0 }, keys;
	unsigned int nlen = 1 + rnd64() % 9, k = 1 + rnd64() % 4, n, i, kk;
	bool is_t[129] = { false };
	__u8 plen[BW_MAX_LENGTHS];
	unsigned int maxlen = 0;
	static const __u64 spread[] = { 10, 5000, 2000000 };
	u128 want = 0, min, slack;

	for (i = 0; i < nlen; i++) {
		unsigned int len = lo + rnd64() % span;

		/* Small, middling and large counts: both slack rules bite. */
		count[len] += 1 + rnd64() % spread[rnd64() % 3];
		maxlen = len > maxlen ? len : maxlen;
	}
	if (!ASSERT_OK(bw_cidr_choose(count, w, k, plen, &n, &keys), "choose"))
		return;
	/*
	 * The brute force may skip no length: targets from 0 (v4) up. The
	 * rule: the fewest targets whose keys are within a third of the
	 * minimum, or 4096 keys, whichever is more.
	 */
	min = brute_best(count, w == 32 ? 0 : lo, w, k, is_t, 0);
	slack = min / 3 > 4096 ? min / 3 : 4096;
	for (kk = 1; kk <= k; kk++) {
		want = brute_best(count, w == 32 ? 0 : lo, w, kk, is_t, 0);
		if (want <= min + slack)
			break;
	}
	ASSERT_EQ_U64(keys, (__u64)want, "dp keys == brute force");
	ASSERT_TRUE(n >= 1 && n <= kk, "target count");
	ASSERT_EQ(plen[0], maxlen, "longest length is a target");
	for (i = 0; i < n; i++) {
		ASSERT_TRUE(!i || plen[i] < plen[i - 1], "longest first");
		is_t[plen[i]] = true;
	}
	ASSERT_EQ_U64((__u64)brute_cost(count, w, is_t), keys, "dp targets");
}

BW_TEST(test_cidr_choose_brute_force)
{
	__u64 count[129] = { 0 }, keys;
	__u8 plen[BW_MAX_LENGTHS];
	unsigned int i, n;

	for (i = 0; i < 150; i++)
		dp_case(32, 33, 0);
	/* IPv6: lengths in a window so that the sums stay exact in 128 bits. */
	for (i = 0; i < 40; i++)
		dp_case(128, 40, 8 + rnd64() % 80);
	ASSERT_OK(bw_cidr_choose(count, 32, 4, plen, &n, &keys), "empty");
	ASSERT_EQ(n, 0, "empty: no targets");
	ASSERT_ERR(bw_cidr_choose(count, 32, 0, plen, &n, &keys), "k = 0");
	ASSERT_ERR(
		bw_cidr_choose(count, 32, BW_MAX_LENGTHS + 1, plen, &n, &keys),
		"k too big");
	/* A /0 and a /128 with one target: 2^128 keys saturate. */
	count[0] = 1;
	count[128] = 1;
	ASSERT_OK(bw_cidr_choose(count, 128, 1, plen, &n, &keys), "huge");
	ASSERT_EQ_U64(keys, UINT64_MAX, "huge saturates");
}

static void push4(struct bw_list *l, const char *s)
{
	struct bw_prefix p;
	char err[BW_ERRLEN];

	if (ASSERT_OK(bw_parse_prefix(s, &p, err, sizeof(err)), s))
		bw_list_push(l, &p);
}

BW_TEST(test_cidr_merge_basic)
{
	static const char *const in[] = {
		"10.0.0.0/25",	  "10.0.0.128/25", /* siblings -> 10.0.0.0/24 */
		"10.0.1.0/24",	  "10.0.1.7",	   /* covered; then -> /23 */
		"10.0.1.0/24",	  "192.168.0.0/16", /* duplicate */
		"192.168.3.0/24", "2001:db8::/33",  "2001:db8:8000::/33",
		"2001:db8::1",
	};
	struct bw_cidr_stats st;
	struct bw_list l;
	size_t i;

	bw_list_init(&l);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		push4(&l, in[i]);
	bw_cidr_merge(&l, &st);
	ASSERT_EQ(st.fam[BW_V4].source, 7, "v4 source");
	ASSERT_EQ(l.n4, 2, "v4 merged");
	ASSERT_EQ_U64(l.v4[0], bw_v4key(0x0a000000, 23), "10.0.0.0/23");
	ASSERT_EQ_U64(l.v4[1], bw_v4key(0xc0a80000, 16), "192.168.0.0/16");
	ASSERT_EQ(l.n6, 1, "v6 merged");
	ASSERT_EQ_U64(l.v6[0].hi, 0x20010db800000000ULL, "2001:db8::/32 hi");
	ASSERT_EQ(l.v6[0].plen, 32, "2001:db8::/32 plen");
	bw_list_free(&l);
}

BW_TEST(test_cidr_slash0_and_empty)
{
	struct bw_cidr_stats st;
	struct filter flt = { 0 };
	struct bw_list in, out;

	bw_list_init(&in);
	ASSERT_OK(bw_cidr_prepare(&in, NULL, &out, &st), "empty list");
	ASSERT_EQ(out.n4 + out.n6, 0, "empty: no keys");
	ASSERT_EQ(st.fam[BW_V4].nlengths, 0, "empty: no lengths");
	bw_list_free(&out);

	push4(&in, "0.0.0.0/0");
	push4(&in, "10.0.0.0/8");
	push4(&in, "1.2.3.4");
	ASSERT_OK(bw_cidr_prepare(&in, NULL, &out, &st), "/0");
	ASSERT_EQ(out.n4, 1, "/0 covers all");
	ASSERT_EQ_U64(out.n4 ? out.v4[0] : 1, bw_v4key(0, 0), "/0 key");
	if (ASSERT_OK(build(&out, &flt), "/0 build")) {
		ASSERT_TRUE(hits(&flt, BW_V4, 0x08080808), "/0 hits 8.8.8.8");
		ASSERT_TRUE(hits(&flt, BW_V4, 0xffffffff), "/0 hits last");
	}
	free(flt.mem);
	bw_list_free(&out);
	bw_list_free(&in);
}

/* Runs prepare with stderr captured into buf. */
static int prepare_captured(const struct bw_list *in,
			    const struct bw_cidr_opts *o, struct bw_list *out,
			    char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved, err;
	size_t n = 0;

	buf[0] = '\0';
	if (!tmp)
		return bw_cidr_prepare(in, o, out, NULL);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	err = bw_cidr_prepare(in, o, out, NULL);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return err;
}

BW_TEST(test_cidr_cap_and_errors)
{
	struct bw_cidr_opts o;
	struct bw_list in, out;
	struct bw_prefix bad = { .family = BW_V4, .plen = 33 };
	char msg[2048];

	bw_list_init(&in);
	push4(&in, "16.0.0.0/4");
	push4(&in, "1.2.3.4");
	bw_cidr_opts_init(&o);
	o.max_lengths[BW_V4] = 1;
	o.max_keys = 1ULL << 26;
	/* One target: the /4 would become 2^28 keys of /32. */
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -E2BIG,
		  "over the cap");
	ASSERT_EQ(out.n4 + out.n6, 0, "nothing kept on failure");
	ASSERT_STREQ(
		msg,
		"Prefix expansion needs 268435457 keys, more than the cap "
		"of 67108864\n"
		"IPv4: 2 prefixes expand to 268435457 keys at 1 target "
		"lengths:\n"
		"  1 prefixes of /4 (e.g. 16.0.0.0/4) -> 268435456 keys of "
		"/32\n"
		"  raise --max-lengths (now 1, at most 4), or remove or "
		"split the short prefixes above, or use fewer lists\n",
		"message names the prefix and says what to do");
	/* The default cap takes the 2^28 keys. */
	ASSERT_EQ(BW_CIDR_MAX_KEYS, 1ULL << 31, "default cap");
	/* Two targets: /4 and /32, two keys. */
	o.max_lengths[BW_V4] = 2;
	ASSERT_OK(bw_cidr_prepare(&in, &o, &out, NULL), "two targets");
	ASSERT_EQ(out.n4, 2, "two keys");
	bw_list_free(&out);
	/* A small cap applies to what the DP picks. */
	o.max_keys = 1;
	push4(&in, "16.0.0.0/4");
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -E2BIG,
		  "small cap");
	o.max_lengths[BW_V4] = BW_MAX_LENGTHS + 1;
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -EINVAL,
		  "too many lengths");
	ASSERT_STREQ(msg,
		     "--max-lengths 5: at most 4 target lengths per family\n",
		     "bad option named");
	bw_list_push(&in, &bad);
	bw_cidr_opts_init(&o);
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -EINVAL,
		  "/33");
	bw_list_free(&in);
}

/*
 * Listed neighbours merge (two /32s into a /31, four into a /30) and
 * expand back to the listed /32s: over the cap, they are counted as what
 * they are, the lists' own entries, and the remedy is fewer entries, not
 * "split the short prefixes". A /30 made of a listed /31 and two /32s holds
 * a listed prefix shorter than its target: that one is short.
 */
BW_TEST(test_cidr_cap_merged_neighbours)
{
	static const char *const own[] = { "1.2.3.4", "1.2.3.5",  "1.2.3.6",
					   "1.2.3.7", "10.0.0.0", "10.0.0.1",
					   "5.5.5.5" };
	struct bw_cidr_opts o;
	struct bw_cidr_stats st;
	struct bw_list in, out;
	char msg[2048];
	size_t i;

	bw_list_init(&in);
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		push4(&in, own[i]);
	bw_cidr_opts_init(&o);
	o.max_keys = 6;
	o.cap_why = "a test's cap";
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -E2BIG,
		  "7 keys over a cap of 6");
	ASSERT_STREQ(
		msg,
		"Prefix expansion needs 7 keys, more than the cap of 6 (a "
		"test's cap)\n"
		"IPv4: 3 prefixes expand to 7 keys at 1 target lengths:\n"
		"  1 prefixes of /31 (e.g. 10.0.0.0/31) -> 2 keys of /32 "
		"(merged neighbours: the listed entries)\n"
		"  1 prefixes of /30 (e.g. 1.2.3.4/30) -> 4 keys of /32 "
		"(merged neighbours: the listed entries)\n"
		"  the keys are the lists' own entries: use fewer or smaller "
		"lists\n",
		"neighbours counted as listed /32s, no short prefix");
	/* At the cap they build: the keys are the entries, nothing stashed. */
	o.max_keys = 7;
	ASSERT_OK(bw_cidr_prepare(&in, &o, &out, &st), "at the cap");
	ASSERT_EQ(out.n4, 7, "the seven listed addresses");
	ASSERT_EQ(st.fam[BW_V4].merged, 3, "merged into /30, /31, /32");
	for (i = 0; i < out.n4; i++)
		ASSERT_EQ(out.v4[i] >> 40, 0, "no origin left in a key");
	bw_list_free(&out);
	/* A listed /31 under the /30 target /32 is short. */
	push4(&in, "20.0.0.0/31");
	push4(&in, "20.0.0.2");
	push4(&in, "20.0.0.3");
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -E2BIG,
		  "11 keys");
	ASSERT_STREQ(
		msg,
		"Prefix expansion needs 11 keys, more than the cap of 7 (a "
		"test's cap)\n"
		"IPv4: 4 prefixes expand to 11 keys at 1 target lengths:\n"
		"  1 prefixes of /30 (e.g. 20.0.0.0/30) -> 4 keys of /32\n"
		"  1 prefixes of /31 (e.g. 10.0.0.0/31) -> 2 keys of /32 "
		"(merged neighbours: the listed entries)\n"
		"  1 prefixes of /30 (e.g. 1.2.3.4/30) -> 4 keys of /32 "
		"(merged neighbours: the listed entries)\n"
		"  remove or split the short prefixes above, or use fewer "
		"lists\n",
		"the listed /31 is short, the neighbours are not");
	bw_list_free(&in);
}

/* IPv6 neighbours too; the keys written carry no origin in their pad. */
BW_TEST(test_cidr_merged_neighbours_v6)
{
	struct bw_prefix p = { .family = BW_V6, .hi = 0x20010db800000000ULL };
	struct bw_cidr_opts o;
	struct bw_list in, out;
	char msg[1024];
	size_t i;

	bw_list_init(&in);
	/* ::0-::3 merge into a /126; ::10 keeps /128 a target. */
	for (i = 0; i < 5; i++) {
		p.lo = i < 4 ? i : 0x10;
		p.plen = 128;
		bw_list_push(&in, &p);
	}
	bw_cidr_opts_init(&o);
	o.max_keys = 4;
	ASSERT_EQ(prepare_captured(&in, &o, &out, msg, sizeof(msg)), -E2BIG,
		  "5 keys");
	ASSERT_STREQ(msg,
		     "Prefix expansion needs 5 keys, more than the cap of 4\n"
		     "IPv6: 2 prefixes expand to 5 keys at 1 target "
		     "lengths:\n"
		     "  1 prefixes of /126 (e.g. 2001:db8::/126) -> 4 keys of "
		     "/128 (merged neighbours: the listed entries)\n"
		     "  the keys are the lists' own entries: use fewer or "
		     "smaller lists\n",
		     "a /126 of four listed /128s");
	o.max_keys = 0;
	ASSERT_OK(bw_cidr_prepare(&in, &o, &out, NULL), "default cap");
	ASSERT_EQ(out.n6, 5, "the five listed addresses");
	for (i = 0; i < out.n6; i++)
		ASSERT_EQ(out.v6[i].pad, 0, "pad clear");
	bw_list_free(&out);
	bw_list_free(&in);
}

/*
 * Short targets are coarse: a false key at /13 passes 1/8192 of all
 * addresses at once, 12 % of a 0.1 % target, and a false /8 key 4x the
 * target. With prefixes of /16 and shorter only, every verdict depends on
 * the /16 alone, so the false-positive rate is exact over the 65536 /16s.
 * Sized only in proportion to entries, about 3 % of seeds (builds) pass
 * 1.5x the target, up to 5.5x; at most 1 % may.
 */
#define SHORT_SEEDS 500

/* Exact rate for a list of prefixes no longer than /16; -1 on error. */
static double exact_fpr16(const struct tlist *t, const struct bw_list *keys,
			  __u32 seed)
{
	struct filter flt = { 0 };
	struct bw_build_opts o;
	size_t i, fp = 0, outside = 0;

	bw_build_opts_init(&o);
	o.seed = seed;
	if (bw_plan_filter(keys, &o, &flt.plan))
		return -1.0;
	flt.mem = calloc(flt.plan.nblocks, BW_BLOCK_BYTES);
	if (!flt.mem)
		return -1.0;
	bw_fill_filter(flt.mem, &flt.plan, keys);
	for (i = 0; i < 65536; i++) {
		if (oracle_has(&t->set[BW_V4], (u128)i << 16))
			continue;
		outside++;
		fp += hits(&flt, BW_V4, (u128)i << 16);
	}
	free(flt.mem);
	return outside ? (double)fp / outside : 0.0;
}
BW_TEST(test_cidr_short_prefixes_fpr)
{
	/* The short prefixes of firehol_level1: bogons and big blocks. */
	static const char *const lst[] = {
		"0.0.0.0/8",	  "10.0.0.0/8",	    "42.128.0.0/12",
		"42.160.0.0/12",  "42.208.0.0/12",  "100.64.0.0/10",
		"102.192.0.0/12", "102.208.0.0/13", "103.168.0.0/13",
		"103.176.0.0/12", "127.0.0.0/8",    "172.16.0.0/12",
		"224.0.0.0/3",
	};
	struct tlist t = { 0 };
	struct bw_list out;
	double fpr, worst = 0.0;
	size_t i, over = 0;
	int seed;
	unsigned int plen;
	u128 addr;
	int f;

	for (i = 0; i < sizeof(lst) / sizeof(lst[0]); i++)
		if (ASSERT_OK(parse_entry(lst[i], &f, &addr, &plen), lst[i]))
			tlist_add(&t, f, addr, plen);
	tlist_seal(&t);
	if (!ASSERT_OK(bw_cidr_prepare(&t.l, NULL, &out, NULL), "prepare"))
		goto out;
	for (seed = 1; seed <= SHORT_SEEDS; seed++) {
		fpr = exact_fpr16(&t, &out, (__u32)seed * 2654435761U);
		if (!ASSERT_GE(fpr, 0.0, "build"))
			break;
		worst = fpr > worst ? fpr : worst;
		over += fpr > FPR_SLACK * BW_DEFAULT_FPR;
	}
	printf("  short prefixes: worst fpr %.6f, %zu of %d seeds over %.1fx\n",
	       worst, over, SHORT_SEEDS, FPR_SLACK);
	ASSERT_LE(over, SHORT_SEEDS / 100, "seeds over the bound");
	bw_list_free(&out);
out:
	tlist_free(&t);
}

/* bw_cidr_key walks the longer prefixes inside one, in order, both families. */
BW_TEST(test_cidr_key)
{
	const struct bw_prefix v4 = { .lo = 0x0a000004, .plen = 30 };
	const struct bw_prefix v6 = { .hi = 0x20010db800000000ULL,
				      .lo = 0xffffffffffffff00ULL,
				      .family = BW_V6,
				      .plen = 120 };
	const struct bw_prefix v6hi = { .hi = 0x20010db800000000ULL,
					.family = BW_V6,
					.plen = 32 };
	struct bw_prefix k;
	__u64 j;

	for (j = 0; j < 4; j++) {
		k = bw_cidr_key(&v4, 32, j);
		ASSERT_EQ_U64(k.lo, 0x0a000004 + j, "IPv4 /30 at /32");
		ASSERT_EQ(k.plen, 32, "IPv4 key length");
		ASSERT_EQ(k.family, BW_V4, "IPv4 family");
	}
	k = bw_cidr_key(&v4, 31, 1);
	ASSERT_EQ_U64(k.lo, 0x0a000006, "IPv4 /30 at /31, second half");
	k = bw_cidr_key(&v6, 128, 255);
	ASSERT_EQ_U64(k.hi, v6.hi, "IPv6 /120: high word kept");
	ASSERT_EQ_U64(k.lo, ~0ULL, "IPv6 /120: last address");
	k = bw_cidr_key(&v6hi, 48, 0xffff);
	ASSERT_EQ_U64(k.hi, 0x20010db8ffff0000ULL, "IPv6 /32 at /48, last");
	ASSERT_EQ_U64(k.lo, 0, "IPv6 /48 key: low word clear");
	ASSERT_EQ(k.plen, 48, "IPv6 key length");
}
