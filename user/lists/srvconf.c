// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * dnsmasq and Unbound blocklist lines (srvconf.h): the names of each
 * line and what the server does with them, as entries of a list.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/srvconf.h"
#include "lists/text.h"

/* s[0..*len) without blanks around it. */
static const char *trim(const char *s, size_t *len)
{
	while (*len && bw_is_blank(*s)) {
		s++;
		(*len)--;
	}
	while (*len && bw_is_blank(s[*len - 1]))
		(*len)--;
	return s;
}

static bool prefix_is(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !strncmp(s, p, n);
}

int bw_srvconf_detect(const char *line, size_t len)
{
	const char *s = trim(line, &len);

	if (prefix_is(s, len, "address=/") || prefix_is(s, len, "local=/") ||
	    prefix_is(s, len, "server=/"))
		return BW_SRV_DNSMASQ;
	if (prefix_is(s, len, "server:") || prefix_is(s, len, "local-zone:") ||
	    prefix_is(s, len, "local-data:") ||
	    prefix_is(s, len, "local-data-ptr:"))
		return BW_SRV_UNBOUND;
	return 0;
}

/* ---- dnsmasq ---------------------------------------------------------- */

enum { DM_BLOCK, DM_SINKHOLE, DM_FORWARD };

/* What the target after the last '/' makes of the names. */
static int dm_target(const char *key, const char *t, size_t n, char *err,
		     size_t errlen)
{
	struct bw_prefix p;
	char buf[64], e[BW_ERRLEN];

	if (!strcmp(key, "address")) {
		if (!n || bw_word_is(t, n, "#"))
			return DM_BLOCK;
		if (n >= sizeof(buf))
			return bw_list_fail(err, errlen, "not an address", t,
					    n);
		memcpy(buf, t, n);
		buf[n] = '\0';
		if (bw_parse_prefix(buf, &p, e, sizeof(e)) ||
		    p.plen != (p.family == BW_V4 ? 32 : 128))
			return bw_list_fail(err, errlen,
					    "not an address to answer with", t,
					    n);
		if ((p.family == BW_V4 && (!p.lo || p.lo == 0x7f000001)) ||
		    (p.family == BW_V6 && !p.hi && p.lo <= 1))
			return DM_BLOCK;
		return DM_SINKHOLE;
	}
	/* local= and server=: no server given is "answer locally". */
	return n ? DM_FORWARD : DM_BLOCK;
}

/* Each name of "/a/b/" (s[0..len), between the first and last '/'). */
static int dm_names(struct bw_list *l, const char *s, size_t len,
		    const struct bw_list_opts *opts, char *err, size_t errlen)
{
	const char *end = s + len, *slash;
	size_t n;
	int ret;

	if (!len)
		return bw_list_fail(err, errlen, "no name between the slashes",
				    s, len);
	while (s < end) {
		slash = memchr(s, '/', (size_t)(end - s));
		n = slash ? (size_t)(slash - s) : (size_t)(end - s);
		if (bw_word_is(s, n, "#"))
			return bw_list_fail(
				err, errlen,
				"\"#\" as the name stands for every name: not a blocklist entry",
				s, n);
		if (n >= 2 && !strncmp(s, "*.", 2)) {
			s += 2;
			n -= 2;
		}
		ret = bw_domain_entry(l, s, n, BW_DOM_SUBTREE, opts, err,
				      errlen);
		if (ret)
			return ret;
		s += n + 1;
	}
	return 0;
}

static int dnsmasq_line(struct bw_srvconf *c, struct bw_list *l, const char *s,
			size_t len, const struct bw_list_opts *opts, char *err,
			size_t errlen)
{
	const char *eq = memchr(s, '=', len), *v, *last;
	char key[32];
	size_t klen, vlen;
	int what;

	klen = eq ? (size_t)(eq - s) : 0;
	if (!eq || klen >= sizeof(key) || eq[1] != '/')
		return bw_list_fail(
			err, errlen,
			"not a dnsmasq blocklist line (address=/name/..., local=/name/, server=/name/...)",
			s, len);
	memcpy(key, s, klen);
	key[klen] = '\0';
	if (strcmp(key, "address") && strcmp(key, "local") &&
	    strcmp(key, "server"))
		return bw_list_fail(
			err, errlen,
			"a dnsmasq option other than address=, local= and server=",
			s, len);
	v = eq + 2;
	vlen = len - klen - 2;
	last = v + vlen;
	while (last > v && last[-1] != '/')
		last--;
	if (last == v)
		return bw_list_fail(err, errlen,
				    "no closing \"/\" after the name", s, len);
	what = dm_target(key, last, (size_t)(v + vlen - last), err, errlen);
	if (what < 0)
		return what;
	if (what == DM_FORWARD) {
		c->forwarded++;
		return 0;
	}
	c->sinkhole += what == DM_SINKHOLE;
	return dm_names(l, v, (size_t)(last - v) - 1, opts, err, errlen);
}

