// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The command line (user/cmd/cli.c, args.c): each verb's
 * positional arguments, unknown options, every typed value at its bounds
 * and beyond, the defaults a build request gets, --help. Each case runs
 * bw_cli_parse() as main() does, stdout and stderr captured, and asserts
 * the exact text a user would read. Nothing here needs privileges: the
 * only interface named is lo, which every network namespace has.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/bloom.h"
#include "cmd/cli.h"
#include "cmd/cmd_add.h"
#include "cmd/cmd_allow.h"
#include "cmd/cmd_attach.h"
#include "cmd/cmd_build.h"
#include "cmd/cmd_detach.h"
#include "cmd/cmd_inspect.h"
#include "cmd/cmd_load.h"
#include "cmd/cmd_log.h"
#include "cmd/cmd_query.h"
#include "cmd/cmd_reload.h"
#include "cmd/cmd_remove.h"
#include "cmd/cmd_stats.h"
#include "cmd/cmd_status.h"
#include "cmd/cmd_watch.h"
#include "base/log.h"
#include "kernel/prog.h"
#include "kernel/prog_spec.h"
#include "ops/reload.h"
#include "test_helpers.h"

/* ---- running a parse, its output captured ---- */

#define MAX_ARGS 80

struct run {
	struct bw_args a;
	int ret;
	char *out, *err;	  /* stdout and stderr, to free (run_free) */
	char *argv[MAX_ARGS + 2]; /* a.pos points in here */
};

/*
 * "bloomwall VERB ARGS..." from the verb on, as main() hands it to
 * bw_cli_parse(): args ends with NULL. The args are as main() starts them.
 */
static void run_parse(struct run *r, const struct bw_verb *v,
		      const char *const *args)
{
	struct bw_capture out, err;
	int argc = 0;

	memset(r, 0, sizeof(*r));
	r->a.mode = XDP_MODE_UNSPEC;
	r->argv[argc++] = (char *)v->name;
	while (*args && argc <= MAX_ARGS)
		r->argv[argc++] = (char *)*args++;
	bw_capture_fd(&out, STDOUT_FILENO);
	bw_capture_fd(&err, STDERR_FILENO);
	r->ret = bw_cli_parse(v, argc, r->argv, &r->a);
	r->err = bw_capture_end(&err);
	r->out = bw_capture_end(&out);
}

/* The verb's own check after the parse (run with a parse that failed it). */
static int run_verb(struct run *r, const struct bw_verb *v)
{
	struct bw_capture out, err;

	free(r->out);
	free(r->err);
	bw_capture_fd(&out, STDOUT_FILENO);
	bw_capture_fd(&err, STDERR_FILENO);
	r->ret = v->run(&r->a);
	r->err = bw_capture_end(&err);
	r->out = bw_capture_end(&out);
	return r->ret;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

#define PARSE(r, verb, ...)             \
	run_parse((r), &bw_verb_##verb, \
		  (const char *const[]){ __VA_ARGS__, NULL })

/* A usage error of verb: the message, then its usage line, then the hint. */
#define USAGE_ERR(verb, msg, usage)                                     \
	"bloomwall " verb ": " msg "\nUsage: bloomwall " verb " " usage \
	"\nTry 'bloomwall " verb " --help'.\n"

/* Parses and expects a usage error whose whole stderr is want. */
static bool refused(struct run *r, const char *want, const char *name)
{
	bool ok = ASSERT_EQ(r->ret, -BW_EUSAGE, name);

	ok = ASSERT_STREQ(r->err, want, name) && ok;
	ok = ASSERT_STREQ(r->out, "", "nothing on stdout") && ok;
	run_free(r);
	return ok;
}

/* Parses and expects success with nothing printed. */
static bool accepted(struct run *r, const char *name)
{
	bool ok = ASSERT_OK(r->ret, name);

	ok = ASSERT_STREQ(r->err, "", name) && ok;
	ok = ASSERT_STREQ(r->out, "", "nothing on stdout") && ok;
	return ok;
}

/* ---- positional arguments ---- */

/*
 * Each verb with too few arguments: "missing arguments" and the verb's
 * usage line, which names what it takes.
 */
BW_TEST(test_cli_missing_positionals)
{
	static const struct {
		const struct bw_verb *v;
		const char *arg; /* one argument too few: NULL, or IFACE */
		const char *want;
	} cases[] = {
		{ &bw_verb_attach, NULL,
		  USAGE_ERR("attach", "missing arguments",
			    "IFACE [OPTIONS] LIST...") },
		{ &bw_verb_attach, "lo",
		  USAGE_ERR("attach", "missing arguments",
			    "IFACE [OPTIONS] LIST...") },
		{ &bw_verb_reload, "lo",
		  USAGE_ERR("reload", "missing arguments",
			    "IFACE [OPTIONS] LIST...") },
		{ &bw_verb_query, "lo",
		  USAGE_ERR("query", "missing arguments",
			    "IFACE [OPTIONS] ADDR|NAME...") },
		{ &bw_verb_add, "lo",
		  USAGE_ERR("add", "missing arguments",
			    "IFACE [OPTIONS] ADDR|CIDR|NAME...") },
		{ &bw_verb_remove, "lo",
		  USAGE_ERR("remove", "missing arguments",
			    "IFACE [OPTIONS] ADDR|CIDR|NAME...") },
		{ &bw_verb_allow, "lo",
		  USAGE_ERR("allow", "missing arguments",
			    "IFACE ADDR|CIDR|NAME...") },
		{ &bw_verb_unallow, "lo",
		  USAGE_ERR("unallow", "missing arguments",
			    "IFACE ADDR|CIDR|NAME...") },
		{ &bw_verb_detach, NULL,
		  USAGE_ERR("detach", "missing arguments", "IFACE") },
		{ &bw_verb_build, NULL,
		  USAGE_ERR("build", "missing arguments",
			    "-o FILE [OPTIONS] LIST...") },
		{ &bw_verb_inspect, NULL,
		  USAGE_ERR("inspect", "missing arguments", "FILE [OPTIONS]") },
		{ &bw_verb_load, "lo",
		  USAGE_ERR("load", "missing arguments",
			    "IFACE [OPTIONS] FILE") },
		{ &bw_verb_watch, NULL,
		  USAGE_ERR(
			  "watch", "missing arguments",
			  "IFACE [OPTIONS] LIST...  |  IFACE [OPTIONS] --image FILE  |  IFACE [OPTIONS] --url URL...") },
		{ &bw_verb_stats, NULL,
		  USAGE_ERR("stats", "missing arguments", "IFACE [OPTIONS]") },
		{ &bw_verb_log, NULL,
		  USAGE_ERR("log", "missing arguments", "IFACE [OPTIONS]") },
	};
	struct run r;
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "%s %s", cases[i].v->name,
			 cases[i].arg ?: "(nothing)");
		run_parse(&r, cases[i].v,
			  (const char *const[]){ cases[i].arg, NULL });
		refused(&r, cases[i].want, name);
	}
}

