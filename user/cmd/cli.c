// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Option parsing for the verbs: the verb tables (option groups, positional
 * arguments) feed one getopt_long wrapper and the usage texts. The typed
 * parsers of option values are in args.c.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "lists/list.h"
#include "base/log.h"
#include "base/output.h"
#include "base/run_dir.h"
#include "ops/build.h"

/* Every verb takes these besides its own. */
static const struct bw_opt common_opts[] = {
	{ "help", BW_OPT_HELP, NULL, "show this help and exit" },
	{ "verbose", BW_OPT_VERBOSE, NULL, "also show libbpf/libxdp messages" },
	{ "json", BW_OPT_JSON, NULL, "print one JSON document on stdout" },
	{ 0 },
};

const struct bw_opt bw_build_opts[] = {
	{ "fpr", BW_OPT_FPR, "P",
	  "target false-positive rate, 0 < P < 0.5 (default 0.001)" },
	{ "seed", BW_OPT_SEED, "N",
	  "hash seed, decimal or 0x hex (default: random)" },
	{ "skip-invalid", BW_OPT_SKIP_INVALID, NULL,
	  "warn about bad list lines and skip them" },
	{ "monitor", BW_OPT_MONITOR, NULL,
	  "count matching packets but never drop them" },
	{ "match", BW_OPT_MATCH, "DIR",
	  "test the src (default), dst or both addresses" },
	{ "max-lengths", BW_OPT_MAX_LENGTHS, "N[,M]",
	  "target prefix lengths per family, IPv4[,IPv6], 1-4 (default 4,4)" },
	{ "mask-host-bits", BW_OPT_MASK_HOST_BITS, NULL,
	  "mask a.b.c.d/len with host bits set (warn) instead of failing" },
	{ "allow", BW_OPT_ALLOW, "FILE",
	  "never drop the addresses/prefixes in FILE (repeatable)" },
	{ "verify", BW_OPT_VERIFY, NULL,
	  "drop a Bloom hit only if an exact trie of the lists confirms it" },
	{ "dns-action", BW_OPT_DNS_ACTION, "A",
	  "answer to a blocked name: null (default), nxdomain, refused, drop" },
	{ "dns-ttl", BW_OPT_DNS_TTL, "SECS",
	  "TTL of the null action's answer, 0-86400 (default 60)" },
	{ "subdomains", BW_OPT_SUBDOMAINS, NULL,
	  "every listed name blocks its subdomains too" },
	{ "no-subdomains", BW_OPT_NO_SUBDOMAINS, NULL,
	  "names block as listed (undoes an earlier --subdomains)" },
	{ 0 },
};

const struct bw_opt bw_log_opts[] = {
	{ "log-rate", BW_OPT_LOG_RATE, "N",
	  "drop log: at most N events a second per CPU, 0 off (default: as running, else 10)" },
	{ 0 },
};

static bool is_short(int id)
{
	return id < 256;
}

static void print_opt(const struct bw_opt *o)
{
	char left[48];

	snprintf(left, sizeof(left), "%c%c%s --%s%s%s",
		 is_short(o->id) ? '-' : ' ', is_short(o->id) ? o->id : ' ',
		 is_short(o->id) ? "," : " ", o->name, o->metavar ? " " : "",
		 o->metavar ?: "");
	printf("  %-26s %s\n", left, o->help);
}

/* Calls fn for each option of v, its own tables first; stops on non-zero. */
static int for_each_opt(const struct bw_verb *v,
			int (*fn)(const struct bw_opt *o, void *ctx), void *ctx)
{
	const struct bw_opt *const *t;
	const struct bw_opt *o;
	int err;

	for (t = v->opts; t && *t; t++) {
		for (o = *t; o->name; o++) {
			err = fn(o, ctx);
			if (err)
				return err;
		}
	}
	for (o = common_opts; o->name; o++) {
		err = fn(o, ctx);
		if (err)
			return err;
	}
	return 0;
}

static int show_opt(const struct bw_opt *o, void *ctx)
{
	print_opt(o);
	return 0;
}

/* "IFACE [OPTIONS] LIST...", from the verb's tables. */
static void print_usage_line(FILE *f, const struct bw_verb *v)
{
	const char *first = v->pos.first == BW_POS_FILE ? "FILE" : "IFACE";
	bool own = v->opts && *v->opts;

	fprintf(f, "Usage: bloomwall %s ", v->name);
	if (v->synopsis) {
		fprintf(f, "%s\n", v->synopsis);
		return;
	}
	if (v->pos.first_optional)
		fprintf(f, "%s[%s]", own ? "[OPTIONS] " : "", first);
	else
		fprintf(f, "%s%s", first, own ? " [OPTIONS]" : "");
	if (v->pos.rest)
		fprintf(f, v->pos.min_rest ? " %s%s" : " [%s%s]", v->pos.rest,
			v->pos.rest_many ? "..." : "");
	fputc('\n', f);
}

