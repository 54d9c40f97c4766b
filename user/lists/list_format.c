// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A list file's format told from its first meaningful line, and each line
 * handed to the reader of that format (list_format.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lists/list_format.h"
#include "lists/list_parse.h"
#include "lists/text.h"

static const char *const names[] = {
	[BW_FMT_NONE] = "plain",      [BW_FMT_PLAIN] = "plain",
	[BW_FMT_RPZ] = "RPZ",	      [BW_FMT_DNSMASQ] = "dnsmasq",
	[BW_FMT_UNBOUND] = "Unbound", [BW_FMT_IPSET] = "ipset",
	[BW_FMT_NFT] = "nftables",    [BW_FMT_DROPJSON] = "DROP JSON",
};

const char *bw_fmt_name(enum bw_fmt_kind kind)
{
	return kind <= BW_FMT_DROPJSON ? names[kind] : "unknown";
}

void bw_fmt_init(struct bw_fmt *f)
{
	memset(f, 0, sizeof(*f));
	bw_nft_init(&f->nft);
	f->dj.meta = -1;
}

/* Blank, or a comment in any of the formats: decides nothing. */
static bool meaningless(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && bw_is_blank(s[i]))
		i++;
	return i == len || s[i] == '#' || s[i] == ';' || s[i] == '!';
}

/* The format a line is written in, BW_FMT_NONE for the plain one. */
static enum bw_fmt_kind detect(const char *line, size_t len)
{
	int srv = bw_srvconf_detect(line, len);

	if (srv)
		return srv == BW_SRV_DNSMASQ ? BW_FMT_DNSMASQ : BW_FMT_UNBOUND;
	if (bw_nft_detect(line, len))
		return BW_FMT_NFT;
	if (bw_ipset_detect(line, len))
		return BW_FMT_IPSET;
	if (bw_rpz_detect(line, len))
		return BW_FMT_RPZ;
	if (bw_dropjson_detect(line, len))
		return BW_FMT_DROPJSON;
	return BW_FMT_NONE;
}

/* A bad line that is another format's: said as such. */
static void other_format(const struct bw_fmt *f, const char *line, size_t len,
			 char *err, size_t errlen)
{
	enum bw_fmt_kind k = detect(line, len);
	char q[BW_QUOTE_BUF];

	if (k == BW_FMT_NONE || k == f->kind)
		return;
	snprintf(
		err, errlen,
		"%s %s line in a file read as %s lines (since line %zu): a list file is one format: \"%s\"",
		k == BW_FMT_DNSMASQ ? "a" : "an", bw_fmt_name(k),
		bw_fmt_name(f->kind), f->since,
		bw_quote(q, sizeof(q), line, len));
}

static int format_line(struct bw_fmt *f, struct bw_list *l, const char *line,
		       size_t len, size_t lineno,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen)
{
	switch (f->kind) {
	case BW_FMT_RPZ:
		return bw_rpz_line(&f->rpz, l, line, len, opts, err, errlen);
	case BW_FMT_DNSMASQ:
		return bw_srvconf_line(&f->srv, BW_SRV_DNSMASQ, l, line, len,
				       opts, err, errlen);
	case BW_FMT_UNBOUND:
		return bw_srvconf_line(&f->srv, BW_SRV_UNBOUND, l, line, len,
				       opts, err, errlen);
	case BW_FMT_IPSET:
		return bw_ipset_line(&f->ipset, l, line, len, opts, err,
				     errlen);
	case BW_FMT_NFT:
		return bw_nft_line(&f->nft, l, line, len, opts, err, errlen);
	case BW_FMT_DROPJSON:
		return bw_dropjson_line(&f->dj, l, line, len, lineno, opts, err,
					errlen);
	default:
		return bw_list_parse_line(l, line, opts, err, errlen);
	}
}

int bw_fmt_line(struct bw_fmt *f, struct bw_list *l, const char *line,
		size_t lineno, const struct bw_list_opts *opts, char *err,
		size_t errlen)
{
	size_t len = strlen(line), n4 = l->n4, n6 = l->n6, ndom = l->ndom;
	size_t names_len = l->names_len, mapped = l->mapped, lines = l->lines;
	int ret;

	if (errlen)
		err[0] = '\0';
	if (f->kind == BW_FMT_NONE) {
		if (meaningless(line, len))
			return 0;
		f->kind = detect(line, len) ?: BW_FMT_PLAIN;
		f->since = lineno;
	}
	ret = format_line(f, l, line, len, lineno, opts, err, errlen);
	if (ret == -EINVAL)
		other_format(f, line, len, err, errlen);
	if (f->kind == BW_FMT_PLAIN)
		return ret;
	if (ret) {
		/* A bad line adds nothing, not even the entries before it. */
		l->n4 = n4;
		l->n6 = n6;
		l->ndom = ndom;
		l->names_len = names_len;
		l->mapped = mapped;
		return ret;
	}
	l->lines = lines + (l->n4 + l->n6 + l->ndom > n4 + n6 + ndom);
	return 0;
}

int bw_fmt_end(struct bw_fmt *f, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	if (f->kind == BW_FMT_DROPJSON)
		return bw_dropjson_end(&f->dj, err, errlen);
	return f->kind == BW_FMT_NFT ? bw_nft_end(&f->nft, err, errlen) : 0;
}

void bw_fmt_note(const struct bw_fmt *f, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	switch (f->kind) {
	case BW_FMT_RPZ:
		bw_rpz_note(&f->rpz, buf, len);
		break;
	case BW_FMT_DNSMASQ:
		bw_srvconf_note(&f->srv, BW_SRV_DNSMASQ, buf, len);
		break;
	case BW_FMT_UNBOUND:
		bw_srvconf_note(&f->srv, BW_SRV_UNBOUND, buf, len);
		break;
	case BW_FMT_IPSET:
		bw_ipset_note(&f->ipset, buf, len);
		break;
	case BW_FMT_NFT:
		bw_nft_note(&f->nft, buf, len);
		break;
	case BW_FMT_DROPJSON:
		bw_dropjson_note(&f->dj, buf, len);
		break;
	default:
		break;
	}
}
