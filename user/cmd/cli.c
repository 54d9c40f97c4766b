// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Option parsing for the verbs: the verb tables (options bound to their
 * member and parser, positional arguments) feed one getopt_long wrapper,
 * which applies each option, and the usage texts. The typed parsers of
 * option values are in args.c.
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

/* --verbose and --json act at once, on no member: a usage error after them
 * is already told their way. */
static int set_verbose(const struct bw_opt_val *o, void *field)
{
	bw_log_level = BW_LOG_DEBUG;
	return 0;
}

static int set_json(const struct bw_opt_val *o, void *field)
{
	bw_out_begin(true, NULL);
	return 0;
}

/* Every verb takes these besides its own. */
static const struct bw_opt common_opts[] = {
	{ .name = "help", .letter = 'h', .help = "show this help and exit" },
	{ .name = "verbose",
	  .letter = 'v',
	  .parse = set_verbose,
	  .help = "also show libbpf/libxdp messages" },
	{ .name = "json",
	  .letter = 'j',
	  .parse = set_json,
	  .help = "print one JSON document on stdout" },
	{ 0 },
};

/* --allow FILE, in order, up to BW_MAX_ALLOW_FILES (struct bw_build_args). */
static int add_allow(const struct bw_opt_val *o, void *field)
{
	struct bw_build_args *b = field;

	if (b->nallow == BW_MAX_ALLOW_FILES)
		return bw_cli_usage_error(
			o->v, "too many --allow files (%s)",
			"at most " bw_textify(BW_MAX_ALLOW_FILES));
	b->allow[b->nallow++] = o->arg;
	return 0;
}

const struct bw_opt bw_build_opts[] = {
	BW_OPT("fpr", "P", build.fpr, bw_parse_fpr,
	       "target false-positive rate, 0 < P < 0.5 (default 0.001)",
	       .set = BW_FIELD(build.fpr_set)),
	BW_OPT("seed", "N", build.seed, bw_parse_u32,
	       "hash seed, decimal or 0x hex (default: random)",
	       .set = BW_FIELD(build.seed_set)),
	BW_OPT("skip-invalid", NULL, build.skip_invalid, bw_parse_flag,
	       "warn about bad list lines and skip them"),
	BW_OPT("monitor", NULL, build.monitor, bw_parse_flag,
	       "count matching packets but never drop them"),
	BW_OPT("match", "DIR", build.match, bw_parse_match,
	       "test the src (default), dst or both addresses"),
	BW_OPT("max-lengths", "N[,M]", build.max_lengths, bw_parse_max_lengths,
	       "target prefix lengths per family, IPv4[,IPv6], 1-4 (default 4,4)"),
	BW_OPT("mask-host-bits", NULL, build.mask_host_bits, bw_parse_flag,
	       "mask a.b.c.d/len with host bits set (warn) instead of failing"),
	BW_OPT("allow", "FILE", build, add_allow,
	       "never drop the addresses/prefixes in FILE (repeatable)"),
	BW_OPT("verify", NULL, build.verify, bw_parse_flag,
	       "drop a Bloom hit only if an exact trie of the lists confirms it"),
	BW_OPT("dns-action", "A", build.dns_action, bw_parse_dns_action,
	       "answer to a blocked name: null (default), nxdomain, refused, drop",
	       .set = BW_FIELD(build.dns_action_set)),
	BW_OPT("dns-ttl", "SECS", build.dns_ttl, bw_parse_dns_ttl,
	       "TTL of the null action's answer, 0-86400 (default 60)",
	       .set = BW_FIELD(build.dns_ttl_set)),
	BW_OPT("subdomains", NULL, build.subdomains, bw_parse_flag,
	       "every listed name blocks its subdomains too"),
	BW_OPT("no-subdomains", NULL, build.no_subdomains, bw_parse_flag,
	       "names block as listed (undoes an earlier --subdomains)"),
	{ 0 },
};

/* The rate is the program's, not a filter's: every load from now on. */
static int set_log_rate(const struct bw_opt_val *o, void *field)
{
	__u32 rate;
	int err = bw_parse_log_rate(o, &rate);

	if (!err)
		bw_build_set_log_rate(rate);
	return err;
}

const struct bw_opt bw_log_opts[] = {
	{ .name = "log-rate",
	  .metavar = "N",
	  .parse = set_log_rate,
	  .help = "drop log: at most N events a second per CPU, 0 off (default: as running, else 10)" },
	{ 0 },
};

