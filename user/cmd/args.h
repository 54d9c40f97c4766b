/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The typed parsers every verb shares (args.c): 0, or -BW_EUSAGE after
 * saying what is wrong and what is expected; and the capabilities each
 * verb needs.
 */
#ifndef __BW_ARGS_H
#define __BW_ARGS_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "base/output.h" /* BW_EUSAGE */

int bw_parse_iface(const char *name, int *ifindex);

/* An option as the command line gave it, handed to its parser (cli.h). */
struct bw_opt_val {
	const char *verb;	 /* for messages: "bloomwall VERB: ..." */
	const struct bw_verb *v; /* the same, for a usage error (cli.h) */
	const char *opt;	 /* "--seed": the option as typed in full */
	const char *arg;	 /* its value; NULL for a flag */
	double min;		 /* a seconds option's least (bw_opt.min) */
};

/*
 * An option's parser: o's value into field, the member its table binds it
 * to (of the type each parser below names). 0, or -BW_EUSAGE after saying
 * what is wrong.
 */
typedef int bw_opt_parser(const struct bw_opt_val *o, void *field);

/* A flag: the bool is set. */
bw_opt_parser bw_parse_flag;
/* A string, as given (const char *): a file, a URL, a list. */
bw_opt_parser bw_parse_str;
/* --mode: native, skb or auto (enum xdp_attach_mode). */
bw_opt_parser bw_parse_mode;
/* --fpr: a rate, 0 < P < 0.5, or a percentage (double). */
bw_opt_parser bw_parse_fpr;
/* A number from 0 to 2^32-1: decimal, or hexadecimal after 0x (__u32). */
bw_opt_parser bw_parse_u32;
/* --match: src, dst or both (__u16 BW_F_MATCH_* bits). */
bw_opt_parser bw_parse_match;
/* --dns-action: null, nxdomain, refused or drop (__u8). */
bw_opt_parser bw_parse_dns_action;
/* --dns-ttl: seconds, 0 to BW_MAX_DNS_TTL (__u32). */
bw_opt_parser bw_parse_dns_ttl;
/* "N" (both families) or "N,M" (IPv4, IPv6), each 1..BW_MAX_LENGTHS
 * (unsigned int[BW_FAMILIES]). */
bw_opt_parser bw_parse_max_lengths;
/* add --timeout: a duration (base/duration.h) in seconds, 0: never (__u64). */
bw_opt_parser bw_parse_timeout;
/* A duration (base/duration.h) in seconds, at least o->min; 0 refused
 * when o->min is over 0 (double). */
bw_opt_parser bw_parse_duration_secs;
/* add/remove --owner: an owner's name (filter/owners.h; const char *). */
bw_opt_parser bw_parse_owner;
/* Seconds: a number from o->min to a day, fractions (double). */
bw_opt_parser bw_parse_seconds;
/* --log-rate: events a second per CPU, 0 to BW_LOG_RATE_MAX (__u32). */
bw_opt_parser bw_parse_log_rate;

/*
 * Whether a verb's argument is a name (add, remove, allow): no address or
 * prefix, and written as a name ("a.example", "*.a.example", "||a^").
 */
bool bw_arg_is_name(const char *s);

struct bw_entries;

/* How bw_parse_entries() takes a verb's entries. */
enum bw_parse_flags {
	BW_PARSE_NO_ALLOW = 1 << 0, /* refuse an allow entry ("@@||name^") */
	BW_PARSE_ONE_KIND = 1 << 1, /* addresses or names, not both */
};

/*
 * Pushes every entry of a verb's argument list into out (initialised,
 * empty), in order, each until expires (0: never): each a name if
 * bw_arg_is_name() says so ("name" exact, "*.name" or "||name^" its
 * subtree), else an address or prefix ("10.0.0.0/24"). flags: enum
 * bw_parse_flags. 0, -BW_EUSAGE (said) or -ENOMEM.
 */
int bw_parse_entries(const char *verb, char **s, int n, unsigned int flags,
		     __u64 expires, struct bw_entries *out);

/*
 * 0 when the effective capabilities hold what verb needs (args.c lists
 * them per verb); else names each one, marks the missing, returns -EPERM.
 */
int bw_check_privileges(const char *verb);

#endif /* __BW_ARGS_H */
