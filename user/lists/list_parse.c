// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * List lines: one entry a line, in the forms real lists use (plain
 * addresses, CIDR prefixes, IPv4 ranges, ipsum's "ADDR<TAB>count",
 * Spamhaus' "CIDR ; SBL123", '#' and ';' comments, CRLF), and the same
 * address syntax for the verbs' arguments. Lines with domain names (plain,
 * hosts, wildcard and adblock forms) are told apart here and read by
 * list_domain.c.
 *
 * bw_list_parse_line() may also succeed with a warning: it returns 0 and
 * leaves the text in err (a masked prefix). Callers that print warnings
 * clear err first and print it when it is not empty.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/text.h"

/* Longest text that can still be an address or prefix ("x:...:x/128"). */
#define TOKEN_MAX (INET6_ADDRSTRLEN + 4)

/* What one list line holds: a prefix, or an IPv4 range [first, last]. */
struct entry {
	struct bw_prefix p;
	bool range;
	bool mapped; /* written as IPv4-mapped IPv6, taken as IPv4 */
	__u32 first, last;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}
/* Parses a plain address into a host prefix. */
static int parse_addr(const char *s, size_t len, struct bw_prefix *p)
{
	unsigned char b[16];
	char buf[TOKEN_MAX];
	int i;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, b) == 1) {
		p->family = BW_V4;
		p->lo = (__u32)b[0] << 24 | (__u32)b[1] << 16 |
			(__u32)b[2] << 8 | b[3];
		p->plen = 32;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, b) != 1)
		return -EINVAL;
	p->family = BW_V6;
	for (i = 0; i < 8; i++) {
		p->hi = p->hi << 8 | b[i];
		p->lo = p->lo << 8 | b[8 + i];
	}
	p->plen = 128;
	return 0;
}

static unsigned int host_len(const struct bw_prefix *p)
{
	return p->family == BW_V4 ? 32 : 128;
}

/*
 * ::ffff:a.b.c.d/(96 + len) is a.b.c.d/len: a packet from a.b.c.d carries
 * the IPv4 address, never the mapped one, so kept as IPv6 the entry would
 * match nothing. A prefix shorter than /96 also covers addresses that are
 * not IPv4-mapped and stays IPv6.
 */
static bool unmap_v4(struct bw_prefix *p)
{
	if (p->family != BW_V6 || p->plen < 96 || p->hi ||
	    p->lo >> 32 != 0xffff)
		return false;
	p->family = BW_V4;
	p->lo &= 0xffffffff;
	p->plen -= 96;
	return true;
}

/* Clears the host bits below p->plen, as the hash does. */
static void mask_prefix(struct bw_prefix *p)
{
	if (p->family == BW_V4) {
		p->lo = bw_mask_v4((__u32)p->lo, p->plen);
		return;
	}
	p->hi = bw_mask64(p->hi, p->plen);
	p->lo = p->plen > 64 ? bw_mask64(p->lo, p->plen - 64) : 0;
}

/* Decimal prefix length, 0..max, no sign, at most three digits. */
static int parse_plen(const char *s, size_t len, unsigned int max,
		      unsigned int *plen)
{
	unsigned int v = 0;
	size_t i;

	if (!len || len > 3)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*plen = v;
	return 0;
}

/* Host bits set: an error unless opts ask to mask them (then a warning). */
static int check_host_bits(struct bw_prefix *p, const char *s, size_t len,
			   const struct bw_list_opts *opts, char *err,
			   size_t errlen)
{
	struct bw_prefix m = *p;
	char want[INET6_ADDRSTRLEN + 8], q[BW_QUOTE_BUF];

	mask_prefix(&m);
	if (m.hi == p->hi && m.lo == p->lo)
		return 0;
	bw_prefix_str(&m, want, sizeof(want));
	bw_quote(q, sizeof(q), s, len);
	if (!opts->mask_host_bits) {
		snprintf(err, errlen,
			 "host bits set in \"%s\" (did you mean %s?)", q, want);
		return -EINVAL;
	}
	snprintf(err, errlen, "host bits set in \"%s\", using %s", q, want);
	*p = m;
	return 0;
}

/* "a.b.c.d/len" or "x::/len"; slash points at the '/'. */
static int parse_cidr(const char *s, size_t len, const char *slash,
		      const struct bw_list_opts *opts, struct entry *e,
		      char *err, size_t errlen)
{
	size_t alen = (size_t)(slash - s);
	unsigned int plen, max;
	char what[48];

	if (parse_addr(s, alen, &e->p))
		return bw_list_fail(err, errlen, "not an IP prefix", s, len);
	max = host_len(&e->p);
	if (parse_plen(slash + 1, len - alen - 1, max, &plen)) {
		snprintf(what, sizeof(what), "bad prefix length (0-%u)", max);
		return bw_list_fail(err, errlen, what, s, len);
	}
	e->p.plen = (__u8)plen;
	e->mapped = unmap_v4(&e->p);
	return check_host_bits(&e->p, s, len, opts, err, errlen);
}