/* status alone shows every interface: no argument is missing. */
BW_TEST(test_cli_status_optional_iface)
{
	struct run r;

	PARSE(&r, status, NULL);
	accepted(&r, "status");
	ASSERT_TRUE(r.a.iface == NULL, "no interface: every one");
	run_free(&r);
	PARSE(&r, status, "lo");
	accepted(&r, "status lo");
	ASSERT_STREQ(r.a.iface, "lo", "one interface");
	run_free(&r);
}

BW_TEST(test_cli_too_many_positionals)
{
	struct run r;

	PARSE(&r, detach, "lo", "extra");
	refused(&r, USAGE_ERR("detach", "unexpected argument 'extra'", "IFACE"),
		"detach IFACE takes one argument");
	PARSE(&r, load, "lo", "a.img", "b.img");
	refused(&r,
		USAGE_ERR("load", "unexpected argument 'b.img'",
			  "IFACE [OPTIONS] FILE"),
		"load takes one FILE");
	PARSE(&r, inspect, "a.img", "b.img");
	refused(&r,
		USAGE_ERR("inspect", "unexpected argument 'b.img'",
			  "FILE [OPTIONS]"),
		"inspect takes one FILE");
}

/* The positionals as the verbs read them; options may come after them. */
BW_TEST(test_cli_positionals_parsed)
{
	struct run r;

	PARSE(&r, attach, "lo", "a.txt", "--fpr", "0.01", "b.txt");
	if (accepted(&r, "attach lo a.txt --fpr 0.01 b.txt")) {
		ASSERT_STREQ(r.a.iface, "lo", "IFACE");
		ASSERT_EQ(r.a.ifindex, if_nametoindex("lo"), "its index");
		ASSERT_EQ(r.a.npos, 2, "two lists");
		ASSERT_STREQ(r.a.pos[0], "a.txt", "the first list");
		ASSERT_STREQ(r.a.pos[1], "b.txt", "the list after an option");
		ASSERT_TRUE(r.a.build.fpr_set, "the option after a list");
	}
	run_free(&r);
	/* A FILE verb takes its first argument as it is, no interface. */
	PARSE(&r, inspect, "no/such/dir/x.img");
	accepted(&r, "inspect FILE");
	ASSERT_STREQ(r.a.file, "no/such/dir/x.img", "FILE as given");
	ASSERT_TRUE(!r.a.iface, "no interface");
	ASSERT_EQ(r.a.ifindex, 0, "no interface looked up");
	run_free(&r);
	/* "--" ends the options: "-1" is then an argument. */
	PARSE(&r, query, "lo", "--", "-1");
	accepted(&r, "query lo -- -1");
	ASSERT_EQ(r.a.npos, 1, "one argument after --");
	ASSERT_STREQ(r.a.pos[0], "-1", "taken as it is");
	run_free(&r);
}

/* ---- options ---- */

BW_TEST(test_cli_unknown_option)
{
	struct run r;

	PARSE(&r, attach, "--bogus", "lo", "a.txt");
	refused(&r,
		USAGE_ERR("attach", "unknown option '--bogus'",
			  "IFACE [OPTIONS] LIST..."),
		"a long option no verb has");
	PARSE(&r, attach, "-Z", "lo", "a.txt");
	refused(&r,
		USAGE_ERR("attach", "unknown option '-Z'",
			  "IFACE [OPTIONS] LIST..."),
		"a short option no verb has");
	/* Another verb's option is unknown here. */
	PARSE(&r, stats, "lo", "--fpr", "0.1");
	refused(&r,
		USAGE_ERR("stats", "unknown option '--fpr'", "IFACE [OPTIONS]"),
		"stats has no --fpr");
	PARSE(&r, detach, "--mode", "skb", "lo");
	refused(&r, USAGE_ERR("detach", "unknown option '--mode'", "IFACE"),
		"detach has no --mode");
	PARSE(&r, reload, "lo", "a.txt", "--link");
	refused(&r,
		USAGE_ERR("reload", "unknown option '--link'",
			  "IFACE [OPTIONS] LIST..."),
		"--link is attach's");
	PARSE(&r, attach, "lo", "a.txt", "--enforce");
	refused(&r,
		USAGE_ERR("attach", "unknown option '--enforce'",
			  "IFACE [OPTIONS] LIST..."),
		"--enforce is reload's");
}

