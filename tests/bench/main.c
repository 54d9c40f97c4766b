// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bench - the `make bench` harness: per-packet cost of bloomwall against
 * the exact hash map, the LPM trie, the kernel's Bloom map and xdp-filter
 * (BPF_PROG_TEST_RUN), build and swap times, a veth drop-rate ratio, and a
 * check of the targets. Usage: see usage() or tests/bench/run.sh.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bench.h"
#include "bench_set.h"
#include "bench_dns.h"
#include "bench_extra.h"
#include "bloomwall.h"
#include "base/log.h"

/* The mixed list, under the data dir (bench_cfg.data_dir). */
#define MIXED_LIST "ipv4/firehol/firehol_level4.netset"
#define MAX_SETS 12

static struct bench_set sets[MAX_SETS];
static int nsets;
static struct dns_cfg dns_cfg;

static void usage(void)
{
	fprintf(stderr,
		"usage: bench [--quick] [--out FILE] [--mixed FILE] [--veth NSA:DEVA:NSB:DEVB]\n"
		"             [--cpu N] [--trials N] [--stride N] [--parts tmsvc]\n"
		"             [--sizes N[,N...]] [--sizes6 N[,N...]] [--dns-sizes N[,N...]]\n"
		"             [--bloom-only] | --print-names N | --dns-serve NSA:DEVA:NSB:DEVB,N\n"
		"             | --udp-send FILE,SECS,BATCH\n"
		"parts: t table of random lists, 6 the same for IPv6, m mixed list,\n"
		"       s build and swap, v veth, d DNS names, a DNS answers on the veth,\n"
		"       c one packet through the CLI's program (small, real lists, verify)\n"
		"       l the drop log: listed path with logging off, limited, writing\n"
		"       i live entries in place against rebuild and swap\n");
}

/* --sizes 1000000,10000000: the random list sizes to run, instead of the default. */
static int parse_sizes(const char *arg, __u64 *sizes, int *nsizes)
{
	const char *p = arg;
	char *end;

	*nsizes = 0;
	while (*p) {
		unsigned long long n = strtoull(p, &end, 10);

		if (end == p || !n || n > BENCH_MAX_SIZE ||
		    *nsizes == BENCH_MAX_SIZES || (*end && *end != ',')) {
			fprintf(stderr, "bench: bad sizes: %s\n", arg);
			return -EINVAL;
		}
		sizes[(*nsizes)++] = n;
		p = *end ? end + 1 : end;
	}
	return *nsizes ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv, struct bench_cfg *cfg)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "mixed", required_argument, NULL, 'm' },
		{ "veth", required_argument, NULL, 'V' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "trials", required_argument, NULL, 't' },
		{ "stride", required_argument, NULL, 's' },
		{ "parts", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "sizes6", required_argument, NULL, '6' },
		{ "dns-sizes", required_argument, NULL, 'D' },
		{ "print-names", required_argument, NULL, 'P' },
		{ "dns-serve", required_argument, NULL, 'S' },
		{ "udp-send", required_argument, NULL, 'U' },
		{ "bloom-only", no_argument, NULL, 'b' },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			cfg->quick = true;
			break;
		case 'o':
			cfg->results_path = optarg;
			break;
		case 'm':
			cfg->mixed_path = optarg;
			break;
		case 'V':
			cfg->veth = optarg;
			break;
		case 'c':
			cfg->cpu = atoi(optarg);
			break;
		case 't':
			cfg->trials = atoi(optarg);
			break;
		case 's':
			cfg->verify_stride = atoi(optarg);
			break;
		case 'p':
			cfg->parts = optarg;
			break;
		case 'b':
			cfg->bloom_only = true;
			break;
		case 'z':
			if (parse_sizes(optarg, cfg->sizes, &cfg->nsizes))
				return -EINVAL;
			break;
		case 'P':
			exit(dns_print_names(strtoull(optarg, NULL, 10)) ? 1
									 : 0);
		case 'S': {
			const char *c = strrchr(optarg, ',');
			int err;

			if (!c)
				return -EINVAL;
			err = dns_serve(optarg, strtoull(c + 1, NULL, 10));
			if (err)
				fprintf(stderr, "bench: --dns-serve: %s\n",
					strerror(-err));
			exit(err ? 1 : 0);
		}
		case 'U': {
			int err = udp_send(optarg);

			if (err)
				fprintf(stderr, "bench: --udp-send: %s\n",
					strerror(-err));
			exit(err ? 1 : 0);
		}
		case 'D':
			if (parse_sizes(optarg, dns_cfg.sizes, &dns_cfg.nsizes))
				return -EINVAL;
			break;
		case '6':
			if (parse_sizes(optarg, cfg->sizes6, &cfg->nsizes6))
				return -EINVAL;
			break;
		default:
			usage();
			return -EINVAL;
		}
	}
	return 0;
}