/* "a.b.c.d-e.f.g.h", both ends included; dash points at the '-'. */
static int parse_range(const char *s, size_t len, const char *dash,
		       struct entry *e, char *err, size_t errlen)
{
	struct bw_prefix a, b;

	if (parse_addr(s, (size_t)(dash - s), &a) ||
	    parse_addr(dash + 1, len - (size_t)(dash - s) - 1, &b))
		return bw_list_fail(err, errlen, "not an IP address range", s,
				    len);
	/* Both ends unmapped, not only the first: no short-circuit. */
	e->mapped = unmap_v4(&a);
	e->mapped = unmap_v4(&b) || e->mapped;
	if (a.family != BW_V4 || b.family != BW_V4)
		return bw_list_fail(err, errlen,
				    "IPv6 ranges are not supported", s, len);
	if (a.lo > b.lo)
		return bw_list_fail(err, errlen, "range ends before it starts",
				    s, len);
	e->range = true;
	e->first = (__u32)a.lo;
	e->last = (__u32)b.lo;
	return 0;
}

/* The first word of a line: an address, a prefix or a range. */
static int parse_token(const char *s, size_t len,
		       const struct bw_list_opts *opts, struct entry *e,
		       char *err, size_t errlen)
{
	const char *slash = memchr(s, '/', len);
	const char *dash = memchr(s, '-', len);

	memset(e, 0, sizeof(*e));
	if (bw_name_form(s, len))
		return bw_list_fail(
			err, errlen,
			"a name where an address is expected (addresses and names go in separate commands)",
			s, len);
	if (slash)
		return parse_cidr(s, len, slash, opts, e, err, errlen);
	/* No address has a '-': the line is a range or nothing. */
	if (dash)
		return parse_range(s, len, dash, e, err, errlen);
	if (parse_addr(s, len, &e->p))
		return bw_list_fail(err, errlen, "not an IP address", s, len);
	e->mapped = unmap_v4(&e->p);
	return 0;
}

/* "note: ::ffff:10.0.0.1 is IPv4-mapped; taken as 10.0.0.1", s the token. */
static void note_mapped(char *err, size_t errlen, const char *s, size_t len,
			const struct entry *e)
{
	struct bw_prefix a = { .family = BW_V4, .plen = 32 }, b = a;
	char q[BW_QUOTE_BUF], as[INET6_ADDRSTRLEN + 8], bs[INET6_ADDRSTRLEN];

	if (!errlen || err[0])
		return; /* a warning about the entry says more */
	if (e->range) {
		a.lo = e->first;
		b.lo = e->last;
		bw_prefix_str(&b, bs, sizeof(bs));
	}
	bw_prefix_str(e->range ? &a : &e->p, as, sizeof(as));
	snprintf(err, errlen, "note: %s is IPv4-mapped; taken as %s%s%s",
		 bw_quote(q, sizeof(q), s, len), as, e->range ? "-" : "",
		 e->range ? bs : "");
}

/*
 * What may follow the entry: ipsum's count of lists, or nothing (0), or
 * host names (1): a hosts-file line ("0.0.0.0 example.com"), whose address
 * is no entry.
 */
static int check_rest(const char *s, size_t len, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < len && is_digit(s[i]); i++)
		;
	if (i == len)
		return 0;
	if (bw_hosts_rest(s, len))
		return 1;
	return bw_list_fail(err, errlen, "unexpected text after the address", s,
			    len);
}

/*
 * A hosts line's address may carry a zone ("fe80::1%lo0 localhost"); it
 * is read only to know the line, so the zone needs no meaning here.
 */
static bool zoned_addr(const char *s, size_t len)
{
	const char *pct = memchr(s, '%', len);
	struct bw_prefix p;

	return pct && !parse_addr(s, (size_t)(pct - s), &p) &&
	       p.family == BW_V6;
}

