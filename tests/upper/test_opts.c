// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The option tables (user/cmd/cli.h): every option of every verb, parsed
 * as main() parses it, writes the member its table binds it to and
 * nothing else, and refuses a bad value with a message naming it; and the
 * table parser itself on a verb of the test's own (fields, the bool of
 * given, a short letter, a seconds option's least, --help, an option
 * declared twice). test_args.c has each option's exact messages and
 * bounds. No privileges: the only interface named is lo.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd_add.h"
#include "cmd/cmd_allow.h"
#include "cmd/cmd_attach.h"
#include "cmd/cmd_build.h"
#include "cmd/cmd_detach.h"
#include "cmd/cmd_inspect.h"
#include "cmd/cmd_keygen.h"
#include "cmd/cmd_load.h"
#include "cmd/cmd_log.h"
#include "cmd/cmd_query.h"
#include "cmd/cmd_reload.h"
#include "cmd/cmd_remove.h"
#include "cmd/cmd_stats.h"
#include "cmd/cmd_status.h"
#include "cmd/cmd_watch.h"
#include "kernel/prog_spec.h"
#include "test_helpers.h"

#define MAX_ARGS 16

struct parsed {
	struct bw_args a;
	int ret;
	char *out, *err; /* stdout and stderr, to free */
	char *argv[MAX_ARGS + 2];
};

/* "bloomwall VERB ARGS..." from the verb on (args ends with NULL). */
static void parse(struct parsed *p, const struct bw_verb *v,
		  const char *const *args)
{
	struct bw_capture out, err;
	int argc = 0;

	memset(p, 0, sizeof(*p));
	p->a.mode = XDP_MODE_UNSPEC;
	p->argv[argc++] = (char *)v->name;
	while (*args && argc <= MAX_ARGS)
		p->argv[argc++] = (char *)*args++;
	bw_capture_fd(&out, STDOUT_FILENO);
	bw_capture_fd(&err, STDERR_FILENO);
	p->ret = bw_cli_parse(v, argc, p->argv, &p->a);
	p->err = bw_capture_end(&err);
	p->out = bw_capture_end(&out);
}

static void parsed_free(struct parsed *p)
{
	free(p->out);
	free(p->err);
}

/* ---- every option of every verb ---- */

static const struct bw_verb *const verbs[] = {
	&bw_verb_attach, &bw_verb_reload, &bw_verb_status,  &bw_verb_query,
	&bw_verb_add,	 &bw_verb_remove, &bw_verb_allow,   &bw_verb_unallow,
	&bw_verb_detach, &bw_verb_build,  &bw_verb_inspect, &bw_verb_load,
	&bw_verb_watch,	 &bw_verb_stats,  &bw_verb_log,	    &bw_verb_keygen,
};

/* A good value of each option that takes one and is no plain string. */
static const struct {
	const char *name, *value;
} samples[] = {
	{ "fpr", "0.01" },
	{ "seed", "7" },
	{ "match", "dst" },
	{ "max-lengths", "2,3" },
	{ "dns-action", "drop" },
	{ "dns-ttl", "5" },
	{ "log-rate", "5" },
	{ "mode", "skb" },
	{ "timeout", "5" }, /* add's duration, watch's seconds */
	{ "interval", "2" },
	{ "debounce", "1" },
	{ "count", "3" },
	{ "crowdsec-timeout", "5" },
	{ "update-frequency", "5" },
	{ "resync-interval", "10m" },
	{ "widest-range", "8,19" },
	{ "connect-timeout", "5" },
	{ "serial", "5" },
	{ "owner", "f2b-sshd" },
	{ "metrics-listen", "127.0.0.1:60607" },
	{ "refresh", "2h" },
	{ "max-age", "1d" },
};

static const char *sample_of(const struct bw_opt *o)
{
	size_t i;

	if (!o->metavar)
		return NULL;
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (!strcmp(samples[i].name, o->name))
			return samples[i].value;
	return "some/file";
}

/* Options whose value is any string: a file, a URL, a list. */
static bool takes_any_string(const struct bw_opt *o)
{
	return o->parse == bw_parse_str || !strcmp(o->name, "allow") ||
	       !strcmp(o->name, "url");
}