BW_TEST(test_cli_option_needs_value)
{
	struct run r;

	PARSE(&r, attach, "lo", "a.txt", "--fpr");
	refused(&r,
		USAGE_ERR("attach", "option '--fpr' needs a value",
			  "IFACE [OPTIONS] LIST..."),
		"--fpr at the end");
	PARSE(&r, attach, "lo", "a.txt", "-m");
	refused(&r,
		USAGE_ERR("attach", "option '-m' needs a value",
			  "IFACE [OPTIONS] LIST..."),
		"-m at the end");
	PARSE(&r, stats, "lo", "--interval");
	refused(&r,
		USAGE_ERR("stats", "option '--interval' needs a value",
			  "IFACE [OPTIONS]"),
		"--interval at the end");
}

/* Typed values: garbage and each bound, the message a user reads. */
struct value_case {
	const char *value;
	const char *err; /* exact stderr; NULL: accepted */
};

#define FPR_ERR(v)                                                        \
	"bloomwall: --fpr takes a false-positive rate between 0 and 0.5 " \
	"exclusive (e.g. 0.001 or 0.1%), not '" v "'\n"

BW_TEST(test_cli_fpr)
{
	static const struct value_case cases[] = {
		{ "0", FPR_ERR("0") },
		{ "1", FPR_ERR("1") },
		{ "-1", FPR_ERR("-1") },
		{ "abc", FPR_ERR("abc") },
		{ "0.5", FPR_ERR("0.5") },
		{ "", FPR_ERR("") },
		{ "0.01x", FPR_ERR("0.01x") },
		{ "nan", FPR_ERR("nan") },
		{ "inf", FPR_ERR("inf") },
		{ "50%", FPR_ERR("50%") },
		{ "0.1%%", FPR_ERR("0.1%%") },
		{ "0.49", NULL },
		{ "0.001", NULL },
		{ "1e-9", NULL },
		{ "0.1%", NULL },
	};
	static const double want[] = { 0.49, 0.001, 1e-9, 0.001 };
	struct run r;
	size_t i, ok = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--fpr", cases[i].value);
		if (cases[i].err) {
			refused(&r, cases[i].err, cases[i].value);
			continue;
		}
		if (accepted(&r, cases[i].value)) {
			ASSERT_TRUE(r.a.build.fpr_set, "fpr_set");
			ASSERT_TRUE(r.a.build.fpr == want[ok], cases[i].value);
		}
		ok++;
		run_free(&r);
	}
}

#define DNS_TTL_ERR(v) \
	"bloomwall: --dns-ttl takes seconds from 0 to 86400, not '" v "'\n"

BW_TEST(test_cli_dns_ttl)
{
	static const struct value_case cases[] = {
		{ "86401", DNS_TTL_ERR("86401") },
		{ "-1", DNS_TTL_ERR("-1") },
		{ "abc", DNS_TTL_ERR("abc") },
		{ "", DNS_TTL_ERR("") },
		{ " 5", DNS_TTL_ERR(" 5") },
		{ "5s", DNS_TTL_ERR("5s") },
		{ "99999999999999999999", DNS_TTL_ERR("99999999999999999999") },
		{ "86400", NULL },
		{ "0", NULL },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, reload, "lo", "a.txt", "--dns-ttl", cases[i].value);
		if (cases[i].err) {
			refused(&r, cases[i].err, cases[i].value);
			continue;
		}
		if (accepted(&r, cases[i].value)) {
			ASSERT_TRUE(r.a.build.dns_ttl_set, "dns_ttl_set");
			ASSERT_EQ(r.a.build.dns_ttl, atoi(cases[i].value),
				  cases[i].value);
		}
		run_free(&r);
	}
}

BW_TEST(test_cli_dns_action)
{
	static const struct {
		const char *s;
		int action;
	} ok[] = {
		{ "null", BW_DNS_NULL },
		{ "nxdomain", BW_DNS_NXDOMAIN },
		{ "refused", BW_DNS_REFUSED },
		{ "drop", BW_DNS_DROP },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--dns-action", ok[i].s);
		if (accepted(&r, ok[i].s)) {
			ASSERT_TRUE(r.a.build.dns_action_set, "dns_action_set");
			ASSERT_EQ(r.a.build.dns_action, ok[i].action, ok[i].s);
		}
		run_free(&r);
	}
	PARSE(&r, attach, "lo", "a.txt", "--dns-action", "NXDOMAIN");
	refused(&r,
		"bloomwall: --dns-action must be null, nxdomain, refused or drop, not 'NXDOMAIN'\n",
		"names are lower case");
	PARSE(&r, attach, "lo", "a.txt", "--dns-action", "servfail");
	refused(&r,
		"bloomwall: --dns-action must be null, nxdomain, refused or drop, not 'servfail'\n",
		"no such action");
}