/* Pushes the minimal set of prefixes covering [first, last]. */
static int push_range(struct bw_list *l, __u32 first, __u32 last)
{
	__u64 a = first, end = (__u64)last + 1;
	struct bw_prefix p = { .family = BW_V4 };
	unsigned int host;

	while (a < end) {
		host = a ? (unsigned int)__builtin_ctzll(a) : 32;
		if (host > 32)
			host = 32;
		while ((1ULL << host) > end - a)
			host--;
		p.lo = a;
		p.plen = (__u8)(32 - host);
		if (bw_list_push(l, &p))
			return -ENOMEM;
		a += 1ULL << host;
	}
	return 0;
}

int bw_list_parse_line(struct bw_list *l, const char *line,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen)
{
	const char *s = line, *end = line + strcspn(line, "#;"), *tok;
	bool glued;
	struct entry e;
	size_t len;
	int ret;

	if (errlen)
		err[0] = '\0';
	while (s < end && bw_is_blank(*s))
		s++;
	while (end > s && bw_is_blank(end[-1]))
		end--;
	if (s == end || bw_adblock_comment(s, (size_t)(end - s)))
		return 0;
	for (tok = s; s < end && !bw_is_blank(*s); s++)
		;
	len = (size_t)(s - tok);
	glued = s == end && *end == '#';
	while (s < end && bw_is_blank(*s))
		s++;
	if (bw_name_form(tok, len)) {
		ret = bw_domain_line(l, tok, len, s, (size_t)(end - s), glued,
				     opts, err, errlen);
		l->lines += !ret;
		return ret;
	}
	if (zoned_addr(tok, len) && bw_hosts_rest(s, (size_t)(end - s)))
		return bw_hosts_line(l, s, (size_t)(end - s), true, opts, err,
				     errlen);
	ret = parse_token(tok, len, opts, &e, err, errlen);
	if (ret)
		return ret;
	ret = check_rest(s, (size_t)(end - s), err, errlen);
	if (ret == 1)
		return bw_hosts_line(l, s, (size_t)(end - s),
				     !e.range && e.p.plen == host_len(&e.p),
				     opts, err, errlen);
	if (ret)
		return ret;
	ret = e.range ? push_range(l, e.first, e.last) : bw_list_push(l, &e.p);
	if (ret) {
		snprintf(err, errlen, "out of memory while reading the list");
		return ret;
	}
	l->lines++;
	if (e.mapped) {
		l->mapped++;
		if (opts->note_mapped)
			note_mapped(err, errlen, tok, len, &e);
	}
	return 0;
}

int bw_list_parse_addr(struct bw_list *l, const char *tok, size_t len,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen)
{
	struct entry e;
	int ret;

	if (bw_name_form(tok, len))
		return bw_list_fail(err, errlen,
				    "a name where an address is expected", tok,
				    len);
	ret = parse_token(tok, len, opts, &e, err, errlen);
	if (ret)
		return ret;
	ret = e.range ? push_range(l, e.first, e.last) : bw_list_push(l, &e.p);
	if (ret) {
		snprintf(err, errlen, "out of memory while reading the list");
		return ret;
	}
	if (e.mapped) {
		l->mapped++;
		if (opts->note_mapped)
			note_mapped(err, errlen, tok, len, &e);
	}
	return 0;
}

int bw_parse_prefix(const char *s, struct bw_prefix *p, char *err,
		    size_t errlen)
{
	const struct bw_list_opts opts = {};
	size_t len = strlen(s);
	struct entry e;
	int ret;

	if (errlen)
		err[0] = '\0';
	if (!len)
		return bw_list_fail(err, errlen, "empty address", s, len);
	ret = parse_token(s, len, &opts, &e, err, errlen);
	if (ret)
		return ret;
	if (e.range)
		return bw_list_fail(
			err, errlen,
			"expected one address or prefix, not a range", s, len);
	*p = e.p;
	if (e.mapped)
		note_mapped(err, errlen, s, len, &e);
	return 0;
}

const char *bw_prefix_str(const struct bw_prefix *p, char *buf, size_t len)
{
	unsigned char b[16];
	char addr[INET6_ADDRSTRLEN];
	int i;

	if (p->family == BW_V4) {
		for (i = 0; i < 4; i++)
			b[i] = (unsigned char)(p->lo >> (24 - 8 * i));
		inet_ntop(AF_INET, b, addr, sizeof(addr));
	} else {
		for (i = 0; i < 8; i++) {
			b[i] = (unsigned char)(p->hi >> (56 - 8 * i));
			b[8 + i] = (unsigned char)(p->lo >> (56 - 8 * i));
		}
		inet_ntop(AF_INET6, b, addr, sizeof(addr));
	}
	if (p->plen >= host_len(p))
		snprintf(buf, len, "%s", addr);
	else
		snprintf(buf, len, "%s/%u", addr, p->plen);
	return buf;
}