void bw_cli_verb_usage(const struct bw_verb *v, bool full)
{
	print_usage_line(stdout, v);
	if (!full)
		return;
	printf("%c%s.\n", toupper((unsigned char)v->summary[0]),
	       v->summary + 1);
	if (v->details)
		printf("\n%s", v->details);
	printf("\nOptions:\n");
	for_each_opt(v, show_opt, NULL);
	printf("\nExit status: 0 ok, 1 failure, 2 usage error. See bloomwall(8).\n");
}

static int usage_error(const struct bw_verb *v, const char *fmt,
		       const char *what)
{
	fprintf(stderr, "bloomwall %s: ", v->name);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	print_usage_line(stderr, v);
	fprintf(stderr, "Try 'bloomwall %s --help'.\n", v->name);
	return -BW_EUSAGE;
}

/* getopt_long's tables, sized for the verb: no option can be cut off. */
struct getopt_tables {
	struct option *lo;
	char *shorts;
	int n, s;
};

static int count_opt(const struct bw_opt *o, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

static int add_opt(const struct bw_opt *o, void *ctx)
{
	struct getopt_tables *g = ctx;
	int i;

	/* Two tables with one name or letter: a verb declared wrong. */
	for (i = 0; i < g->n; i++)
		if (!strcmp(g->lo[i].name, o->name) || g->lo[i].val == o->id)
			return -EEXIST;
	g->lo[g->n++] =
		(struct option){ o->name,
				 o->metavar ? required_argument : no_argument,
				 NULL, o->id };
	if (is_short(o->id)) {
		g->shorts[g->s++] = (char)o->id;
		if (o->metavar)
			g->shorts[g->s++] = ':';
	}
	return 0;
}

static int build_getopt(const struct bw_verb *v, struct getopt_tables *g)
{
	int n = 0;

	for_each_opt(v, count_opt, &n);
	g->lo = calloc(n + 1, sizeof(*g->lo));
	g->shorts = calloc(2 * n + 2, 1);
	g->n = g->s = 0;
	if (!g->lo || !g->shorts)
		return -ENOMEM;
	g->shorts[g->s++] = ':';
	return for_each_opt(v, add_opt, g);
}

/* The rate is the program's, not a filter's: every load from now on. */
static int apply_log_rate(const char *arg)
{
	__u32 rate;
	int err = bw_parse_log_rate(arg, &rate);

	if (!err)
		bw_build_set_log_rate(rate);
	return err;
}

static int apply_opt(const struct bw_verb *v, struct bw_args *a, int id,
		     const char *arg)
{
	struct bw_build_args *b = &a->build;
	__u32 n;

	switch (id) {
	case BW_OPT_VERBOSE:
		bw_log_level = BW_LOG_DEBUG;
		return 0;
	case BW_OPT_MODE:
		return bw_parse_mode(arg, &a->mode);
	case BW_OPT_FPR:
		b->fpr_set = true;
		return bw_parse_fpr(arg, &b->fpr);
	case BW_OPT_SEED:
		b->seed_set = true;
		return bw_parse_u32("--seed", arg, &b->seed);
	case BW_OPT_SKIP_INVALID:
		b->skip_invalid = true;
		return 0;
	case BW_OPT_MONITOR:
	case BW_OPT_ENFORCE:
		*(id == BW_OPT_MONITOR ? &b->monitor : &b->enforce) = true;
		if (b->monitor && b->enforce)
			return usage_error(
				v, "%s",
				"--monitor and --enforce exclude each other");
		return 0;
	case BW_OPT_MATCH:
		return bw_parse_match(arg, &b->match);
	case BW_OPT_JSON:
		bw_out_begin(true, NULL);
		return 0;
	case BW_OPT_MAX_LENGTHS:
		return bw_parse_max_lengths(arg, b->max_lengths);
	case BW_OPT_MASK_HOST_BITS:
		b->mask_host_bits = true;
		return 0;
	case BW_OPT_VERIFY:
		b->verify = true;
		return 0;
	case BW_OPT_DNS_ACTION:
		b->dns_action_set = true;
		return bw_parse_dns_action(arg, &b->dns_action);
	case BW_OPT_DNS_TTL:
		b->dns_ttl_set = true;
		return bw_parse_dns_ttl(arg, &b->dns_ttl);
	case BW_OPT_SUBDOMAINS:
	case BW_OPT_NO_SUBDOMAINS:
		*(id == BW_OPT_SUBDOMAINS ? &b->subdomains
					  : &b->no_subdomains) = true;
		if (b->subdomains && b->no_subdomains)
			return usage_error(
				v, "%s",
				"--subdomains and --no-subdomains exclude each other");
		return 0;
	case BW_OPT_OUTPUT:
		a->output = arg;
		return 0;
	case BW_OPT_LINK:
		a->link = true;
		return 0;
	case BW_OPT_FORGET_ADDED:
		b->forget_added = true;
		return 0;
	case BW_OPT_WHY:
		a->why = true;
		return 0;
	case BW_OPT_LOG_RATE:
		return apply_log_rate(arg);
	case BW_OPT_COUNT:
		if (bw_parse_u32("--count", arg, &n))
			return -BW_EUSAGE;
		a->count = n;
		return 0;
	case BW_OPT_TIMEOUT:
		a->timeout_set = true;
		return bw_parse_timeout(arg, &a->timeout);
	case BW_OPT_ALLOW:
		if (b->nallow == BW_MAX_ALLOW_FILES)
			return usage_error(
				v, "too many --allow files (%s)",
				"at most " bw_textify(BW_MAX_ALLOW_FILES));
		b->allow[b->nallow++] = arg;
		return 0;
	}
	if (id >= BW_OPT_CS_FIRST) /* watch's CrowdSec options (cs_args.c) */
		return bw_cs_opt(v->name, &a->cs, id, arg);
	if (id >= BW_OPT_PULL_FIRST) /* watch --url's (pull_args.c) */
		return bw_pull_opt(v->name, &a->pull, id, arg);
	if (id >= BW_OPT_SIGN_FIRST) /* signed images' (sign_args.c) */
		return bw_sign_opt(v->name, &a->sign, id, arg);
	if (id >= BW_OPT_OPS_FIRST) /* watch's and stats' (ops_args.c) */
		return bw_ops_opt(v->name, &a->ops, id, arg);
	return usage_error(v, "%s", "internal error: unhandled option");
}

/* The failing option as typed, for "unknown option" messages. */
static const char *bad_opt(char **argv, int opt)
{
	static char buf[3];

	if (opt > 0 && opt < 256 && isalnum(opt)) {
		snprintf(buf, sizeof(buf), "-%c", opt);
		return buf;
	}
	return argv[optind - 1];
}

static int run_getopt(const struct bw_verb *v, int argc, char **argv,
		      struct bw_args *a, const struct getopt_tables *g)
{
	int c, err;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, g->shorts, g->lo, NULL)) != -1) {
		if (c == BW_OPT_HELP) {
			bw_cli_verb_usage(v, true);
			return 1;
		}
		if (c == '?')
			return usage_error(v, "unknown option '%s'",
					   bad_opt(argv, optopt));
		if (c == ':')
			return usage_error(v, "option '%s' needs a value",
					   bad_opt(argv, optopt));
		err = apply_opt(v, a, c, optarg);
		if (err)
			return err;
	}
	return 0;
}

