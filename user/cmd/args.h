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
int bw_parse_mode(const char *s, enum xdp_attach_mode *mode);
int bw_parse_fpr(const char *s, double *fpr);
/* A number from 0 to 2^32-1: decimal, or hexadecimal after 0x. */
int bw_parse_u32(const char *opt, const char *s, __u32 *v);
int bw_parse_match(const char *s, __u16 *match);
/*
 * Whether a verb's argument is a name (add, remove, allow): no address or
 * prefix, and written as a name ("a.example", "*.a.example", "||a^").
 */
bool bw_arg_is_name(const char *s);
/* --dns-action: null, nxdomain, refused or drop. */
int bw_parse_dns_action(const char *s, __u8 *action);
/* --dns-ttl: seconds, 0 to BW_MAX_DNS_TTL. */
int bw_parse_dns_ttl(const char *s, __u32 *ttl);
/* "N" (both families) or "N,M" (IPv4, IPv6), each 1..BW_MAX_LENGTHS. */
int bw_parse_max_lengths(const char *s, unsigned int *max_lengths);
/* add --timeout: a duration (base/duration.h) in seconds, 0: never. */
int bw_parse_timeout(const char *s, __u64 *secs);
/* Seconds for verb's option opt: a number from min to a day, fractions. */
int bw_parse_seconds(const char *verb, const char *opt, const char *s,
		     double min, double *v);
/* --log-rate: events a second per CPU, 0 to BW_LOG_RATE_MAX. */
int bw_parse_log_rate(const char *s, __u32 *rate);

struct bw_prefix;
/*
 * Parses every address or prefix ("10.0.0.0/24") of a verb's argument
 * list into a new array (*out, free() it).
 */
int bw_parse_addrs(const char *verb, char **s, int n, struct bw_prefix **out);

struct bw_list;
/*
 * Pushes every name of a verb's argument list into l as a domain entry:
 * "name" exact, "*.name" or "||name^" subtree. no_allow: an allow entry
 * ("@@||name^") is refused too.
 */
int bw_parse_names(const char *verb, char **s, int n, bool no_allow,
		   struct bw_list *l);

/*
 * 0 when the effective capabilities hold what verb needs (args.c lists
 * them per verb); else names each one, marks the missing, returns -EPERM.
 */
int bw_check_privileges(const char *verb);

#endif /* __BW_ARGS_H */
