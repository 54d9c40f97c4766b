/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * RPZ zone files (DNS Response Policy Zones, as hagezi, URLhaus and
 * others publish them), read a line at a time into the entries of a list
 * (list.h):
 *
 *   name CNAME .              the name (RPZ's NXDOMAIN)
 *   *.name CNAME .            the name and every name under it
 *   name CNAME rpz-passthru.  an allow entry for the name
 *   name CNAME *.             NODATA: blocked too, counted
 *   name A 10.0.0.1           local data (A, AAAA, TXT, a CNAME to a
 *                             name...): blocked too, counted
 *
 * The RPZ action is not kept: a listed name gets bloomwall's --dns-action.
 * $TTL, SOA and NS records are skipped (a SOA's "( ... )" across lines
 * too), ';' starts a comment, $ORIGIN sets the origin: an absolute name
 * under it is cut back to the listed name, a relative one is the listed
 * name already, one outside it is a bad line. A line that starts with a
 * blank is another record of the owner above. Trigger names on addresses
 * (.rpz-ip, .rpz-nsip, .rpz-nsdname, .rpz-client-ip) are bad lines:
 * bloomwall matches query names, and addresses by their source.
 */
#ifndef __BW_RPZ_H
#define __BW_RPZ_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomwall.h"
#include "lists/list.h"

struct bw_rpz {
	char origin[BW_NAME_MAX];
	size_t origin_len; /* 0: no $ORIGIN (names are taken as written) */
	char owner[BW_NAME_MAX + 3]; /* the last owner, as written */
	size_t owner_len;
	bool paren;	 /* inside a record's ( ... ) */
	size_t zone;	 /* $TTL, SOA and NS lines skipped */
	size_t nodata;	 /* CNAME *. blocked */
	size_t local;	 /* local-data records blocked */
	size_t passthru; /* rpz-passthru. allow entries */
	size_t ignored;	 /* rpz-tcp-only. records: not a block */
};

/* Whether a line is an RPZ zone's ($TTL, $ORIGIN, "@", a record). */
bool bw_rpz_detect(const char *line, size_t len);

/*
 * One line of a zone (NUL-terminated); z carries what a zone's lines
 * share. 0, -EINVAL with the reason in err, or -ENOMEM.
 */
int bw_rpz_line(struct bw_rpz *z, struct bw_list *l, const char *line,
		size_t len, const struct bw_list_opts *opts, char *err,
		size_t errlen);

/* What the file's note says at its end: the counts and the action. */
void bw_rpz_note(const struct bw_rpz *z, char *buf, size_t len);

#endif /* __BW_RPZ_H */