BW_TEST(test_cli_mode)
{
	static const struct {
		const char *s;
		enum xdp_attach_mode mode;
	} ok[] = {
		{ "native", XDP_MODE_NATIVE },
		{ "skb", XDP_MODE_SKB },
		{ "auto", XDP_MODE_UNSPEC },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--mode", ok[i].s);
		if (accepted(&r, ok[i].s))
			ASSERT_EQ(r.a.mode, ok[i].mode, ok[i].s);
		run_free(&r);
	}
	PARSE(&r, attach, "-m", "skb", "lo", "a.txt");
	if (accepted(&r, "-m skb"))
		ASSERT_EQ(r.a.mode, XDP_MODE_SKB, "the short option");
	run_free(&r);
	PARSE(&r, attach, "lo", "a.txt", "--mode", "bogus");
	refused(&r,
		"bloomwall: --mode must be native, skb or auto, not 'bogus'\n",
		"--mode bogus");
	/* hw is a mode libxdp has, not one bloomwall offers. */
	PARSE(&r, watch, "lo", "a.txt", "--mode", "hw");
	refused(&r, "bloomwall: --mode must be native, skb or auto, not 'hw'\n",
		"--mode hw");
}

#define TIMEOUT_ERR(v)                                                        \
	"bloomwall: --timeout takes a duration up to 3650d: seconds, or "     \
	"numbers with units s, m, h, d, w (30s, 5m, 4h, 7d, 1h30m; 0: never " \
	"expires), not '" v "'\n"

/* add --timeout: durations, and names refused by the verb itself. */
BW_TEST(test_cli_add_timeout)
{
	static const struct {
		const char *s;
		long long secs; /* -1: refused */
	} cases[] = { { "3s", 3 },	{ "90", 90 }, { "1h30m", 5400 },
		      { "7d", 604800 }, { "0", 0 },   { "5x", -1 },
		      { "-1", -1 },	{ "", -1 },   { "4000d", -1 } };
	char want[256];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, add, "lo", "--timeout", cases[i].s, "10.0.0.1");
		if (cases[i].secs < 0) {
			snprintf(want, sizeof(want), TIMEOUT_ERR("%s"),
				 cases[i].s);
			refused(&r, want, cases[i].s);
			continue;
		}
		if (accepted(&r, cases[i].s)) {
			ASSERT_TRUE(r.a.timeout_set, "set");
			ASSERT_EQ(r.a.timeout, cases[i].secs, cases[i].s);
		}
		run_free(&r);
	}
	PARSE(&r, add, "lo", "10.0.0.1");
	if (accepted(&r, "no --timeout"))
		ASSERT_FALSE(r.a.timeout_set, "not set");
	run_free(&r);
	/* Names take --timeout as addresses do (cmd_add.c). */
	PARSE(&r, add, "lo", "--timeout", "1h", "ends.example");
	if (accepted(&r, "a name with --timeout"))
		ASSERT_EQ(r.a.timeout, 3600, "its timeout");
	run_free(&r);
}

#define LOG_RATE_ERR(v)                                                     \
	"bloomwall: --log-rate takes events a second from 0 (no drop log) " \
	"to 1000000000, not '" v "'\n"

BW_TEST(test_cli_log_rate)
{
	static const struct value_case cases[] = {
		{ "-1", LOG_RATE_ERR("-1") },
		{ "-0", LOG_RATE_ERR("-0") },
		{ "1000000001", LOG_RATE_ERR("1000000001") },
		{ "ten", LOG_RATE_ERR("ten") },
		{ "", LOG_RATE_ERR("") },
		{ "1.5", LOG_RATE_ERR("1.5") },
		{ "1000000000", NULL },
		{ "0", NULL },
		{ "10", NULL },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--log-rate", cases[i].value);
		if (cases[i].err) {
			refused(&r, cases[i].err, cases[i].value);
			continue;
		}
		/* The rate is the process's, for the program it loads. */
		if (accepted(&r, cases[i].value))
			ASSERT_EQ(bw_prog_log_rate(-1), atol(cases[i].value),
				  cases[i].value);
		run_free(&r);
	}
	bw_prog_set_log_rate(-1);
	/* Only the verbs that load a program take it. */
	PARSE(&r, stats, "lo", "--log-rate", "5");
	refused(&r,
		USAGE_ERR("stats", "unknown option '--log-rate'",
			  "IFACE [OPTIONS]"),
		"stats loads no program");
}

#define IFNAME_ERR(v) "bloomwall: '" v "' is not a valid interface name\n"

BW_TEST(test_cli_iface_name)
{
	static const struct value_case cases[] = {
		/* IFNAMSIZ is 16 with the NUL: 15 characters at most. */
		{ "abcdefghijklmnop", IFNAME_ERR("abcdefghijklmnop") },
		{ "a/b", IFNAME_ERR("a/b") },
		{ "/", IFNAME_ERR("/") },
		{ ".", IFNAME_ERR(".") },
		{ "..", IFNAME_ERR("..") },
		{ "", IFNAME_ERR("") },
		/* Valid names of no interface here. */
		{ "abcdefghijklmno",
		  "bloomwall: there is no interface named 'abcdefghijklmno' here (see 'ip link')\n" },
		{ "bw-no-such0",
		  "bloomwall: there is no interface named 'bw-no-such0' here (see 'ip link')\n" },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, attach, cases[i].value, "a.txt");
		refused(&r, cases[i].err, cases[i].value);
		PARSE(&r, stats, cases[i].value);
		refused(&r, cases[i].err, cases[i].value);
	}
}

