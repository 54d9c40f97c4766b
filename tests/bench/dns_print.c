// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The DNS tables and their targets (issue 11, item 6): at 1M names, cold,
 * bloomwall testing every suffix costs no more than dnsdist's exact-name
 * lookup and under half its every-suffix lookup, in at most 1/20 of its
 * memory. Cells are "median (min)" ns per query; ratios are medians of the
 * row over the bloomwall row's (above 1: bloomwall is faster).
 */
#include <string.h>

#include "bench.h"
#include "bench_dns.h"

static const char *const col[SC_N] = { "allowed warm", "allowed cold",
				       "blocked warm", "blocked cold" };

static void fmt_bytes(char *buf, size_t len, long long b)
{
	if (b < 0)
		snprintf(buf, len, "~0");
	else if (b >= 1LL << 20)
		snprintf(buf, len, "%.1f MiB", b / (double)(1LL << 20));
	else
		snprintf(buf, len, "%.0f KiB", b / 1024.0);
}

static void print_row(FILE *f, const struct bench_row *r,
		      const struct bench_row *ref)
{
	char ml[32] = "-", me[32] = "-", per[32] = "-", fpr[32] = "-";
	char load[32] = "-";
	int sc;

	if (r->load_s >= 0) {
		fmt_bytes(ml, sizeof(ml), r->memlock);
		fmt_bytes(me, sizeof(me), r->measured);
		snprintf(load, sizeof(load), "%.2f s", r->load_s);
	}
	if (r->memlock >= 0 && r->entries)
		snprintf(per, sizeof(per), "%.1f",
			 (double)r->memlock / r->entries);
	if (r->fpr >= 0)
		snprintf(fpr, sizeof(fpr), "%.3f %%", r->fpr * 100);
	fprintf(f, "| %s |", r->name);
	for (sc = 0; sc < SC_N; sc++)
		fprintf(f, " %.0f (%.0f) |", r->med[sc], r->min[sc]);
	fprintf(f, " %s | %s | %s | %s | %s |", ml, me, per, fpr, load);
	for (sc = 0; sc < SC_N && r != ref; sc++)
		fprintf(f, "%s%.2f", sc ? " / " : " ",
			ref->med[sc] ? r->med[sc] / ref->med[sc] : 0);
	if (r == ref)
		fprintf(f, " -");
	if (r->check == CK_NONE)
		fprintf(f, " | - |\n");
	else if (r->wrong)
		fprintf(f, " | **%llu WRONG** of %llu |\n",
			(unsigned long long)r->wrong,
			(unsigned long long)r->checked);
	else
		fprintf(f, " | ok (%llu) |\n", (unsigned long long)r->checked);
}

static void print_dns_set(FILE *f, const struct dns_set *s)
{
	int i;

	fprintf(f, "### DNS: %llu listed names, queries of %u labels\n\n",
		(unsigned long long)s->n, s->L);
	fprintf(f,
		"Blocked: the %u listed names of %u labels; allowed: %u names of %u labels, none listed, no suffix listed. "
		"Ratios to the row \"%s\".\n\n",
		s->nb, s->L, s->na, s->L, s->rows[s->bw_ref].name);
	fprintf(f,
		"| structure | allowed warm | allowed cold | blocked warm | blocked cold | memlock | measured | bytes/entry | FPR | load+fill | x bloomwall (aw / ac / bw / bc) | verdicts |\n");
	fprintf(f,
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	for (i = 0; i < s->nrows; i++)
		print_row(f, &s->rows[i], &s->rows[s->bw_ref]);
	fprintf(f, "\n");
}

void print_dns(FILE *f)
{
	int i;

	if (!dns_nsets)
		return;
	fprintf(f,
		"## DNS names\n\n"
		"One list per size: n names, a third each of 2, 4 and 8 labels (8-byte labels, 3-byte TLDs), "
		"lowercase queries (IPv4, UDP to port 53, A IN). dnsdist layout: a hash map keyed by the 255-byte "
		"lowercased wire name, read as PowerDNS contrib/xdp-filter.ebpf.src reads it (keyed by name only here, "
		"one lookup a name; theirs adds the qtype and looks up twice on a miss); \"every suffix\" looks up the name "
		"and each parent suffix, longest first. bloomwall: the list as subtree entries (every suffix of a query "
		"tested) or as exact entries (hosts lines), action drop; cold runs %s names a trial.\n\n",
		"2^19");
	for (i = 0; i < dns_nsets; i++)
		print_dns_set(f, &dns_sets[i]);
}

static const struct bench_row *row(const struct dns_set *s, const char *name)
{
	int i;

	for (i = 0; i < s->nrows; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	return NULL;
}

static const char *verdict(bool ok, const struct bench_row *a,
			   const struct bench_row *b)
{
	if (a->wrong || b->wrong)
		return "MISSED (wrong verdicts)";
	return ok ? "met" : "MISSED";
}

static void targets_set(FILE *f, const struct dns_set *s)
{
	const struct bench_row *bw = &s->rows[s->bw_ref];
	const struct bench_row *ex = row(s, "dnsdist layout, exact name");
	const struct bench_row *sf = row(s, "dnsdist layout, every suffix");
	int sc;

	if (!ex || !sf)
		return;
	fprintf(f, "  - %llu names, %u-label queries, %s:\n",
		(unsigned long long)s->n, s->L, bw->name);
	for (sc = SC_UC; sc < SC_N; sc += 2) {
		fprintf(f,
			"    - %s: bloomwall %.0f <= dnsdist exact %.0f: %s; < 0.5 x dnsdist every suffix %.0f (%.2fx): %s\n",
			col[sc], bw->med[sc], ex->med[sc],
			verdict(bw->med[sc] <= ex->med[sc], bw, ex),
			sf->med[sc], sf->med[sc] / bw->med[sc],
			verdict(bw->med[sc] < 0.5 * sf->med[sc], bw, sf));
	}
	if (s->L == 2)
		fprintf(f,
			"    - memory: bloomwall %.1f bytes/entry, dnsdist %.1f (1/%.0f; need <= 1/20): %s\n",
			(double)bw->memlock / bw->entries,
			(double)ex->memlock / ex->entries,
			(double)ex->memlock / bw->memlock,
			verdict(bw->memlock * 20 <= ex->memlock, bw, ex));
}

void print_dns_targets(FILE *f)
{
	__u64 big = 0;
	int i;

	for (i = 0; i < dns_nsets; i++)
		if (dns_sets[i].n > big)
			big = dns_sets[i].n;
	if (!big)
		return;
	fprintf(f, "- DNS names, cold, at the largest list:\n");
	for (i = 0; i < dns_nsets; i++)
		if (dns_sets[i].n == big)
			targets_set(f, &dns_sets[i]);
}
