// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The targets of the benchmark, each checked against the table: met or
 * missed, with the numbers that decide it. A row with a wrong verdict
 * cannot meet anything.
 */
#include <string.h>

#include "bench.h"
#include "bench_dns.h"
#include "bloomwall.h"
#include "bench_extra.h"

static const char *const col[SC_N] = { "unlisted warm", "unlisted cold",
				       "listed warm", "listed cold" };

static const struct bench_row *find(const struct bench_set *s, const char *name)
{
	int i;

	for (i = 0; s && i < s->nrows; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	return NULL;
}

static const char *verdict(bool ok, const struct bench_row *a,
			   const struct bench_row *b)
{
	if ((a && a->wrong) || (b && b->wrong))
		return "MISSED (wrong verdicts)";
	return ok ? "met" : "MISSED";
}

/* bloomwall <= floor + 1.2 x (bare - floor), per column. */
static void t_overhead(FILE *f, const struct bench_set *s)
{
	const struct bench_row *bw = find(s, "bloomwall");
	const struct bench_row *bare = find(s, "bare blocked-Bloom lookup");
	const struct bench_row *fl = find(s, "harness -> parse floor");
	double lim;
	int sc;

	if (!bw || !bare || !fl)
		return;
	fprintf(f,
		"- bloomwall <= floor + 1.2 x bare lookup (%s; floor = harness -> parse floor):\n",
		s->label);
	for (sc = 0; sc < SC_N; sc++) {
		lim = fl->med[sc] + 1.2 * (bare->med[sc] - fl->med[sc]);
		fprintf(f,
			"  - %s: bloomwall %.1f, floor %.1f, bare %.1f, limit %.1f: %s\n",
			col[sc], bw->med[sc], fl->med[sc], bare->med[sc], lim,
			verdict(bw->med[sc] <= lim, bw, bare));
	}
}

/*
 * The median of a's time over b's in each trial: the two rows ran side by
 * side in every trial, so a load that comes and goes across the trials
 * moves both.
 */
static double paired_ratio(const struct bench_row *a, const struct bench_row *b,
			   int sc, int trials)
{
	double r[BENCH_MAX_TRIALS], med, min;
	int t;

	for (t = 0; t < trials; t++)
		r[t] = b->t[sc][t] > 0 ? a->t[sc][t] / b->t[sc][t] : 0;
	finish_stats(r, trials, &med, &min);
	return med;
}

/*
 * The program within 1.15x of the bare lookup on its side, per column, by
 * the median of the trials' ratios (the ratio of the medians beside it:
 * on a shared host it swings with loads that come and go across trials).
 */
static void t_bare(FILE *f, const struct bench_set *s, const char *prog,
		   const char *bare_name, int trials)
{
	const struct bench_row *bw = find(s, prog);
	const struct bench_row *bare = find(s, bare_name);
	double x, p;
	int sc;

	if (!bw || !bare)
		return;
	fprintf(f,
		"- %s <= 1.15 x %s, the median of each trial's ratio (%s):\n",
		prog, bare_name, s->label);
	for (sc = 0; sc < SC_N; sc++) {
		x = bare->med[sc] > 0 ? bw->med[sc] / bare->med[sc] : 0;
		p = paired_ratio(bw, bare, sc, trials);
		fprintf(f,
			"  - %s: %.2fx by trial (medians %.1f / %.1f = %.2fx): %s\n",
			col[sc], p, bw->med[sc], bare->med[sc], x,
			verdict(p <= 1.15, bw, bare));
	}
}

static void t_ratio(FILE *f, const struct bench_set *s, const char *name,
		    double need)
{
	const struct bench_row *bw = find(s, "bloomwall");
	const struct bench_row *r = find(s, name);
	double x;
	int sc;

	if (!bw || !r)
		return;
	for (sc = SC_UC; sc < SC_N; sc += 2) {
		x = r->med[sc] / bw->med[sc];
		fprintf(f,
			"  - vs %s, %s: %.1f / %.1f = %.2fx (need %s%.1fx): %s\n",
			name, col[sc], r->med[sc], bw->med[sc], x,
			need > 1 ? ">= " : "> ", need,
			verdict(need > 1 ? x >= need : x > need, bw, r));
	}
}

static void t_memory(FILE *f, const struct bench_set *s)
{
	const struct bench_row *bw = find(s, "bloomwall");
	double bits;

	if (!bw || bw->memlock < 0 || !bw->entries)
		return;
	bits = bw->memlock * 8.0 / bw->entries;
	/* 0.11 %: three standard deviations above 0.1 % on 1M samples. */
	fprintf(f,
		"- at most 16 bits per entry at 0.1 %% (%s): %.2f bits/entry, measured FPR %.3f %% on %u non-members: %s\n",
		s->label, bits, bw->fpr * 100, s->nu,
		verdict(bits <= 16 && bw->fpr <= 0.0011, bw, NULL));
}

static void t_mixed(FILE *f, const struct bench_set *mixed,
		    const struct bench_set *bare)
{
	const struct bench_row *m = find(mixed, "bloomwall");
	const struct bench_row *b = find(bare, "bloomwall");
	int sc;

	if (!m || !b) {
		fprintf(f,
			"- mixed list <= 1.3 x bare addresses: pending (no mixed-list rows)\n");
		return;
	}
	fprintf(f,
		"- mixed list <= 1.3 x bare addresses of the same size (%s vs %s):\n",
		mixed->label, bare->label);
	for (sc = 0; sc < SC_N; sc++)
		fprintf(f, "  - %s: %.1f vs %.1f = %.2fx: %s\n", col[sc],
			m->med[sc], b->med[sc], m->med[sc] / b->med[sc],
			verdict(m->med[sc] <= 1.3 * b->med[sc], m, b));
}

static void t_swap(FILE *f, __u64 n)
{
	double t = swap_total_median(n);

	if (t < 0)
		return;
	fprintf(f,
		"- list to swapped filter at %llu entries under 3 s on one core: %.2f s: %s\n",
		(unsigned long long)n, t, t < 3 ? "met" : "MISSED");
}

void print_targets(FILE *f, const struct bench_set *sets, int nsets, int trials)
{
	const struct bench_set *big = NULL, *mixed = NULL, *same = NULL;
	const struct bench_set *big6 = NULL;
	int i;

	for (i = 0; i < nsets; i++) {
		if (strstr(sets[i].label, "mixed"))
			mixed = &sets[i];
		else if (sets[i].family == BW_V6)
			big6 = !big6 || sets[i].n > big6->n ? &sets[i] : big6;
		else if (!big || sets[i].n > big->n)
			big = &sets[i];
	}
	for (i = 0; mixed && i < nsets; i++)
		if (&sets[i] != mixed && sets[i].n == mixed->n)
			same = &sets[i];
	fprintf(f, "### Targets\n\n");
	for (i = 0; i < nsets; i++) {
		if (sets[i].n < 1000000 || &sets[i] == mixed)
			continue;
		t_bare(f, &sets[i], "bloomwall", "bare blocked-Bloom lookup",
		       trials);
		t_bare(f, &sets[i], "egress: bloomwall (TC)",
		       "egress: bare lookup (TC)", trials);
	}
	if (big6) {
		/* The issue sets IPv4's bars; IPv6 is held to the same. */
		fprintf(f, "- %s, cold, bloomwall faster by (the IPv4 bars):\n",
			big6->label);
		t_ratio(f, big6, "hash map", 2.5);
		t_ratio(f, big6, "xdp-filter alw_ip", 4);
		t_ratio(f, big6, "LPM trie /128", 20);
		t_ratio(f, big6, "kernel Bloom map k=7", 1);
	}
	print_dns_targets(f);
	if (!big) {
		fprintf(f, "\n");
		return;
	}
	t_overhead(f, big);
	fprintf(f, "- %s, cold, bloomwall faster by:\n", big->label);
	t_ratio(f, big, "hash map", 2.5);
	t_ratio(f, big, "xdp-filter alw_ip", 4);
	t_ratio(f, big, "LPM trie /32", 20);
	t_ratio(f, big, "kernel Bloom map k=7", 1);
	t_memory(f, big);
	t_mixed(f, mixed, same);
	t_swap(f, 10000000);
	fprintf(f, "\n");
}
