/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Command line: verbs declared as tables (their options, each bound to the
 * member it sets and its parser, and their positional arguments), one
 * parser fed by them; the typed parsers are in args.h.
 *
 * Verb handlers return 0, -BW_EUSAGE for a usage error (unknown option,
 * missing argument, bad value, unknown interface) or another -errno for a
 * runtime failure; main() alone turns that into the exit status:
 * 0 ok, 1 runtime failure, 2 usage error. Every handler prints its own
 * message before returning an error.
 */
#ifndef __BW_CLI_H
#define __BW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "base/output.h"
#include "cmd/args.h"
#include "daemon/crowdsec.h"
#include "daemon/pull.h"
#include "daemon/watch_src.h"
#include "ops/build.h"

#define BW_EXIT_OK 0
#define BW_EXIT_FAIL 1
#define BW_EXIT_USAGE 2

/* watch's and stats' options (their tables are the verbs'). */
struct bw_ops_args {
	bool prometheus;	  /* stats --prometheus */
	double interval;	  /* stats: rates every SECS; watch: its tick */
	const char *image;	  /* watch --image FILE */
	bool detach_on_exit;	  /* watch --detach-on-exit */
	const char *metrics_file; /* watch --metrics-file PATH */
	double debounce;	  /* watch --debounce SECS */
	bool debounce_set;
	bool allow_shrink; /* watch --allow-shrink */
	/* watch --metrics-listen ADDR:PORT */
	const char *metrics_listen;
};

/* Signed images' options (sign_args.h has their tables). */
struct bw_sign_args {
	const char *sign_key; /* build --sign-key SECRET */
	__u64 serial;	      /* build --serial N */
	bool serial_set;
	const char *verify_key; /* --verify-key PUBLIC */
	bool allow_rollback;	/* load, watch --allow-rollback */
	bool force;		/* keygen --force */
};

/* watch's CrowdSec options (cmd_watch.c has their table). */
struct bw_cs_args {
	struct bw_cs_cfg cfg;
	bool any; /* some CrowdSec option was given */
};

/* What the options of any verb parse into; each verb reads its own. */
struct bw_args {
	const char *iface; /* first: offset 0 is no option's (bw_opt.set) */
	int ifindex;	   /* 0 when the interface does not exist */
	const char *file;  /* the FILE of a verb whose first is a file */
	enum xdp_attach_mode mode;
	bool link;		    /* attach --link */
	bool egress;		    /* attach --egress */
	const char *output;	    /* build -o FILE */
	bool why;		    /* query --why */
	struct bw_build_args build; /* the build options (ops/build.h) */
	struct bw_ops_args ops;	    /* watch, stats */
	struct bw_pull_cfg pull;    /* watch --url (cmd_watch.c) */
	struct bw_sign_args sign;   /* signed images (sign_args.h) */
	struct bw_cs_args cs;	    /* watch --crowdsec (cmd_watch.c) */
	struct bw_wsrc_cfg src;	    /* LISTs by URL (list_urls.h) */
	__u32 count;		    /* log --count; 0: until stopped */
	bool timeout_set;	    /* add --timeout DURATION: */
	__u64 timeout;		    /* seconds; 0: never expires */
	const char *owner;	    /* add/remove --owner NAME, or NULL */
	char **pos;		    /* positional arguments after the first */
	int npos;
	/* Each LIST's own settings (the config file's lists:), or NULL. */
	const struct bw_wsrc_set *pos_set;
	const char *config;	/* watch --config FILE (cmd/conf.h) */
	const char *conf_iface; /* config show --interface IFACE */
};

/*
 * An option, declared once in its verb's table (or a group's that verbs
 * share): its names, its help line, the member of struct bw_args it sets
 * and the parser that sets it (args.h). bw_cli_parse() builds getopt's
 * tables and --help from it and applies it; the verb reads the member.
 */
struct bw_opt {
	const char *name;    /* long name; NULL ends a table */
	char letter;	     /* short option, 0: none */
	const char *metavar; /* NULL: takes no argument */
	const char *help;
	bw_opt_parser *parse; /* NULL: --help, which the parser answers */
	size_t field;	      /* where it goes: BW_FIELD(member) */
	size_t size;	      /* the member's size: all it may write */
	size_t set;	      /* a bool set too when given, 0: none */
	double min;	      /* bw_parse_seconds' least */
};

#define BW_FIELD(member) offsetof(struct bw_args, member)

/*
 * One option of a table: long name, metavar (NULL: a flag), the member it
 * sets, its parser, its help; then any of .letter, .set = BW_FIELD(bool
 * member), .min.
 */
#define BW_OPT(_name, _metavar, _member, _parse, _help, ...)    \
	{                                                       \
		.name = _name, .metavar = _metavar,             \
		.field = BW_FIELD(_member),                     \
		.size = sizeof(((struct bw_args *)0)->_member), \
		.parse = _parse, .help = _help, __VA_ARGS__     \
	}

/* The build options: attach, reload, build and watch. */
extern const struct bw_opt bw_build_opts[];
/* --log-rate: the verbs that load a program (attach, reload, load, watch). */
extern const struct bw_opt bw_log_opts[];

/* A usage error of verb v: the message, its usage line, the hint. */
int bw_cli_usage_error(const struct bw_verb *v, const char *fmt,
		       const char *what);

/* What the first positional argument names. */
enum bw_pos_first {
	BW_POS_IFACE, /* an interface: checked to exist (see below) */
	BW_POS_FILE,  /* a file path, taken as it is */
};

/* A verb's positional arguments: the first, then the rest. */
struct bw_pos {
	enum bw_pos_first first;
	bool first_optional;   /* may be absent (status) */
	bool iface_may_vanish; /* an unknown IFACE is not an error (detach) */
	const char *rest;      /* metavar of the rest ("LIST"), NULL: none */
	int min_rest;	       /* at least this many of the rest */
	bool rest_many;	       /* any number of them (else at most one) */
};

struct bw_verb {
	const char *name;
	const char *summary;
	/* What follows the verb in its usage line, when pos cannot say it. */
	const char *synopsis;
	const char *details; /* more lines for --help, or NULL */
	/* Option tables, NULL-terminated; the common options come on top. */
	const struct bw_opt *const *opts;
	struct bw_pos pos;
	int (*run)(struct bw_args *a);
};

/* Parses a verb's options and positionals into a; 1 when --help was shown. */
int bw_cli_parse(const struct bw_verb *v, int argc, char **argv,
		 struct bw_args *a);
void bw_cli_verb_usage(const struct bw_verb *v, bool full);

/* v's option of that long name, NULL: none. */
const struct bw_opt *bw_cli_find_opt(const struct bw_verb *v, const char *name);

/*
 * Whether the command line of the last bw_cli_parse() gave option o: a
 * config file's settings go under those it gave.
 */
bool bw_cli_given(const struct bw_opt *o);

/*
 * Sets o's member (and its bool of given) from arg through o's parser, as
 * the command line would; where names the value in messages ("--fpr", or
 * "FILE:LINE: fpr" for a config file's). 0 or the parser's error.
 */
int bw_cli_apply(const struct bw_verb *v, struct bw_args *a,
		 const struct bw_opt *o, const char *arg, const char *where);

#endif /* __BW_CLI_H */