/* v's positional arguments that parse: lo or a FILE, the least of the rest. */
static int positionals(const struct bw_verb *v, const char **args)
{
	int n = 0, i;

	args[n++] = v->pos.first == BW_POS_FILE ? "f.img" : "lo";
	for (i = 0; i < v->pos.min_rest; i++)
		args[n++] = "x.txt";
	return n;
}

/* "VERB [--NAME [VALUE]] POSITIONALS" */
static void parse_with(struct parsed *p, const struct bw_verb *v,
		       const struct bw_opt *o, const char *value)
{
	const char *args[MAX_ARGS + 1];
	char opt[64];
	int n = 0;

	if (o) {
		snprintf(opt, sizeof(opt), "--%s", o->name);
		args[n++] = opt;
		if (value)
			args[n++] = value;
	}
	n += positionals(v, args + n);
	args[n] = NULL;
	parse(p, v, args);
	p->a.pos = NULL; /* points into p->argv, where the option moved it */
}

/* The bytes of b that o may change from a: its member and its bool. */
static bool only_its_member(const struct bw_opt *o, const struct bw_args *a,
			    const struct bw_args *b, const char *name)
{
	const unsigned char *x = (const void *)a, *y = (const void *)b;
	bool changed = false;
	size_t i;

	for (i = 0; i < sizeof(*a); i++) {
		bool its = o->size && i >= o->field && i < o->field + o->size;

		if (o->set && i == o->set)
			continue;
		if (its) {
			changed |= x[i] != y[i];
			continue;
		}
		if (x[i] != y[i]) {
			char where[160];

			snprintf(
				where, sizeof(where),
				"%s: byte %zu of struct bw_args changed, not its member at %zu",
				name, i, o->field);
			return ASSERT_TRUE(false, where);
		}
	}
	if (o->set && !ASSERT_TRUE(*(const bool *)(y + o->set), name))
		return false;
	return !o->size || ASSERT_TRUE(changed, name);
}

BW_TEST(test_opts_bind_their_member)
{
	const struct bw_opt *const *t;
	const struct bw_opt *o;
	struct parsed base, p;
	char name[96];
	size_t i, n = 0;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		parse_with(&base, verbs[i], NULL, NULL);
		if (!ASSERT_OK(base.ret, verbs[i]->name)) {
			parsed_free(&base);
			continue;
		}
		for (t = verbs[i]->opts; t && *t; t++) {
			for (o = *t; o->name; o++, n++) {
				snprintf(name, sizeof(name), "%s --%s",
					 verbs[i]->name, o->name);
				parse_with(&p, verbs[i], o, sample_of(o));
				if (ASSERT_OK(p.ret, name) &&
				    ASSERT_STREQ(p.err, "", name))
					only_its_member(o, &base.a, &p.a, name);
				parsed_free(&p);
			}
		}
		parsed_free(&base);
	}
	/* --log-rate's member is the program's rate: for what it loads. */
	ASSERT_EQ(bw_prog_log_rate(-1), 5, "--log-rate set the rate");
	bw_prog_set_log_rate(-1);
	ASSERT_GE(n, 70, "every verb's options were tried");
}

BW_TEST(test_opts_refuse_bad_values)
{
	const struct bw_opt *const *t;
	const struct bw_opt *o;
	struct parsed p;
	char name[96], want[96];
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		for (t = verbs[i]->opts; t && *t; t++) {
			for (o = *t; o->name; o++) {
				if (!o->metavar)
					continue;
				snprintf(name, sizeof(name), "%s --%s bogus!",
					 verbs[i]->name, o->name);
				parse_with(&p, verbs[i], o, "bogus!");
				if (takes_any_string(o)) {
					ASSERT_OK(p.ret, name);
					parsed_free(&p);
					continue;
				}
				ASSERT_EQ(p.ret, -BW_EUSAGE, name);
				snprintf(want, sizeof(want), "--%s ", o->name);
				ASSERT_STRSTR(p.err, want, name);
				ASSERT_STRSTR(p.err, "'bogus!'", name);
				ASSERT_STREQ(p.out, "", name);
				parsed_free(&p);
			}
		}
	}
}

/* ---- the table parser, on a verb of the test's own ---- */

static int run_nothing(struct bw_args *a)
{
	return 0;
}