static void set_defaults(struct bench_cfg *cfg)
{
	static const __u64 full[] = { 10000, 123666, 1000000, 10000000 };
	static const __u64 quick[] = { 10000, 123666, 1000000 };
	static const __u64 full6[] = { 1000000, 10000000 };

	if (!cfg->nsizes) {
		cfg->nsizes = cfg->quick ? 3 : 4;
		memcpy(cfg->sizes, cfg->quick ? quick : full,
		       cfg->nsizes * sizeof(__u64));
	}
	if (!cfg->nsizes6) {
		/* Quick: 1M only, the smaller of the two the issue asks for. */
		cfg->nsizes6 = cfg->quick ? 1 : 2;
		memcpy(cfg->sizes6, full6, cfg->nsizes6 * sizeof(__u64));
	}
	if (!dns_cfg.nsizes) {
		dns_cfg.sizes[dns_cfg.nsizes++] = 10000;
		if (!cfg->quick)
			dns_cfg.sizes[dns_cfg.nsizes++] = 1000000;
	}
	if (!cfg->trials)
		cfg->trials = cfg->quick ? 3 : 7;
	if (cfg->trials > BENCH_MAX_TRIALS)
		cfg->trials = BENCH_MAX_TRIALS;
	if (!cfg->verify_stride)
		cfg->verify_stride = cfg->quick ? 16 : 1;
	/*
	 * Long enough that what an XDP call's own cost varies by (run_prog)
	 * moves the figure by a tenth of a ns or so, in quick runs too.
	 */
	cfg->repeat_warm = 1U << 18;
	cfg->repeat_cold = cfg->quick ? 1U << 18 : 1U << 20;
}

/* n random addresses, perm(0 .. n-1); perm(n ..) are the non-members. */
static int random_set(const struct bench_cfg *cfg, __u64 n)
{
	struct bench_set *s = &sets[nsets++];
	__u64 *keys = bench_alloc(n * sizeof(*keys));
	__u32 i;
	int err;

	snprintf(s->label, sizeof(s->label), "%llu random addresses",
		 (unsigned long long)n);
	s->n = n;
	for (i = 0; i < n; i++)
		keys[i] = bw_v4key(bench_perm(i), 32);
	s->nl = n < BENCH_SRCS_MAX ? n : BENCH_SRCS_MAX;
	s->nu = BENCH_SRCS_MAX;
	s->listed = bench_alloc(s->nl * sizeof(__u32));
	s->unlisted = bench_alloc(s->nu * sizeof(__u32));
	for (i = 0; i < s->nl; i++)
		s->listed[i] = bench_perm(i);
	for (i = 0; i < s->nu; i++)
		s->unlisted[i] = bench_perm(n + i);
	err = run_set(cfg, s, keys, n, false);
	free(keys);
	return err;
}

/*
 * n random IPv6 /128s, bench_v6_addr(0 .. n-1); bench_v6_addr(n ..) are
 * the non-members (distinct by construction).
 */
