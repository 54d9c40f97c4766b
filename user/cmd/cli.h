/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Command line: verbs declared as tables (their option groups and their
 * positional arguments), one parser fed by them, typed parsers.
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
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cs_args.h"
#include "cmd/ops_args.h"
#include "cmd/pull_args.h"
#include "cmd/sign_args.h"
#include "ops/reload.h"

#define BW_EXIT_OK 0
#define BW_EXIT_FAIL 1
#define BW_EXIT_USAGE 2

/* Option ids: a short option's letter, or a long-only id from 256 on. */
enum bw_opt_id {
	BW_OPT_HELP = 'h',
	BW_OPT_VERBOSE = 'v',
	BW_OPT_JSON = 'j',
	BW_OPT_MODE = 'm',
	BW_OPT_OUTPUT = 'o',
	BW_OPT_FPR = 256,
	BW_OPT_SEED,
	BW_OPT_SKIP_INVALID,
	BW_OPT_MONITOR,
	BW_OPT_ENFORCE,
	BW_OPT_MATCH,
	BW_OPT_MAX_LENGTHS,
	BW_OPT_MASK_HOST_BITS,
	BW_OPT_ALLOW,
	BW_OPT_VERIFY,
	BW_OPT_LINK,
	BW_OPT_FORGET_ADDED,
	BW_OPT_WHY, /* query --why */
	BW_OPT_DNS_ACTION,
	BW_OPT_DNS_TTL,
	BW_OPT_SUBDOMAINS,
	BW_OPT_NO_SUBDOMAINS,
	BW_OPT_LOG_RATE,
	BW_OPT_COUNT,	/* log --count */
	BW_OPT_TIMEOUT, /* add --timeout */
};

/* What the options of any verb parse into; each verb reads its own. */
struct bw_args {
	const char *iface; /* the IFACE of a verb whose first is one */
	int ifindex;	   /* 0 when the interface does not exist */
	const char *file;  /* the FILE of a verb whose first is a file */
	enum xdp_attach_mode mode;
	bool link;		    /* attach --link */
	const char *output;	    /* build -o FILE */
	bool why;		    /* query --why */
	struct bw_build_args build; /* the build options (reload.h) */
	struct bw_ops_args ops;	    /* watch, stats (ops_args.h) */
	struct bw_pull_cfg pull;    /* watch --url (pull_args.h) */
	struct bw_sign_args sign;   /* signed images (sign_args.h) */
	struct bw_cs_args cs;	    /* watch --crowdsec (cs_args.h) */
	long count;		    /* log --count; 0: until stopped */
	bool timeout_set;	    /* add --timeout DURATION: */
	__u64 timeout;		    /* seconds; 0: never expires */
	char **pos;		    /* positional arguments after the first */
	int npos;
};

struct bw_opt {
	const char *name;    /* long name; NULL ends a table */
	int id;		     /* enum bw_opt_id */
	const char *metavar; /* NULL: takes no argument */
	const char *help;
};

/* The options attach and reload share (and build and watch will). */
extern const struct bw_opt bw_build_opts[];
/* --log-rate: the verbs that load a program (attach, reload, load, watch). */
extern const struct bw_opt bw_log_opts[];

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

#endif /* __BW_CLI_H */