/* detach and status take a vanished interface, never a bad name. */
BW_TEST(test_cli_iface_may_vanish)
{
	struct run r;

	PARSE(&r, detach, "bw-no-such0");
	accepted(&r, "detach of a gone interface");
	ASSERT_EQ(r.a.ifindex, 0, "its index: none");
	run_free(&r);
	PARSE(&r, status, "bw-no-such0");
	accepted(&r, "status of a gone interface");
	ASSERT_EQ(r.a.ifindex, 0, "its index: none");
	run_free(&r);
	PARSE(&r, detach, "a/b");
	refused(&r, IFNAME_ERR("a/b"), "detach a/b");
	PARSE(&r, detach, "abcdefghijklmnop");
	refused(&r, IFNAME_ERR("abcdefghijklmnop"), "detach of a long name");
}

#define SECS_ERR(verb, opt, min, v)                           \
	"bloomwall " verb ": " opt " takes seconds from " min \
	" to 86400, not '" v "'\n"

BW_TEST(test_cli_interval)
{
	static const struct value_case cases[] = {
		{ "0", SECS_ERR("stats", "--interval", "0.01", "0") },
		{ "0.009", SECS_ERR("stats", "--interval", "0.01", "0.009") },
		{ "-1", SECS_ERR("stats", "--interval", "0.01", "-1") },
		{ "86400.5",
		  SECS_ERR("stats", "--interval", "0.01", "86400.5") },
		{ "abc", SECS_ERR("stats", "--interval", "0.01", "abc") },
		{ "1s", SECS_ERR("stats", "--interval", "0.01", "1s") },
		{ "nan", SECS_ERR("stats", "--interval", "0.01", "nan") },
		{ "", SECS_ERR("stats", "--interval", "0.01", "") },
		{ "0.01", NULL },
		{ "86400", NULL },
		{ "2.5", NULL },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, stats, "lo", "--interval", cases[i].value);
		if (cases[i].err) {
			refused(&r, cases[i].err, cases[i].value);
			continue;
		}
		if (accepted(&r, cases[i].value))
			ASSERT_TRUE(r.a.ops.interval == atof(cases[i].value),
				    cases[i].value);
		run_free(&r);
	}
	/* watch's, under its own name. */
	PARSE(&r, watch, "lo", "a.txt", "--interval", "0");
	refused(&r, SECS_ERR("watch", "--interval", "0.01", "0"),
		"watch --interval 0");
}

BW_TEST(test_cli_debounce)
{
	struct run r;

	PARSE(&r, watch, "lo", "a.txt", "--debounce", "-1");
	refused(&r, SECS_ERR("watch", "--debounce", "0", "-1"),
		"--debounce -1");
	PARSE(&r, watch, "lo", "a.txt", "--debounce", "86401");
	refused(&r, SECS_ERR("watch", "--debounce", "0", "86401"),
		"--debounce 86401");
	PARSE(&r, watch, "lo", "a.txt", "--debounce", "soon");
	refused(&r, SECS_ERR("watch", "--debounce", "0", "soon"),
		"--debounce soon");
	PARSE(&r, watch, "lo", "a.txt", "--debounce", "0");
	if (accepted(&r, "--debounce 0")) {
		ASSERT_TRUE(r.a.ops.debounce_set, "debounce_set");
		ASSERT_TRUE(r.a.ops.debounce == 0.0, "no debounce");
	}
	run_free(&r);
}

#define U32_ERR(opt, v)                                                     \
	"bloomwall: " opt " takes a number from 0 to 4294967295 (decimal, " \
	"or hexadecimal after 0x), not '" v "'\n"

BW_TEST(test_cli_seed_and_count)
{
	static const struct {
		const char *s;
		long long want; /* -1: refused */
	} cases[] = {
		{ "0", 0 },
		{ "4294967295", 4294967295LL },
		{ "0xffffffff", 4294967295LL },
		{ "0X1f", 31 },
		{ "010", 10 }, /* decimal, not octal */
		{ "4294967296", -1 },
		{ "0x100000000", -1 },
		{ "-1", -1 },
		{ "+1", -1 },
		{ " 1", -1 },
		{ "0x", -1 },
		{ "0x-1", -1 },
		{ "1k", -1 },
		{ "", -1 },
	};
	char want[160];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--seed", cases[i].s);
		if (cases[i].want < 0) {
			snprintf(want, sizeof(want), U32_ERR("--seed", "%s"),
				 cases[i].s);
			refused(&r, want, cases[i].s);
			PARSE(&r, log, "lo", "--count", cases[i].s);
			snprintf(want, sizeof(want), U32_ERR("--count", "%s"),
				 cases[i].s);
			refused(&r, want, cases[i].s);
			continue;
		}
		if (accepted(&r, cases[i].s)) {
			ASSERT_TRUE(r.a.build.seed_set, "seed_set");
			ASSERT_EQ(r.a.build.seed, cases[i].want, cases[i].s);
		}
		run_free(&r);
		PARSE(&r, log, "lo", "--count", cases[i].s);
		if (accepted(&r, cases[i].s))
			ASSERT_EQ(r.a.count, cases[i].want, cases[i].s);
		run_free(&r);
	}
}

