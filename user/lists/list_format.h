/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A list file's format, told from its content: its first line that is
 * not blank or a comment decides, and the file is read in that format to
 * its end. The formats:
 *
 *   plain       addresses, prefixes, ranges, names, hosts and adblock
 *               lines, mixed (list_parse.c): the default;
 *   RPZ         zone files (rpz.h): a "$" directive or a "name [TTL]
 *               [class] TYPE data" record;
 *   dnsmasq     address=/name/..., local=/name/, server=/name/...
 *   Unbound     server:, local-zone:, local-data: (srvconf.h);
 *   ipset       create / add NAME ENTRY (ipset.h);
 *   nftables    table, add element, elements = { ... } (nftset.h);
 *   DROP JSON   Spamhaus' JSON lines, {"cidr":...} (dropjson.h).
 *
 * A line of another format than the file's is a bad line that says so
 * ("an RPZ line in a file read as dnsmasq lines (since line 15)"). The
 * formats other than plain keep what a file's lines share (the origin,
 * the sets, the open braces) here: a reader keeps one struct bw_fmt per
 * file, from its first line (query --why reads the lists the same way).
 */
#ifndef __BW_LIST_FORMAT_H
#define __BW_LIST_FORMAT_H

#include <stddef.h>

#include "lists/dropjson.h"
#include "lists/ipset.h"
#include "lists/list.h"
#include "lists/nftset.h"
#include "lists/rpz.h"
#include "lists/srvconf.h"

enum bw_fmt_kind {
	BW_FMT_NONE, /* no line has decided yet */
	BW_FMT_PLAIN,
	BW_FMT_RPZ,
	BW_FMT_DNSMASQ,
	BW_FMT_UNBOUND,
	BW_FMT_IPSET,
	BW_FMT_NFT,
	BW_FMT_DROPJSON,
};

struct bw_fmt {
	enum bw_fmt_kind kind;
	size_t since; /* the line that decided the format */
	struct bw_rpz rpz;
	struct bw_srvconf srv;
	struct bw_ipset ipset;
	struct bw_nft nft;
	struct bw_dropjson dj;
};

void bw_fmt_init(struct bw_fmt *f);

/*
 * Line lineno (from 1) of the file (NUL-terminated, any line end), the
 * lines in their order:
 * as bw_list_parse_line() for the plain format (its err contract: 0 with
 * a note or warning in err, -EINVAL, -ENOMEM), the file's format for the
 * others. l->lines counts the lines that gave entries.
 */
int bw_fmt_line(struct bw_fmt *f, struct bw_list *l, const char *line,
		size_t lineno, const struct bw_list_opts *opts, char *err,
		size_t errlen);

/*
 * At the end of the file: -EINVAL with the reason in err for a block left
 * open (nftables) or a record count that disagrees (DROP JSON), else 0.
 */
int bw_fmt_end(struct bw_fmt *f, char *err, size_t errlen);

/*
 * What a file of a format other than plain says at its end (how it was
 * read, what was counted), empty for the plain format.
 */
void bw_fmt_note(const struct bw_fmt *f, char *buf, size_t len);

/* "plain", "RPZ", "dnsmasq", "Unbound", "ipset", "nftables", "DROP JSON". */
const char *bw_fmt_name(enum bw_fmt_kind kind);

#endif /* __BW_LIST_FORMAT_H */