static const struct bw_opt t_opts[] = {
	BW_OPT("out", "FILE", output, bw_parse_str, "where it goes",
	       .letter = 'o'),
	BW_OPT("n", "N", count, bw_parse_u32, "how many"),
	BW_OPT("wait", "SECS", ops.debounce, bw_parse_seconds, "how long",
	       .set = BW_FIELD(ops.debounce_set), .min = 1),
	BW_OPT("why", NULL, why, bw_parse_flag, "say why"),
	{ 0 },
};

static const struct bw_verb t_verb = {
	.name = "t",
	.summary = "test the option tables",
	.opts = (const struct bw_opt *const[]){ t_opts, NULL },
	.pos = { .first = BW_POS_FILE },
	.run = run_nothing,
};

BW_TEST(test_opts_table_parser)
{
	struct parsed p;

	parse(&p, &t_verb,
	      (const char *const[]){ "-o", "f.img", "--n", "0x10", "--wait",
				     "2.5", "--why", "list", NULL });
	if (ASSERT_OK(p.ret, "parsed") && ASSERT_STREQ(p.err, "", "quiet")) {
		ASSERT_STREQ(p.a.output, "f.img", "-o: the short letter");
		ASSERT_EQ(p.a.count, 16, "--n: bw_parse_u32");
		ASSERT_TRUE(p.a.ops.debounce == 2.5, "--wait: seconds");
		ASSERT_TRUE(p.a.ops.debounce_set, "--wait: its bool");
		ASSERT_TRUE(p.a.why, "--why: a flag");
		ASSERT_STREQ(p.a.file, "list", "the positional");
		ASSERT_FALSE(p.a.ops.interval || p.a.link || p.a.ops.image,
			     "no other member");
	}
	parsed_free(&p);

	/* The table's .min, in the parser's message. */
	parse(&p, &t_verb, (const char *const[]){ "--wait", "0.5", "l", NULL });
	ASSERT_EQ(p.ret, -BW_EUSAGE, "--wait under its least");
	ASSERT_STREQ(
		p.err,
		"bloomwall t: --wait takes seconds from 1 to 86400, not '0.5'\n",
		"the seconds message, the table's least");
	parsed_free(&p);
	parse(&p, &t_verb, (const char *const[]){ "l", "--n", NULL });
	ASSERT_EQ(p.ret, -BW_EUSAGE, "--n without its value");
	ASSERT_STREQ(p.err,
		     "bloomwall t: option '--n' needs a value\n"
		     "Usage: bloomwall t FILE [OPTIONS]\n"
		     "Try 'bloomwall t --help'.\n",
		     "a usage error");
	parsed_free(&p);

	/* --help: the table's lines, then the common options. */
	parse(&p, &t_verb, (const char *const[]){ "--help", NULL });
	ASSERT_EQ(p.ret, 1, "help shown");
	ASSERT_STRSTR(p.out,
		      "\nOptions:\n"
		      "  -o, --out FILE             where it goes\n"
		      "      --n N                  how many\n"
		      "      --wait SECS            how long\n"
		      "      --why                  say why\n"
		      "  -h, --help                 show this help and exit\n",
		      "the options from the table");
	parsed_free(&p);
}

/* Two options with one name or one letter: the verb is declared wrong. */
BW_TEST(test_opts_declared_twice)
{
	static const struct bw_opt twice[] = {
		BW_OPT("why", NULL, why, bw_parse_flag, "one"),
		BW_OPT("why", NULL, link, bw_parse_flag, "two"),
		{ 0 },
	};
	static const struct bw_opt letter[] = {
		BW_OPT("json-out", "FILE", output, bw_parse_str, "clashes",
		       .letter = 'j'),
		{ 0 },
	};
	struct bw_verb v = t_verb;
	struct parsed p;

	v.opts = (const struct bw_opt *const[]){ twice, NULL };
	parse(&p, &v, (const char *const[]){ "--why", "l", NULL });
	ASSERT_EQ(p.ret, -EEXIST, "a name twice");
	ASSERT_STREQ(
		p.err,
		"bloomwall t: internal error: an option is declared twice\n",
		"said");
	ASSERT_FALSE(p.a.why || p.a.link, "nothing applied");
	parsed_free(&p);
	v.opts = (const struct bw_opt *const[]){ letter, NULL };
	parse(&p, &v, (const char *const[]){ "l", NULL });
	ASSERT_EQ(p.ret, -EEXIST, "-j of --json and of the verb's");
	parsed_free(&p);
}
