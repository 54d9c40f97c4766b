// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * RPZ zone files: each record's owner, TTL, class, type and data read
 * from the line, the owner turned into the listed name and the policy
 * into an entry (rpz.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lists/list_domain.h"
#include "lists/names.h"
#include "lists/rpz.h"
#include "lists/text.h"

/* Types that carry local data: the name is answered locally, not resolved. */
static const char *const data_types[] = {
	"A",   "AAAA",	"TXT",	 "MX",	 "PTR",	  "SRV",  "DNAME", "HINFO",
	"CAA", "NAPTR", "HTTPS", "SVCB", "SSHFP", "TLSA", "DS",	   "DNSKEY",
	"LOC", "RP",	"URI",	 "SPF",	 "AFSDB", NULL,
};

static bool in_list(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (bw_word_is(w, n, *list))
			return true;
	return false;
}

/* A record's words: owner (NULL: the one above), type, first datum. */
struct rr {
	const char *owner, *type, *data;
	size_t owner_len, type_len, data_len;
};

/* A TTL: digits, or a BIND-style 1h30m. */
static bool ttl_word(const char *w, size_t n)
{
	size_t i;

	if (!n || w[0] < '0' || w[0] > '9')
		return false;
	for (i = 0; i < n; i++)
		if (!(w[i] >= '0' && w[i] <= '9') &&
		    !strchr("smhdwSMHDW", w[i]))
			return false;
	return true;
}

static bool class_word(const char *w, size_t n)
{
	return bw_word_is(w, n, "IN") || bw_word_is(w, n, "CH") ||
	       bw_word_is(w, n, "HS");
}

static bool type_word(const char *w, size_t n)
{
	return bw_word_is(w, n, "CNAME") || bw_word_is(w, n, "SOA") ||
	       bw_word_is(w, n, "NS") || in_list(w, n, data_types);
}

/* The line without its comment: ';' outside a quoted string. */
static size_t cut_comment(const char *s, size_t len)
{
	bool quoted = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == ';' && !quoted)
			break;
	}
	while (i && bw_is_blank(s[i - 1]))
		i--;
	return i;
}

/* Splits a record line; false if it is none (no type where one goes). */
static bool split_rr(const char *s, size_t len, struct rr *r)
{
	const char *w;
	size_t pos = 0, n;
	int k;

	memset(r, 0, sizeof(*r));
	n = bw_word(s, len, &pos, &w);
	if (!n)
		return false;
	if (!bw_is_blank(s[0])) {
		r->owner = w;
		r->owner_len = n;
		n = bw_word(s, len, &pos, &w);
	}
	/* [TTL] [class] or [class] [TTL], then the type. */
	for (k = 0; k < 2 && n && (ttl_word(w, n) || class_word(w, n)); k++)
		n = bw_word(s, len, &pos, &w);
	if (!n || !type_word(w, n))
		return false;
	r->type = w;
	r->type_len = n;
	r->data_len = bw_word(s, len, &pos, &r->data);
	return true;
}

bool bw_rpz_detect(const char *line, size_t len)
{
	struct rr r;

	if (len && line[0] == '$')
		return true;
	if (!split_rr(line, len, &r))
		return false;
	/* A hosts line ("0.0.0.0 ns") is no record: an owner is a name. */
	if (!r.owner)
		return true;
	if (memchr(r.owner, ':', r.owner_len))
		return false;
	return !strchr("0123456789", r.owner[0]) ||
	       bw_name_form(r.owner, r.owner_len);
}

/* "$TTL 3600", "$ORIGIN rpz.example.", "$INCLUDE" (refused). */
static int directive(struct bw_rpz *z, const char *s, size_t len, char *err,
		     size_t errlen)
{
	const char *w, *arg;
	size_t pos = 0, n, an;
	int ret;

	n = bw_word(s, len, &pos, &w);
	an = bw_word(s, len, &pos, &arg);
	if (bw_word_is(w, n, "$TTL")) {
		z->zone++;
		return 0;
	}
	if (bw_word_is(w, n, "$INCLUDE"))
		return bw_list_fail(
			err, errlen,
			"$INCLUDE is not followed: give the included zone file as a list of its own",
			s, len);
	if (!bw_word_is(w, n, "$ORIGIN"))
		return bw_list_fail(err, errlen, "unknown zone file directive",
				    s, len);
	if (an == 1 && arg[0] == '.') {
		z->origin_len = 0;
		return 0;
	}
	if (!an || arg[an - 1] != '.')
		return bw_list_fail(
			err, errlen,
			"$ORIGIN takes an absolute name (ending in \".\")", s,
			len);
	ret = bw_name_check(arg, an, z->origin, err, errlen);
	if (ret < 0)
		return ret;
	z->origin_len = (size_t)ret;
	return 0;
}

static const char *const triggers[] = {
	"rpz-ip", "rpz-nsip", "rpz-nsdname", "rpz-client-ip", NULL,
};

/* Refuses triggers on addresses and name servers: not query names. */
static int check_trigger(const char *s, size_t n, char *err, size_t errlen)
{
	const char *dot = s + n;

	while (dot > s && dot[-1] != '.')
		dot--;
	if (dot == s || !in_list(dot, (size_t)(s + n - dot), triggers))
		return 0;
	return bw_list_fail(
		err, errlen,
		"RPZ triggers on addresses or name servers are not read (bloomwall matches query names)",
		s, n);
}

/*
 * The owner as the listed name, in s and *n (cut back from the origin),
 * and whether it covers the subtree ("*.name").
 */
