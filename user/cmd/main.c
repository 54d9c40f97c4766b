// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall: drop traffic from huge IP blocklists at XDP with a Bloom filter.
 *
 * main() parses the global options, runs one verb and turns its result into
 * the exit status: 0 ok, 1 runtime failure, 2 usage error.
 */
#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "cmd/cli.h"
#include "cmd/cmd_attach.h"
#include "cmd/cmd_reload.h"
#include "cmd/cmd_status.h"
#include "cmd/cmd_query.h"
#include "cmd/cmd_add.h"
#include "cmd/cmd_remove.h"
#include "cmd/cmd_allow.h"
#include "cmd/cmd_detach.h"
#include "cmd/cmd_build.h"
#include "cmd/cmd_inspect.h"
#include "cmd/cmd_keygen.h"
#include "cmd/cmd_load.h"
#include "cmd/cmd_watch.h"
#include "cmd/cmd_stats.h"
#include "cmd/cmd_log.h"
#include "cmd/cmd_config.h"
#include "base/log.h"
#include "base/output.h"

#ifndef BW_VERSION_STRING
#define BW_VERSION_STRING "unknown"
#endif

static const struct bw_verb *const verbs[] = {
	&bw_verb_attach, &bw_verb_reload, &bw_verb_status,  &bw_verb_query,
	&bw_verb_add,	 &bw_verb_remove, &bw_verb_allow,   &bw_verb_unallow,
	&bw_verb_detach, &bw_verb_build,  &bw_verb_inspect, &bw_verb_load,
	&bw_verb_watch,	 &bw_verb_stats,  &bw_verb_log,	    &bw_verb_keygen,
	&bw_verb_config,
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: bloomwall [-v] [-j] VERB [OPTIONS] ARGS...\n"
		"       bloomwall -h | --help | -V | --version\n\n"
		"Drops packets from addresses in blocklists at XDP, with a Bloom filter.\n\n"
		"Verbs:\n");
	for (i = 0; i < NVERBS; i++)
		fprintf(f, "  %-8s %s\n", verbs[i]->name, verbs[i]->summary);
	fprintf(f,
		"\nGlobal options:\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n"
		"  -v, --verbose   also show libbpf/libxdp messages\n"
		"  -j, --json      print one JSON document on stdout\n\n"
		"'bloomwall VERB --help' describes a verb. See bloomwall(8).\n");
}

/* libxdp explains its dispatcher fallback itself; we say it in one line. */
static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (bw_log_level < BW_LOG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const struct bw_verb *find_verb(const char *name)
{
	size_t i;

	/* Exact names only: a typo must never run detach. */
	for (i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i]->name, name))
			return verbs[i];
	return NULL;
}

static int exit_status(int err)
{
	if (!err)
		return BW_EXIT_OK;
	return err == -BW_EUSAGE ? BW_EXIT_USAGE : BW_EXIT_FAIL;
}

/* Global options before the verb; returns argv index of the verb or < 0. */
static int parse_global(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hVvj", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
			printf("bloomwall %s\n", BW_VERSION_STRING);
			return -1;
		case 'v':
			bw_log_level = BW_LOG_DEBUG;
			break;
		case 'j':
			bw_out_begin(true, NULL);
			break;
		default:
			fprintf(stderr,
				"bloomwall: unknown option '%s'\nTry 'bloomwall --help'.\n",
				argv[optind - 1]);
			return -BW_EUSAGE;
		}
	}
	return optind;
}

/* The verb and its run; 1 when only its help was shown. */
static int run_verb(int argc, char **argv)
{
	struct bw_args args = { .mode = XDP_MODE_UNSPEC };
	const struct bw_verb *v;
	int err;

	if (!argc) {
		usage(stderr);
		return -BW_EUSAGE;
	}
	v = find_verb(argv[0]);
	if (!v) {
		fprintf(stderr,
			"bloomwall: unknown verb '%s'\nTry 'bloomwall --help'.\n",
			argv[0]);
		return -BW_EUSAGE;
	}
	err = bw_cli_parse(v, argc, argv, &args);
	return err ?: v->run(&args);
}

int main(int argc, char **argv)
{
	int i, err;

	setlocale(LC_NUMERIC, "");
	bw_log_setup_libbpf();
	libxdp_set_print(libxdp_print);
	i = parse_global(argc, argv);
	if (i == -1)
		return BW_EXIT_OK;
	err = i < 0 ? i : run_verb(argc - i, argv + i);
	if (err == 1)
		return BW_EXIT_OK;
	/* JSON: one document, also after a failure. */
	err = bw_out_flush(err) ?: err;
	return exit_status(err);
}