static void print_opt(const struct bw_opt *o)
{
	char left[48];

	snprintf(left, sizeof(left), "%c%c%s --%s%s%s", o->letter ? '-' : ' ',
		 o->letter ?: ' ', o->letter ? "," : " ", o->name,
		 o->metavar ? " " : "", o->metavar ?: "");
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

int bw_cli_usage_error(const struct bw_verb *v, const char *fmt,
		       const char *what)
{
	fprintf(stderr, "bloomwall %s: ", v->name);
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	print_usage_line(stderr, v);
	fprintf(stderr, "Try 'bloomwall %s --help'.\n", v->name);
	return -BW_EUSAGE;
}

/*
 * getopt_long's tables, sized for the verb: no option can be cut off. A
 * long option returns its letter, or BW_LONG_ONLY + its index in opt.
 */
#define BW_LONG_ONLY 256

struct getopt_tables {
	const struct bw_opt **opt;
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
		if (!strcmp(g->opt[i]->name, o->name) ||
		    (o->letter && g->opt[i]->letter == o->letter))
			return -EEXIST;
	g->lo[g->n] =
		(struct option){ o->name,
				 o->metavar ? required_argument : no_argument,
				 NULL, o->letter ?: BW_LONG_ONLY + g->n };
	g->opt[g->n++] = o;
	if (o->letter) {
		g->shorts[g->s++] = o->letter;
		if (o->metavar)
			g->shorts[g->s++] = ':';
	}
	return 0;
}

static int build_getopt(const struct bw_verb *v, struct getopt_tables *g)
{
	int n = 0;

	for_each_opt(v, count_opt, &n);
	g->opt = calloc(n + 1, sizeof(*g->opt));
	g->lo = calloc(n + 1, sizeof(*g->lo));
	g->shorts = calloc(2 * n + 2, 1);
	g->n = g->s = 0;
	if (!g->opt || !g->lo || !g->shorts)
		return -ENOMEM;
	g->shorts[g->s++] = ':';
	return for_each_opt(v, add_opt, g);
}

/* The option getopt_long returned c for; NULL: none ('?'). */
static const struct bw_opt *opt_of(const struct getopt_tables *g, int c)
{
	int i;

	if (c >= BW_LONG_ONLY)
		return g->opt[c - BW_LONG_ONLY];
	for (i = 0; i < g->n; i++)
		if (g->opt[i]->letter == c)
			break;
	return g->opt[i];
}

int bw_cli_apply(const struct bw_verb *v, struct bw_args *a,
		 const struct bw_opt *o, const char *arg, const char *where)
{
	char opt[64];
	const struct bw_opt_val val = { .verb = where ?: v->name,
					.v = v,
					.opt = opt,
					.arg = arg,
					.min = o->min };

	snprintf(opt, sizeof(opt), "--%s", o->name);
	if (o->set)
		*(bool *)((char *)a + o->set) = true;
	return o->parse(&val, (char *)a + o->field);
}

struct find_ctx {
	const char *name;
	const struct bw_opt *found;
};

static int match_name(const struct bw_opt *o, void *ctx)
{
	struct find_ctx *f = ctx;

	if (strcmp(o->name, f->name))
		return 0;
	f->found = o;
	return 1;
}

const struct bw_opt *bw_cli_find_opt(const struct bw_verb *v, const char *name)
{
	struct find_ctx f = { name, NULL };

	for_each_opt(v, match_name, &f);
	return f.found;
}

/* More distinct options than any verb has. */
#define BW_MAX_GIVEN 96

/* The options the last parse's command line gave, each once. */
static struct {
	const struct bw_opt *opt[BW_MAX_GIVEN];
	int n;
} given;

bool bw_cli_given(const struct bw_opt *o)
{
	int i;

	for (i = 0; i < given.n; i++)
		if (given.opt[i] == o)
			return true;
	return false;
}

static void record_given(const struct bw_opt *o)
{
	if (!bw_cli_given(o) && given.n < BW_MAX_GIVEN)
		given.opt[given.n++] = o;
}

/* The checks across options, once all are in. */
static int check_opts(const struct bw_verb *v, const struct bw_args *a)
{
	const struct bw_build_args *b = &a->build;

	if (b->monitor && b->enforce)
		return bw_cli_usage_error(
			v, "%s", "--monitor and --enforce exclude each other");
	if (b->subdomains && b->no_subdomains)
		return bw_cli_usage_error(
			v, "%s",
			"--subdomains and --no-subdomains exclude each other");
	return 0;
}

/* The failing option as typed, for "unknown option" messages. */
static const char *bad_opt(char **argv, int opt)
{
	static char buf[3];

	if (opt > 0 && opt < BW_LONG_ONLY && isalnum(opt)) {
		snprintf(buf, sizeof(buf), "-%c", opt);
		return buf;
	}
	return argv[optind - 1];
}

static int run_getopt(const struct bw_verb *v, int argc, char **argv,
		      struct bw_args *a, const struct getopt_tables *g)
{
	const struct bw_opt *o;
	int c, err;

	opterr = 0;
	optind = 0;
	given.n = 0;
	while ((c = getopt_long(argc, argv, g->shorts, g->lo, NULL)) != -1) {
		if (c == ':')
			return bw_cli_usage_error(v,
						  "option '%s' needs a value",
						  bad_opt(argv, optopt));
		o = opt_of(g, c);
		if (!o)
			return bw_cli_usage_error(v, "unknown option '%s'",
						  bad_opt(argv, optopt));
		if (!o->parse) {
			bw_cli_verb_usage(v, true);
			return 1;
		}
		err = bw_cli_apply(v, a, o, optarg, NULL);
		if (err)
			return err;
		record_given(o);
	}
	return check_opts(v, a);
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
	free(g.opt);
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
		return bw_cli_usage_error(v, "%s", "missing arguments");
	if (!p->rest_many && n > 1 + !!p->rest)
		return bw_cli_usage_error(v, "unexpected argument '%s'",
					  argv[optind + 1 + !!p->rest]);
	if (p->first == BW_POS_FILE)
		a->file = argv[optind];
	else
		a->iface = argv[optind];
	a->pos = argv + optind + 1;
	a->npos = n - 1;
	return parse_first(v, a);
}
