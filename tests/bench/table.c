// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The printed table: one markdown section per list, machine and command on
 * top. A cell is "median (min)" in ns per packet; ratios are medians of the
 * row over medians of bloomwall's row (above 1: bloomwall is faster).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "bench.h"

static void cpu_model(char *buf, size_t len)
{
	char line[256];
	FILE *f;

	snprintf(buf, len, "unknown CPU");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !v)
			continue;
		snprintf(buf, len, "%s", v + 2);
		buf[strcspn(buf, "\n")] = 0;
		break;
	}
	fclose(f);
}

void print_header(FILE *f, const struct bench_cfg *cfg, int argc, char **argv)
{
	char cpu[128], date[64];
	struct utsname u;
	time_t now = time(NULL);
	int i;

	cpu_model(cpu, sizeof(cpu));
	uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "# bloomwall benchmark\n\n");
	fprintf(f, "- machine: %s, %ld CPUs, kernel %s (%s), %s\n", cpu,
		sysconf(_SC_NPROCESSORS_ONLN), u.release, u.machine, date);
	fprintf(f, "- command: `make bench%s` ->",
		cfg->quick ? " BENCH_QUICK=1" : "");
	for (i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f,
		"\n- method: BPF_PROG_TEST_RUN, ns per packet to a tenth: the thread's CPU time over each call less the call's own cost (its median over calls of two runs), within the whole ns the kernel reports; "
		"median (min) of %d trials, rows interleaved in every trial; "
		"%u runs per trial warm (%u distinct sources), %u cold (%u distinct sources, or every listed address if fewer); "
		"all rows but the two direct ones run through the harness (rewrite source, tail call), whose own cost is the row harness -> XDP_PASS. "
		"Measurements on CPU %d.\n\n",
		cfg->trials, cfg->repeat_warm, BENCH_WARM, cfg->repeat_cold,
		BENCH_SRCS_MAX, cfg->cpu);
}

/* A measured delta can come out below zero: other kernel users freed. */
static void fmt_bytes(char *buf, size_t len, long long b)
{
	if (b < 0)
		snprintf(buf, len, "~0");
	else if (b >= 1LL << 30)
		snprintf(buf, len, "%.2f GiB", b / (double)(1LL << 30));
	else if (b >= 1LL << 20)
		snprintf(buf, len, "%.1f MiB", b / (double)(1LL << 20));
	else
		snprintf(buf, len, "%.0f KiB", b / 1024.0);
}

static void fmt_ratio(char *buf, size_t len, const struct bench_row *r,
		      const struct bench_row *bw)
{
	int sc, n = 0;

	if (!bw || r == bw) {
		snprintf(buf, len, "-");
		return;
	}
	for (sc = 0; sc < SC_N; sc++)
		n += snprintf(buf + n, len - n, "%s%.2f", sc ? " / " : "",
			      bw->med[sc] > 0 ? r->med[sc] / bw->med[sc] : 0);
}

static void print_row(FILE *f, const struct bench_row *r,
		      const struct bench_row *bw)
{
	char ml[32], me[32], ratio[64], fpr[32], bits[32], load[32];
	int sc;

	fmt_bytes(ml, sizeof(ml), r->memlock);
	fmt_bytes(me, sizeof(me), r->measured);
	if (r->load_s < 0)
		snprintf(ml, sizeof(ml), "-"), snprintf(me, sizeof(me), "-");
	fmt_ratio(ratio, sizeof(ratio), r, bw);
	snprintf(fpr, sizeof(fpr), r->fpr < 0 ? "-" : "%.3f %%", r->fpr * 100);
	snprintf(bits, sizeof(bits), "-");
	if (r->memlock >= 0 && r->entries)
		snprintf(bits, sizeof(bits), "%.1f",
			 r->memlock * 8.0 / r->entries);
	snprintf(load, sizeof(load), r->load_s < 0 ? "-" : "%.2f s", r->load_s);
	fprintf(f, "| %s |", r->name);
	for (sc = 0; sc < SC_N; sc++)
		fprintf(f, " %.1f (%.1f) |", r->med[sc], r->min[sc]);
	fprintf(f, " %s | %s | %s | %s | %s | %s |", ml, me, bits, fpr, load,
		ratio);
	if (r->check == CK_NONE)
		fprintf(f, " - |\n");
	else if (r->wrong)
		fprintf(f, " **%llu WRONG** of %llu |\n",
			(unsigned long long)r->wrong,
			(unsigned long long)r->checked);
	else
		fprintf(f, " ok (%llu) |\n", (unsigned long long)r->checked);
}

void print_set(FILE *f, const struct bench_set *s, int bw_row)
{
	const struct bench_row *bw = bw_row >= 0 ? &s->rows[bw_row] : NULL;
	int i;

	fprintf(f, "### %s\n\n", s->label);
	if (s->note[0])
		fprintf(f, "%s\n\n", s->note);
	if (s->mem_filter > 0 && s->mem_hooks > 0) {
		char a[32], b[32];

		fmt_bytes(a, sizeof(a), s->mem_filter);
		fmt_bytes(b, sizeof(b), s->mem_hooks);
		fprintf(f,
			"Kernel memory (bytes_memlock): the filter map %s; every map of the XDP and TC egress programs, the filter once, %s (%.2fx the filter).\n\n",
			a, b, (double)s->mem_hooks / s->mem_filter);
	}
	fprintf(f,
		"| structure | unlisted warm | unlisted cold | listed warm | listed cold | memlock | measured | bits/entry | FPR | load+fill | x bloomwall (uw / uc / lw / lc) | verdicts |\n");
	fprintf(f,
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	for (i = 0; i < s->nrows; i++)
		print_row(f, &s->rows[i], bw);
	fprintf(f, "\n");
}