static int owner_name(const struct bw_rpz *z, const char **s, size_t *n,
		      bool *subtree, char *err, size_t errlen)
{
	const char *o = *s;
	size_t on = *n, cut;

	*subtree = on >= 2 && !strncmp(o, "*.", 2);
	if (*subtree) {
		o += 2;
		on -= 2;
	}
	if (bw_word_is(o, on, "@") || bw_word_is(o, on, "*"))
		return bw_list_fail(err, errlen,
				    "a policy for the zone's own apex", *s, *n);
	if (on && o[on - 1] == '.' && z->origin_len) {
		on--;
		cut = on - z->origin_len;
		if (on == z->origin_len && !strncasecmp(o, z->origin, on))
			return bw_list_fail(err, errlen,
					    "a policy for the zone's own apex",
					    *s, *n);
		if (on <= z->origin_len + 1 || o[cut - 1] != '.' ||
		    strncasecmp(o + cut, z->origin, z->origin_len))
			return bw_list_fail(err, errlen,
					    "a name outside the zone's $ORIGIN",
					    *s, *n);
		on = cut - 1;
	}
	*s = o;
	*n = on;
	return check_trigger(o, on, err, errlen);
}

/* The policy of a CNAME record: its entry's flags, or 1 for none. */
static int cname_policy(struct bw_rpz *z, const struct rr *r, __u8 *flags)
{
	if (bw_word_is(r->data, r->data_len, "."))
		return 0;
	if (bw_word_is(r->data, r->data_len, "*.")) {
		z->nodata++;
		return 0;
	}
	if (bw_word_is(r->data, r->data_len, "rpz-passthru.")) {
		z->passthru++;
		*flags |= BW_DOM_ALLOW;
		return 0;
	}
	if (bw_word_is(r->data, r->data_len, "rpz-drop."))
		return 0;
	if (bw_word_is(r->data, r->data_len, "rpz-tcp-only.")) {
		z->ignored++;
		return 1;
	}
	z->local++; /* a CNAME to another name: the answer rewritten */
	return 0;
}

/* A record with its owner: the entry it makes, if any. */
static int record(struct bw_rpz *z, struct bw_list *l, const struct rr *r,
		  const struct bw_list_opts *opts, char *err, size_t errlen)
{
	const char *name = z->owner;
	size_t n = z->owner_len;
	bool subtree;
	__u8 flags = 0;
	int ret;

	if (bw_word_is(r->type, r->type_len, "SOA") ||
	    bw_word_is(r->type, r->type_len, "NS")) {
		z->zone++;
		return 0;
	}
	if (!r->data_len)
		return bw_list_fail(err, errlen, "a record without its data",
				    r->type, r->type_len);
	ret = owner_name(z, &name, &n, &subtree, err, errlen);
	if (ret)
		return ret;
	if (subtree)
		flags |= BW_DOM_SUBTREE;
	if (bw_word_is(r->type, r->type_len, "CNAME")) {
		ret = cname_policy(z, r, &flags);
		if (ret)
			return 0;
	} else {
		z->local++;
	}
	return bw_domain_entry(l, name, n, flags, opts, err, errlen);
}

int bw_rpz_line(struct bw_rpz *z, struct bw_list *l, const char *line,
		size_t len, const struct bw_list_opts *opts, char *err,
		size_t errlen)
{
	const char *open;
	struct rr r;
	size_t i;

	len = cut_comment(line, len);
	if (z->paren) {
		z->paren = !memchr(line, ')', len);
		return 0;
	}
	for (i = 0; i < len && bw_is_blank(line[i]); i++)
		;
	if (i == len)
		return 0;
	if (line[0] == '$')
		return directive(z, line, len, err, errlen);
	if (!split_rr(line, len, &r))
		return bw_list_fail(
			err, errlen,
			"not an RPZ record (name [TTL] [class] type data)",
			line, len);
	open = memchr(line, '(', len);
	z->paren = open && !memchr(open, ')', len - (size_t)(open - line));
	if (r.owner) {
		if (r.owner_len > sizeof(z->owner))
			return bw_list_fail(err, errlen, "name too long",
					    r.owner, r.owner_len);
		memcpy(z->owner, r.owner, r.owner_len);
		z->owner_len = r.owner_len;
	} else if (!z->owner_len) {
		return bw_list_fail(err, errlen,
				    "a record with no owner name above it",
				    line, len);
	}
	return record(z, l, &r, opts, err, errlen);
}

void bw_rpz_note(const struct bw_rpz *z, char *buf, size_t len)
{
	int n;

	n = snprintf(
		buf, len,
		"read as an RPZ zone; its actions are not kept: a listed name gets bloomwall's --dns-action");
	if (n < 0 || (size_t)n >= len)
		return;
	if (z->nodata || z->local)
		n += snprintf(
			buf + n, len - (size_t)n,
			"; %zu NODATA (CNAME *.) and %zu local-data records blocked the same way",
			z->nodata, z->local);
	if (n > 0 && (size_t)n < len && z->passthru)
		n += snprintf(buf + n, len - (size_t)n,
			      "; %zu rpz-passthru. allow %s", z->passthru,
			      z->passthru == 1 ? "entry" : "entries");
	if (n > 0 && (size_t)n < len && z->ignored)
		n += snprintf(buf + n, len - (size_t)n,
			      "; %zu rpz-tcp-only. records ignored",
			      z->ignored);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; %zu $TTL, SOA and NS lines skipped", z->zone);
}