/* ---- Unbound ----------------------------------------------------------- */

static const char *const zone_block[] = {
	"always_null", "always_nxdomain", "always_refuse",   "always_nodata",
	"always_deny", "static",	  "refuse",	     "deny",
	"redirect",    "inform_deny",	  "inform_redirect", NULL,
};

static const char *const zone_allow[] = {
	"transparent", "always_transparent", "typetransparent", "inform", NULL,
};

static bool in_list(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (bw_word_is(w, n, *list))
			return true;
	return false;
}

/* The line without a '#' comment outside a quoted string. */
static size_t cut_hash(const char *s, size_t len)
{
	bool quoted = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == '#' && !quoted)
			break;
	}
	return i;
}

/* local-zone: "name." TYPE */
static int local_zone(struct bw_srvconf *c, struct bw_list *l, const char *s,
		      size_t len, const struct bw_list_opts *opts, char *err,
		      size_t errlen)
{
	const char *name, *type, *more;
	size_t pos = 0, n, tn;

	n = bw_word(s, len, &pos, &name);
	tn = bw_word(s, len, &pos, &type);
	if (!n || !tn || bw_word(s, len, &pos, &more))
		return bw_list_fail(err, errlen,
				    "local-zone takes a name and a type", s,
				    len);
	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		name++;
		n -= 2;
	}
	if (bw_word_is(type, tn, "nodefault")) {
		c->ignored++;
		return 0;
	}
	if (in_list(type, tn, zone_allow)) {
		c->allow++;
		return bw_domain_entry(l, name, n,
				       BW_DOM_SUBTREE | BW_DOM_ALLOW, opts, err,
				       errlen);
	}
	if (!in_list(type, tn, zone_block))
		return bw_list_fail(err, errlen, "unknown local-zone type",
				    type, tn);
	return bw_domain_entry(l, name, n, BW_DOM_SUBTREE, opts, err, errlen);
}

static int unbound_line(struct bw_srvconf *c, struct bw_list *l, const char *s,
			size_t len, const struct bw_list_opts *opts, char *err,
			size_t errlen)
{
	if (prefix_is(s, len, "server:") && len == 7)
		return 0;
	if (prefix_is(s, len, "local-zone:"))
		return local_zone(c, l, s + 11, len - 11, opts, err, errlen);
	if (prefix_is(s, len, "local-data:") ||
	    prefix_is(s, len, "local-data-ptr:")) {
		c->ignored++;
		return 0;
	}
	return bw_list_fail(
		err, errlen,
		"not an Unbound blocklist line (server:, local-zone:, local-data:)",
		s, len);
}

int bw_srvconf_line(struct bw_srvconf *c, int kind, struct bw_list *l,
		    const char *line, size_t len,
		    const struct bw_list_opts *opts, char *err, size_t errlen)
{
	const char *s = trim(line, &len);

	if (!len || s[0] == '#')
		return 0;
	if (kind == BW_SRV_DNSMASQ)
		return dnsmasq_line(c, l, s, len, opts, err, errlen);
	len = cut_hash(s, len);
	s = trim(s, &len);
	return len ? unbound_line(c, l, s, len, opts, err, errlen) : 0;
}

void bw_srvconf_note(const struct bw_srvconf *c, int kind, char *buf,
		     size_t len)
{
	if (kind == BW_SRV_DNSMASQ)
		snprintf(
			buf, len,
			"read as dnsmasq lines: each name blocked with its subtree, with bloomwall's --dns-action; %zu answered with another address (blocked the same way), %zu server= lines forwarding elsewhere not read as blocks",
			c->sinkhole, c->forwarded);
	else
		snprintf(
			buf, len,
			"read as Unbound local-zone lines: each zone blocked with its subtree, with bloomwall's --dns-action; %zu transparent zones taken as allow entries, %zu local-data and nodefault lines not read",
			c->allow, c->ignored);
}
