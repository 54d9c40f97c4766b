/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * List lines that hold domain names, which list_parse.c tells apart from
 * address lines and hands over (list_domain.c).
 */
#ifndef __BW_LIST_DOMAIN_H
#define __BW_LIST_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "lists/list.h"

/*
 * Whether the first word of a line is a domain entry rather than an
 * address: a wildcard or adblock form, or a dotted word with a letter (or
 * '_', or a byte outside ASCII) and no ':' or '/'.
 */
bool bw_name_form(const char *tok, size_t len);

/*
 * Whether the words after an address make a hosts line: the first is a
 * word of name characters with a letter ("0.0.0.0 0.0.0.0" too).
 */
bool bw_hosts_rest(const char *s, size_t len);

/*
 * A line whose first word tok is a domain entry: "name", "*.name",
 * "||name^" or "@@||name^". rest is what follows the word (comments
 * cut); glued says a '#' touched the word (an adblock cosmetic rule,
 * never a comment). Pushes the entry, or refuses it without
 * opts->domains.
 */
int bw_domain_line(struct bw_list *l, const char *tok, size_t len,
		   const char *rest, size_t restlen, bool glued,
		   const struct bw_list_opts *opts, char *err, size_t errlen);

/*
 * The names of a hosts line, s after its address (which is no entry;
 * host: it is one address, not a prefix or range): exact entries, local
 * ones skipped (counted in l->local). Returns 0, or -EINVAL with nothing
 * pushed.
 */
int bw_hosts_line(struct bw_list *l, const char *s, size_t len, bool host,
		  const struct bw_list_opts *opts, char *err, size_t errlen);

/*
 * One name of another list format (RPZ, dnsmasq, Unbound): s[0..len)
 * checked and folded (one trailing dot allowed), pushed with flags, or
 * refused without opts->domains. 0, -EINVAL with the reason, -ENOMEM.
 */
int bw_domain_entry(struct bw_list *l, const char *s, size_t len, __u8 flags,
		    const struct bw_list_opts *opts, char *err, size_t errlen);

/* Adblock lists' "! comment" lines and "[Adblock Plus 2.0]" header. */
bool bw_adblock_comment(const char *s, size_t len);

/*
 * A domain entry as an operator writes it, "*.NAME" for a subtree, into
 * buf (room for BW_NAME_MAX + 3); returns buf.
 */
const char *bw_domain_str(const struct bw_list *l, const struct bw_domain *d,
			  char *buf, size_t len);

#endif /* __BW_LIST_DOMAIN_H */
