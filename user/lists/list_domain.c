// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * List lines that hold domain names: a plain name or a hosts line blocks
 * that exact name; "*.name" and adblock's "||name^" the name and every
 * name under it; "@@||name^" is an allow entry. Each name is checked and
 * folded (names.c) and pushed into the list's arena (list.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list_domain.h"
#include "lists/names.h"
#include "lists/text.h"

/* Without opts->domains: the caller's filter cannot match names. */
#define REFUSED \
	"domain entries are read and checked, but only addresses are taken here"

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool bw_name_form(const char *tok, size_t len)
{
	bool dot = false, letter = false;
	size_t i;

	if (len >= 2 && (!strncmp(tok, "*.", 2) || !strncmp(tok, "||", 2) ||
			 !strncmp(tok, "@@", 2)))
		return true;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)tok[i];

		if (c == ':' || c == '/')
			return false;
		dot |= c == '.';
		letter |= is_alpha(c) || c == '_' || c >= 0x80;
	}
	return dot && letter;
}

bool bw_hosts_rest(const char *s, size_t len)
{
	bool letter = false;
	size_t i;

	for (i = 0; i < len && !bw_is_blank(s[i]); i++) {
		if (!is_alpha((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && s[i] != '_' && !(s[i] >= '0' && s[i] <= '9'))
			return false;
		letter |= is_alpha((unsigned char)s[i]);
	}
	return letter || bw_name_is_local(s, i);
}

static int push_failed(int ret, char *err, size_t errlen)
{
	if (ret == -E2BIG)
		snprintf(err, errlen,
			 "the lists hold more than 4 GiB of names");
	else
		snprintf(err, errlen, "out of memory while reading the list");
	return ret;
}

/*
 * Adblock's "||name^": the '^' must end the word; "$options" after it
 * would change what the rule means, so such a rule is refused, not read
 * as a plainer one.
 */
static int adblock_name(const char *tok, size_t len, const char **s, size_t *n,
			char *err, size_t errlen)
{
	const char *caret = memchr(*s, '^', *n);

	if (!caret)
		return bw_list_fail(err, errlen,
				    "adblock rule without its closing \"^\"",
				    tok, len);
	if (caret != *s + *n - 1)
		return bw_list_fail(
			err, errlen,
			"adblock rule with options after \"^\": only ||name^ is read",
			tok, len);
	(*n)--;
	return 0;
}

int bw_domain_line(struct bw_list *l, const char *tok, size_t len,
		   const char *rest, size_t restlen, bool glued,
		   const struct bw_list_opts *opts, char *err, size_t errlen)
{
	const char *s = tok;
	char name[BW_NAME_MAX];
	size_t n = len;
	__u8 flags = 0;
	int ret;

	if (glued)
		return bw_list_fail(
			err, errlen,
			"\"#\" right after a name (an adblock element-hiding rule?)",
			tok, len);
	if (n >= 2 && !strncmp(s, "@@", 2)) {
		if (n < 4 || strncmp(s + 2, "||", 2))
			return bw_list_fail(
				err, errlen,
				"an allow entry is written @@||name^", tok,
				len);
		flags |= BW_DOM_ALLOW;
		s += 2;
		n -= 2;
	}
	if (n >= 2 && !strncmp(s, "||", 2)) {
		s += 2;
		n -= 2;
		flags |= BW_DOM_SUBTREE;
		ret = adblock_name(tok, len, &s, &n, err, errlen);
		if (ret)
			return ret;
	} else if (n >= 2 && !strncmp(s, "*.", 2)) {
		s += 2;
		n -= 2;
		flags |= BW_DOM_SUBTREE;
	}
	ret = bw_name_check(s, n, name, err, errlen);
	if (ret < 0)
		return ret;
	if (restlen)
		return bw_list_fail(err, errlen,
				    "unexpected text after the name", rest,
				    restlen);
	if (!opts->domains)
		return bw_list_fail(err, errlen, REFUSED, tok, len);
	n = (size_t)ret;
	ret = bw_domain_push(l, name, n, flags);
	return ret ? push_failed(ret, err, errlen) : 0;
}

int bw_domain_entry(struct bw_list *l, const char *s, size_t len, __u8 flags,
		    const struct bw_list_opts *opts, char *err, size_t errlen)
{
	char name[BW_NAME_MAX];
	int ret;

	ret = bw_name_check(s, len, name, err, errlen);
	if (ret < 0)
		return ret;
	if (!opts->domains)
		return bw_list_fail(err, errlen, REFUSED, s, len);
	ret = bw_domain_push(l, name, (size_t)ret, flags);
	return ret ? push_failed(ret, err, errlen) : 0;
}

bool bw_adblock_comment(const char *s, size_t len)
{
	return len && (*s == '!' || (*s == '[' && s[len - 1] == ']'));
}

int bw_hosts_line(struct bw_list *l, const char *s, size_t len, bool host,
		  const struct bw_list_opts *opts, char *err, size_t errlen)
{
	size_t ndom = l->ndom, names_len = l->names_len, local = 0, w;
	const char *end = s + len, *first = NULL;
	char name[BW_NAME_MAX];
	int ret = 0, pushed = 0;

	if (!host)
		return bw_list_fail(err, errlen,
				    "unexpected text after the address", s,
				    len);
	while (s < end) {
		for (w = 0; s + w < end && !bw_is_blank(s[w]); w++)
			;
		if (bw_name_is_local(s, w)) {
			local++;
		} else {
			ret = bw_name_check(s, w, name, err, errlen);
			if (ret < 0)
				break;
			first = first ?: s;
			if (opts->domains) {
				ret = bw_domain_push(l, name, (size_t)ret, 0);
				if (ret) {
					push_failed(ret, err, errlen);
					break;
				}
			}
			pushed++;
			ret = 0;
		}
		for (s += w; s < end && bw_is_blank(*s); s++)
			;
	}
	if (!ret && pushed && !opts->domains) {
		for (w = 0; first + w < end && !bw_is_blank(first[w]); w++)
			;
		ret = bw_list_fail(err, errlen, REFUSED, first, w);
	}
	if (ret) {
		/* A bad line adds nothing, not even the names before it. */
		l->ndom = ndom;
		l->names_len = names_len;
		return ret;
	}
	l->local += local;
	l->lines += pushed > 0;
	return 0;
}

const char *bw_domain_str(const struct bw_list *l, const struct bw_domain *d,
			  char *buf, size_t len)
{
	snprintf(buf, len, "%s%.*s", d->flags & BW_DOM_SUBTREE ? "*." : "",
		 (int)d->len, bw_domain_name(l, d));
	return buf;
}