BW_TEST(test_cli_match)
{
	struct run r;

	PARSE(&r, attach, "lo", "a.txt", "--match", "dst");
	if (accepted(&r, "--match dst"))
		ASSERT_EQ(r.a.build.match, BW_F_MATCH_DST, "dst");
	run_free(&r);
	PARSE(&r, attach, "lo", "a.txt", "--match", "both");
	if (accepted(&r, "--match both"))
		ASSERT_EQ(r.a.build.match, BW_F_MATCH_SRC | BW_F_MATCH_DST,
			  "both");
	run_free(&r);
	PARSE(&r, attach, "lo", "a.txt", "--match", "source");
	refused(&r,
		"bloomwall: --match must be src, dst or both, not 'source'\n",
		"--match source");
}

#define LENGTHS_ERR(v)                                                      \
	"bloomwall: --max-lengths takes N or N,M (IPv4,IPv6), each from 1 " \
	"to 4, not '" v "'\n"

BW_TEST(test_cli_max_lengths)
{
	static const struct {
		const char *s;
		unsigned int v4, v6; /* 0: refused */
	} cases[] = {
		{ "1", 1, 1 },	 { "4", 4, 4 },	 { "2,3", 2, 3 },
		{ "0", 0, 0 },	 { "5", 0, 0 },	 { "4,0", 0, 0 },
		{ "2,", 0, 0 },	 { ",2", 0, 0 }, { "2,3,4", 0, 0 },
		{ "-1", 0, 0 },	 { "+2", 0, 0 }, { "2,-1", 0, 0 },
		{ "two", 0, 0 }, { "", 0, 0 },	 { "2 ", 0, 0 },
	};
	char want[160];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		PARSE(&r, attach, "lo", "a.txt", "--max-lengths", cases[i].s);
		if (!cases[i].v4) {
			snprintf(want, sizeof(want), LENGTHS_ERR("%s"),
				 cases[i].s);
			refused(&r, want, cases[i].s);
			continue;
		}
		if (accepted(&r, cases[i].s)) {
			ASSERT_EQ(r.a.build.max_lengths[BW_V4], cases[i].v4,
				  "IPv4");
			ASSERT_EQ(r.a.build.max_lengths[BW_V6], cases[i].v6,
				  "IPv6");
		}
		run_free(&r);
	}
}

/* Options that exclude each other, and the limit of --allow. */
BW_TEST(test_cli_exclusive_and_limits)
{
	const char *args[MAX_ARGS + 1];
	char want[256];
	struct run r;
	int i, n = 0;

	PARSE(&r, reload, "lo", "a.txt", "--monitor", "--enforce");
	refused(&r,
		USAGE_ERR("reload",
			  "--monitor and --enforce exclude each other",
			  "IFACE [OPTIONS] LIST..."),
		"--monitor --enforce");
	PARSE(&r, reload, "lo", "a.txt", "--no-subdomains", "--subdomains");
	refused(&r,
		USAGE_ERR("reload",
			  "--subdomains and --no-subdomains exclude each other",
			  "IFACE [OPTIONS] LIST..."),
		"--no-subdomains --subdomains");
	/* 32 --allow files, then one more. */
	args[n++] = "lo";
	args[n++] = "a.txt";
	for (i = 0; i <= BW_MAX_ALLOW_FILES && n + 2 <= MAX_ARGS; i++) {
		args[n++] = "--allow";
		args[n++] = "ok.txt";
	}
	args[n] = NULL;
	if (!ASSERT_EQ(i, BW_MAX_ALLOW_FILES + 1, "room for the arguments"))
		return;
	run_parse(&r, &bw_verb_attach, args);
	snprintf(want, sizeof(want), "%s",
		 USAGE_ERR("attach", "too many --allow files (at most 32)",
			   "IFACE [OPTIONS] LIST..."));
	refused(&r, want, "33 --allow files");
	args[n - 2] = NULL; /* 32 */
	run_parse(&r, &bw_verb_attach, args);
	if (accepted(&r, "32 --allow files"))
		ASSERT_EQ(r.a.build.nallow, BW_MAX_ALLOW_FILES, "all kept");
	run_free(&r);
}