static int parse_options(const struct bw_verb *v, int argc, char **argv,
			 struct bw_args *a)
{
	struct getopt_tables g;
	int err;

	err = build_getopt(v, &g);
	if (err == -EEXIST)
		pr_warn("bloomwall %s: internal error: an option is declared twice\n",
			v->name);
	else if (err)
		pr_warn("bloomwall: out of memory\n");
	else
		err = run_getopt(v, argc, argv, a, &g);
	free(g.lo);
	free(g.shorts);
	return err;
}

/* The first positional argument: an interface, or a file. */
static int parse_first(const struct bw_verb *v, struct bw_args *a)
{
	if (v->pos.first == BW_POS_FILE)
		return 0;
	/* The verb decides whether a vanished interface is an error. */
	if (v->pos.iface_may_vanish && bw_iface_name_ok(a->iface)) {
		a->ifindex = (int)if_nametoindex(a->iface);
		return 0;
	}
	return bw_parse_iface(a->iface, &a->ifindex);
}

int bw_cli_parse(const struct bw_verb *v, int argc, char **argv,
		 struct bw_args *a)
{
	const struct bw_pos *p = &v->pos;
	int n, err;

	err = parse_options(v, argc, argv, a);
	if (err)
		return err;
	n = argc - optind;
	if (n == 0 && p->first_optional)
		return 0;
	if (n < 1 + p->min_rest)
		return usage_error(v, "%s", "missing arguments");
	if (!p->rest_many && n > 1 + !!p->rest)
		return usage_error(v, "unexpected argument '%s'",
				   argv[optind + 1 + !!p->rest]);
	if (p->first == BW_POS_FILE)
		a->file = argv[optind];
	else
		a->iface = argv[optind];
	a->pos = argv + optind + 1;
	a->npos = n - 1;
	return parse_first(v, a);
}