static int random_set6(const struct bench_cfg *cfg, __u64 n)
{
	struct bench_set *s = &sets[nsets++];
	struct bench_v6 *keys = bench_alloc(n * sizeof(*keys));
	__u32 i;
	int err;

	snprintf(s->label, sizeof(s->label), "%llu random IPv6 addresses",
		 (unsigned long long)n);
	s->family = BW_V6;
	s->n = n;
	for (i = 0; i < n; i++)
		keys[i] = bench_v6_addr(i);
	s->nl = n < BENCH_SRCS_MAX ? n : BENCH_SRCS_MAX;
	s->nu = BENCH_SRCS_MAX;
	s->listed6 = bench_alloc(s->nl * sizeof(*s->listed6));
	s->unlisted6 = bench_alloc(s->nu * sizeof(*s->unlisted6));
	for (i = 0; i < s->nl; i++)
		s->listed6[i] = bench_v6_addr(i);
	for (i = 0; i < s->nu; i++)
		s->unlisted6[i] = bench_v6_addr(n + i);
	err = run_set(cfg, s, keys, n, false);
	free(keys);
	return err;
}

static bool part(const struct bench_cfg *cfg, char c)
{
	return !cfg->parts || strchr(cfg->parts, c);
}

static int bw_row(const struct bench_set *s)
{
	int i;

	for (i = 0; i < s->nrows; i++)
		if (!strcmp(s->rows[i].name, "bloomwall"))
			return i;
	return -1;
}

static void print_all(FILE *f, const struct bench_cfg *cfg, int argc,
		      char **argv)
{
	int i;

	print_header(f, cfg, argc, argv);
	for (i = 0; i < nsets; i++)
		print_set(f, &sets[i], bw_row(&sets[i]));
	print_dns(f);
	print_extra(f);
	print_dns_flood(f);
	print_prog_cost(f);
	print_droplog(f);
	print_live(f);
	print_targets(f, sets, nsets, cfg->trials);
}

int main(int argc, char **argv)
{
	const char *data = getenv("BW_DATA_DIR");
	struct bench_cfg cfg = { .cpu = 1 };
	static char mixed[4096];
	FILE *out = NULL;
	int i, err = 0;

	/* Relative to the repository's root, where tests/bench/run.sh runs. */
	cfg.data_dir = data && *data ? data : "tests/data";
	snprintf(mixed, sizeof(mixed), "%s/%s", cfg.data_dir, MIXED_LIST);
	cfg.mixed_path = mixed;

	cfg.quick = getenv("BENCH_QUICK") && *getenv("BENCH_QUICK") &&
		    strcmp(getenv("BENCH_QUICK"), "0");
	if (parse_args(argc, argv, &cfg))
		return 2;
	set_defaults(&cfg);
	bw_log_setup_libbpf();
	if (pin_cpu(cfg.cpu))
		fprintf(stderr, "bench: cannot pin to CPU %d, going on\n",
			cfg.cpu);
	for (i = 0; i < cfg.nsizes && !err && part(&cfg, 't'); i++)
		err = random_set(&cfg, cfg.sizes[i]);
	for (i = 0; i < cfg.nsizes6 && !err && part(&cfg, '6'); i++)
		err = random_set6(&cfg, cfg.sizes6[i]);
	if (!err && part(&cfg, 'm'))
		err = mixed_set(&cfg, &sets[nsets], cfg.mixed_path);
	if (!err && sets[nsets].nrows)
		nsets++;
	if (!err && part(&cfg, 'd'))
		err = bench_dns(&cfg, &dns_cfg);
	if (!err && part(&cfg, 's'))
		err = bench_build_swap(&cfg);
	if (!err && cfg.veth && part(&cfg, 'v'))
		err = bench_veth(&cfg);
	if (!err && cfg.veth && part(&cfg, 'a'))
		err = bench_dns_flood(&cfg);
	if (!err && part(&cfg, 'c'))
		err = bench_prog_cost(&cfg);
	if (!err && part(&cfg, 'l'))
		err = bench_droplog(&cfg);
	if (!err && part(&cfg, 'i'))
		err = bench_live(&cfg);
	print_all(stdout, &cfg, argc, argv);
	if (cfg.results_path)
		out = fopen(cfg.results_path, "w");
	if (out) {
		print_all(out, &cfg, argc, argv);
		fclose(out);
	}
	if (err)
		fprintf(stderr, "bench: FAILED: %s\n", strerror(-err));
	return err ? 1 : 0;
}