/* The verbs' own checks of what the options left. */
BW_TEST(test_cli_verb_checks)
{
	struct run r;

	PARSE(&r, build, "a.txt");
	if (accepted(&r, "build a.txt parses")) {
		run_verb(&r, &bw_verb_build);
		ASSERT_EQ(r.ret, -BW_EUSAGE, "build without -o");
		ASSERT_STREQ(
			r.err,
			"bloomwall build: -o FILE is required: where the image goes\n"
			"Try 'bloomwall build --help'.\n",
			"says -o is required");
	}
	run_free(&r);
	PARSE(&r, watch, "lo");
	if (accepted(&r, "watch lo parses")) {
		run_verb(&r, &bw_verb_watch);
		ASSERT_EQ(r.ret, -BW_EUSAGE, "watch with nothing to watch");
		ASSERT_STREQ(
			r.err,
			"bloomwall watch: give LIST files, --image FILE or --url URL (one of the three)\n",
			"says what it needs");
	}
	run_free(&r);
	PARSE(&r, watch, "lo", "a.txt", "--image", "f.img");
	if (accepted(&r, "watch lo a.txt --image f.img parses")) {
		run_verb(&r, &bw_verb_watch);
		ASSERT_EQ(r.ret, -BW_EUSAGE, "watch with both");
		ASSERT_STREQ(
			r.err,
			"bloomwall watch: give LIST files, --image FILE or --url URL (one of the three)\n",
			"one of the two");
	}
	run_free(&r);
	PARSE(&r, watch, "lo", "--ca-file", "ca.pem", "a.txt");
	if (accepted(&r, "watch lo --ca-file ca.pem a.txt parses")) {
		run_verb(&r, &bw_verb_watch);
		ASSERT_EQ(r.ret, -BW_EUSAGE, "a pull option without --url");
		ASSERT_STREQ(
			r.err,
			"bloomwall watch: --ca-file, --client-cert, --client-key, --connect-timeout, --timeout and --state-dir go with --url (or LISTs by URL)\n",
			"says they go with --url");
	}
	run_free(&r);
	PARSE(&r, watch, "lo", "--url", "http://a/f.img", "--image", "f.img");
	if (accepted(&r, "watch lo --url URL --image f.img parses")) {
		run_verb(&r, &bw_verb_watch);
		ASSERT_EQ(r.ret, -BW_EUSAGE, "watch with --url and --image");
		ASSERT_STREQ(
			r.err,
			"bloomwall watch: give LIST files, --image FILE or --url URL (one of the three)\n",
			"--url is one of the three");
	}
	run_free(&r);
}

/* ---- defaults ---- */

BW_TEST(test_cli_defaults)
{
	static const unsigned int max4[BW_FAMILIES] = { BW_MAX_LENGTHS,
							BW_MAX_LENGTHS };
	struct bw_build_req req;
	struct bw_rec_dns dns;
	struct run r;
	int f;

	PARSE(&r, attach, "lo", "a.txt");
	if (!accepted(&r, "attach lo a.txt")) {
		run_free(&r);
		return;
	}
	/* Nothing given: the parse leaves each option unset ... */
	ASSERT_EQ(r.a.mode, XDP_MODE_UNSPEC, "mode: auto");
	ASSERT_FALSE(r.a.link, "no --link");
	ASSERT_FALSE(r.a.build.fpr_set || r.a.build.seed_set ||
			     r.a.build.dns_action_set || r.a.build.dns_ttl_set,
		     "no value set");
	ASSERT_FALSE(r.a.build.monitor || r.a.build.verify ||
			     r.a.build.skip_invalid ||
			     r.a.build.mask_host_bits || r.a.build.subdomains,
		     "no flag set");
	ASSERT_EQ(r.a.build.match, 0, "--match not given");
	ASSERT_EQ(r.a.build.nallow, 0, "no --allow");
	ASSERT_EQ(r.a.build.max_lengths[BW_V4], 0, "--max-lengths not given");
	/* ... and the build request takes the defaults for them. */
	bw_build_req_from_args(&req, r.a.iface, &r.a.build,
			       (const char *const *)r.a.pos, r.a.npos,
			       BW_DEFAULT_FPR, 0, 1);
	ASSERT_TRUE(req.opts.fpr == 0.001, "fpr 0.001");
	ASSERT_EQ(req.opts.dns_action, BW_DNS_NULL, "DNS action null");
	ASSERT_EQ(req.opts.dns_ttl, 60, "DNS TTL 60");
	for (f = 0; f < BW_FAMILIES; f++)
		ASSERT_EQ(req.cidr.max_lengths[f], max4[f], "4 lengths");
	ASSERT_EQ(req.nlists, 1, "the list");
	ASSERT_EQ(req.nallow_files, 0, "no allowlist");
	ASSERT_FALSE(req.subdomains, "names as listed");
	/* A filter with no DNS record: the defaults a reload keeps. */
	bw_dns_settings(NULL, NULL, &dns);
	ASSERT_EQ(dns.action, BW_DNS_NULL, "kept action: null");
	ASSERT_EQ(dns.ttl, 60, "kept TTL: 60");
	run_free(&r);

	/* Given: each one in the request. */
	PARSE(&r, attach, "lo", "a.txt", "--fpr", "0.01", "--seed", "7",
	      "--max-lengths", "2,3", "--dns-ttl", "5", "--dns-action",
	      "refused", "--verify", "--subdomains", "--allow", "al.txt");
	if (!accepted(&r, "attach with options")) {
		run_free(&r);
		return;
	}
	bw_build_req_from_args(&req, r.a.iface, &r.a.build,
			       (const char *const *)r.a.pos, r.a.npos,
			       BW_DEFAULT_FPR, 0, 1);
	ASSERT_TRUE(req.opts.fpr == 0.01, "--fpr");
	ASSERT_EQ(req.opts.seed, 7, "--seed");
	ASSERT_EQ(req.cidr.max_lengths[BW_V4], 2, "--max-lengths IPv4");
	ASSERT_EQ(req.cidr.max_lengths[BW_V6], 3, "--max-lengths IPv6");
	ASSERT_EQ(req.opts.dns_ttl, 5, "--dns-ttl");
	ASSERT_EQ(req.opts.dns_action, BW_DNS_REFUSED, "--dns-action");
	ASSERT_TRUE(req.opts.flags & BW_F_VERIFY, "--verify");
	ASSERT_TRUE(req.subdomains, "--subdomains");
	ASSERT_EQ(req.nallow_files, 1, "--allow");
	ASSERT_STREQ(req.allow_files[0], "al.txt", "its file");
	run_free(&r);

	/* stats and watch: no interval, no debounce unless given. */
	PARSE(&r, stats, "lo");
	if (accepted(&r, "stats lo")) {
		ASSERT_FALSE(r.a.ops.prometheus, "no --prometheus");
		ASSERT_TRUE(r.a.ops.interval == 0.0, "no --interval: once");
	}
	run_free(&r);
	PARSE(&r, watch, "lo", "a.txt");
	if (accepted(&r, "watch lo a.txt")) {
		ASSERT_FALSE(r.a.ops.debounce_set, "no --debounce");
		ASSERT_FALSE(r.a.ops.detach_on_exit, "stays attached");
		ASSERT_TRUE(r.a.ops.image == NULL && !r.a.ops.metrics_file,
			    "no image, no metrics file");
	}
	run_free(&r);
	PARSE(&r, log, "lo");
	if (accepted(&r, "log lo"))
		ASSERT_EQ(r.a.count, 0, "no --count: until stopped");
	run_free(&r);
}

