/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * List lines and the verbs' address arguments: what one line or one
 * argument holds, as entries of a list (list.h); and a prefix as text.
 */
#ifndef __BW_LIST_PARSE_H
#define __BW_LIST_PARSE_H

#include <stddef.h>

#include "lists/list.h"

/*
 * Parses one list line (no newline needed; CR, blanks, comments handled).
 * Appends what it holds to l (nothing for a blank or comment line). On a
 * bad line returns -EINVAL with the reason in err (no file:line prefix;
 * the line's bytes quoted, those outside printable ASCII escaped). It may
 * also succeed with a warning (host bits masked under mask_host_bits) or a
 * note (an IPv4-mapped address under note_mapped): then it returns 0 with
 * the text in err, so callers clear err first and print it when it is not
 * empty.
 *
 * An IPv6 prefix inside ::ffff:0:0/96 (::ffff:a.b.c.d, ::ffff:10.0.0.0/104)
 * is the IPv4 prefix it maps (10.0.0.0/8): packets carry the IPv4 source,
 * so as IPv6 it would never match. l->mapped counts them.
 */
int bw_list_parse_line(struct bw_list *l, const char *line,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen);

/*
 * One address, prefix or IPv4 range tok[0..len) of another list format
 * (an ipset or nftables set element), pushed to l as a line's entry is;
 * a name or anything else is -EINVAL with the reason in err. Notes and
 * warnings as bw_list_parse_line() (clear err first). l->lines is not
 * counted: the caller counts its lines.
 */
int bw_list_parse_addr(struct bw_list *l, const char *tok, size_t len,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen);

/*
 * Parses one address or prefix as typed on the command line ("10.0.0.1",
 * "2001:db8::1", "10.0.0.0/8"); plen defaults to the host length.
 * Returns 0 or -EINVAL with the reason in err. An IPv4-mapped address is
 * taken as IPv4 and succeeds with a note in err (print it when not empty).
 */
int bw_parse_prefix(const char *s, struct bw_prefix *p, char *err,
		    size_t errlen);

/* Formats a prefix ("10.0.0.0/8", "2001:db8::1") into buf. */
const char *bw_prefix_str(const struct bw_prefix *p, char *buf, size_t len);

#endif /* __BW_LIST_PARSE_H */
