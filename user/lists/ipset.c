// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ipset save files (ipset.h): the sets their create lines make, the
 * entries their add lines put in them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/ipset.h"
#include "lists/list_parse.h"
#include "lists/text.h"

static const char *const addr_types[] = { "hash:ip", "hash:net", "bitmap:ip",
					  NULL };

/* Options of an add line that take a value; "comment" takes a string. */
static const char *const valued[] = { "timeout", "packets", "bytes",
				      "skbmark", "skbprio", "skbqueue",
				      "comment", NULL };

static bool in_list(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (bw_word_is(w, n, *list))
			return true;
	return false;
}

bool bw_ipset_detect(const char *line, size_t len)
{
	const char *w, *name, *third;
	size_t pos = 0, n = bw_word(line, len, &pos, &w);

	if (!bw_word_is(w, n, "create") && !bw_word_is(w, n, "add"))
		return false;
	/* nftables' "add element|set|table ..." is not ipset's. */
	n = bw_word(line, len, &pos, &name);
	if (!n || bw_word_is(name, n, "element") ||
	    bw_word_is(name, n, "set") || bw_word_is(name, n, "table") ||
	    bw_word_is(name, n, "map") || bw_word_is(name, n, "chain") ||
	    bw_word_is(name, n, "rule"))
		return false;
	return bw_word(line, len, &pos, &third) > 0;
}

static int find_set(const struct bw_ipset *s, const char *name, size_t n)
{
	int i;

	for (i = 0; i < s->nsets; i++)
		if (strlen(s->set[i].name) == n &&
		    !memcmp(s->set[i].name, name, n))
			return i;
	return -1;
}

/* "create NAME TYPE [family inet6] [netmask N] [...]" */
static int create(struct bw_ipset *s, const char *line, size_t len, size_t pos,
		  char *err, size_t errlen)
{
	const char *name, *type, *w, *v;
	size_t n, tn, wn, vn;
	int i;

	n = bw_word(line, len, &pos, &name);
	tn = bw_word(line, len, &pos, &type);
	if (!n || !tn || n >= BW_IPSET_NAME)
		return bw_list_fail(err, errlen,
				    "create takes a set name and a type", line,
				    len);
	if (!in_list(type, tn, addr_types))
		return bw_list_fail(
			err, errlen,
			"a set type that holds more than addresses (hash:ip, hash:net and bitmap:ip are read)",
			type, tn);
	if (find_set(s, name, n) >= 0)
		return bw_list_fail(err, errlen, "set created twice", name, n);
	if (s->nsets == BW_IPSET_SETS)
		return bw_list_fail(err, errlen,
				    "more than 64 sets in one file", name, n);
	i = s->nsets++;
	memcpy(s->set[i].name, name, n);
	s->set[i].name[n] = '\0';
	s->set[i].family = BW_V4;
	s->set[i].netmask = 0;
	while ((wn = bw_word(line, len, &pos, &w))) {
		vn = bw_word(line, len, &pos, &v);
		if (bw_word_is(w, wn, "family") && bw_word_is(v, vn, "inet6"))
			s->set[i].family = BW_V6;
		if (bw_word_is(w, wn, "netmask") && vn && vn <= 3)
			s->set[i].netmask = (__u8)atoi(v);
	}
	return 0;
}

/* A hash:ip set with a netmask stores the /N each address is in. */
static void apply_netmask(struct bw_list *l, size_t n4, size_t n6,
			  unsigned int m)
{
	for (; n4 < l->n4; n4++)
		if (m < bw_v4key_plen(l->v4[n4]))
			l->v4[n4] = bw_v4key(
				bw_mask_v4(bw_v4key_addr(l->v4[n4]), m), m);
	for (; n6 < l->n6; n6++) {
		if (m >= l->v6[n6].plen)
			continue;
		l->v6[n6].hi = bw_mask64(l->v6[n6].hi, m);
		l->v6[n6].lo = m > 64 ? bw_mask64(l->v6[n6].lo, m - 64) : 0;
		l->v6[n6].plen = m;
	}
}

/* The options after an add line's entry: ignored, counted. */
static int add_options(struct bw_ipset *s, const char *line, size_t len,
		       size_t pos, char *err, size_t errlen)
{
	const char *w, *v;
	size_t wn;
	bool any = false;

	while ((wn = bw_word(line, len, &pos, &w))) {
		if (bw_word_is(w, wn, "nomatch"))
			return bw_list_fail(
				err, errlen,
				"nomatch (an exception inside a listed prefix) cannot be kept in a block list: put the addresses in an --allow file",
				line, len);
		if (!in_list(w, wn, valued))
			return bw_list_fail(err, errlen, "unknown add option",
					    w, wn);
		if (!bw_word(line, len, &pos, &v))
			return bw_list_fail(err, errlen, "option without value",
					    w, wn);
		any = true;
	}
	s->options += any;
	return 0;
}

/* "add NAME ENTRY [options]" */
static int add(struct bw_ipset *s, struct bw_list *l, const char *line,
	       size_t len, size_t pos, const struct bw_list_opts *opts,
	       char *err, size_t errlen)
{
	size_t n4 = l->n4, n6 = l->n6, mapped = l->mapped, n, en;
	const char *name, *e;
	int i, ret;

	n = bw_word(line, len, &pos, &name);
	en = bw_word(line, len, &pos, &e);
	if (!n || !en)
		return bw_list_fail(err, errlen,
				    "add takes a set name and an entry", line,
				    len);
	i = find_set(s, name, n);
	if (i < 0)
		return bw_list_fail(err, errlen,
				    "an add to a set not created above", name,
				    n);
	ret = add_options(s, line, len, pos, err, errlen);
	if (ret)
		return ret;
	ret = bw_list_parse_addr(l, e, en, opts, err, errlen);
	if (ret)
		return ret;
	if ((s->set[i].family == BW_V4 && l->n6 != n6) ||
	    (s->set[i].family == BW_V6 && l->n4 != n4 && l->mapped == mapped)) {
		l->n4 = n4;
		l->n6 = n6;
		return bw_list_fail(
			err, errlen,
			s->set[i].family == BW_V4
				? "an IPv6 entry in a family inet set"
				: "an IPv4 entry in a family inet6 set",
			e, en);
	}
	if (s->set[i].netmask)
		apply_netmask(l, n4, n6, s->set[i].netmask);
	return 0;
}

int bw_ipset_line(struct bw_ipset *s, struct bw_list *l, const char *line,
		  size_t len, const struct bw_list_opts *opts, char *err,
		  size_t errlen)
{
	const char *w;
	size_t pos = 0, n = bw_word(line, len, &pos, &w);

	if (!n || w[0] == '#')
		return 0;
	if (bw_word_is(w, n, "create"))
		return create(s, line, len, pos, err, errlen);
	if (bw_word_is(w, n, "add"))
		return add(s, l, line, len, pos, opts, err, errlen);
	return bw_list_fail(err, errlen,
			    "not an ipset save line (create or add)", line,
			    len);
}

void bw_ipset_note(const struct bw_ipset *s, char *buf, size_t len)
{
	snprintf(
		buf, len,
		"read as an ipset save file: %d %s; %zu add lines' options (timeout, comment...) ignored",
		s->nsets, s->nsets == 1 ? "set" : "sets", s->options);
}