/* ---- --help ---- */

/* The Options section of a verb with one of its own, and the last line. */
static const char inspect_tail[] =
	"\nOptions:\n"
	"      --verify-key PUBLIC    require a signature by a key in PUBLIC (default: /etc/bloomwall/verify.pub if there)\n"
	"  -h, --help                 show this help and exit\n"
	"  -v, --verbose              also show libbpf/libxdp messages\n"
	"  -j, --json                 print one JSON document on stdout\n"
	"\nExit status: 0 ok, 1 failure, 2 usage error. See bloomwall(8).\n";

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, t = strlen(suffix);

	return n >= t && !strcmp(s + n - t, suffix);
}

BW_TEST(test_cli_help)
{
	struct run r;

	/* --help wins over missing arguments, on stdout, and ends the parse. */
	PARSE(&r, attach, "--help");
	ASSERT_EQ(r.ret, 1, "help shown");
	ASSERT_STREQ(r.err, "", "nothing on stderr");
	ASSERT_TRUE(
		starts_with(
			r.out,
			"Usage: bloomwall attach IFACE [OPTIONS] LIST...\n"
			"Build a filter from the LIST files and attach it to IFACE.\n\n"),
		"usage line and summary first");
	ASSERT_STRSTR(
		r.out,
		"\nOptions:\n"
		"  -m, --mode MODE            native, skb or auto (default): where XDP runs\n"
		"      --link                 attach with a bpf_link of bloomwall's own, not through libxdp\n"
		"      --egress               also drop the host's own packets to listed destinations (TC egress)\n"
		"      --fpr P                target false-positive rate, 0 < P < 0.5 (default 0.001)\n",
		"its own options first, then the build options");
	ASSERT_STRSTR(
		r.out,
		"      --log-rate N           drop log: at most N events a second per CPU, 0 off (default: as running, else 10)\n"
		"  -h, --help                 show this help and exit\n"
		"  -v, --verbose              also show libbpf/libxdp messages\n"
		"  -j, --json                 print one JSON document on stdout\n"
		"\nExit status: 0 ok, 1 failure, 2 usage error. See bloomwall(8).\n",
		"the common options and the exit status last");
	ASSERT_FALSE(strstr(r.out, "--enforce"), "no option of reload");
	run_free(&r);

	/* A verb with one option of its own: the whole Options section. */
	PARSE(&r, inspect, "-h");
	ASSERT_EQ(r.ret, 1, "-h shown");
	ASSERT_STREQ(r.err, "", "nothing on stderr");
	ASSERT_TRUE(
		starts_with(r.out,
			    "Usage: bloomwall inspect FILE [OPTIONS]\n"
			    "Check an image FILE and show what it holds.\n\n"),
		"inspect's usage line and summary");
	ASSERT_STRSTR(r.out,
		      "Needs no root.\n"
		      "With --json: {\"image\": ",
		      "its details");
	ASSERT_TRUE(ends_with(r.out, inspect_tail),
		    "the common options alone, then the exit status");
	run_free(&r);

	/* After other arguments too, and before a bad value is looked at. */
	PARSE(&r, stats, "bw-no-such0", "--help", "--interval", "0");
	ASSERT_EQ(r.ret, 1, "help before the rest");
	ASSERT_STREQ(r.err, "", "no complaint about the rest");
	ASSERT_STRSTR(
		r.out,
		"\n      --prometheus           write Prometheus' text exposition: counters and filter gauges\n",
		"stats' options");
	run_free(&r);
}

/* --verbose raises the log level for the run. */
BW_TEST(test_cli_verbose)
{
	enum bw_log_level saved = bw_log_level;
	struct run r;

	PARSE(&r, status, "-v");
	accepted(&r, "status -v");
	ASSERT_EQ(bw_log_level, BW_LOG_DEBUG, "debug messages on");
	bw_log_level = saved;
	run_free(&r);
}
