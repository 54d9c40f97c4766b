// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Domain names: the name rules, every list form that holds names and each
 * of its errors, the entries' storage and de-duplication, the wire format,
 * and the name hash of include/bw_hash.h against its pinned vectors
 * (tests/vectors.h), a byte-at-a-time reading of its definition, and the
 * properties the data path relies on. The real domain lists of
 * tests/data load with known counts.
 */
#include <stdlib.h>

#include "bloomwall.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "lists/names.h"
#include "test_helpers.h"
#include "unit.h"
#include "vectors.h"

#define DNS_REFUSED \
	"domain entries are read and checked, but only addresses are taken here"

/* ---- the name rules ---- */

static const struct {
	const char *in, *want; /* want NULL: err is the message */
	const char *err;
} name_cases[] = {
	{ "example.com", "example.com", NULL },
	{ "Ads.EXAMPLE.Com.", "ads.example.com", NULL },
	{ "_dmarc.xn--bcher-kva.example", "_dmarc.xn--bcher-kva.example",
	  NULL },
	{ "a-b_c.d1", "a-b_c.d1", NULL },
	{ "com", "com", NULL },
	{ "123.example", "123.example", NULL },
	{ "", NULL, "empty name: \"\"" },
	{ ".", NULL, "empty name: \".\"" },
	{ "a..b", NULL, "empty label in name: \"a..b\"" },
	{ ".a", NULL, "empty label in name: \".a\"" },
	{ "a.b..", NULL, "empty label in name: \"a.b..\"" },
	{ "ex!ample.com", NULL,
	  "bad character \"!\" in name: \"ex!ample.com\"" },
	{ "ex\x1b.com", NULL,
	  "bad character \"\\x1b\" in name: \"ex\\x1b.com\"" },
	{ "ex\xc3\xa9mple.com", NULL,
	  "not ASCII: write IDN names in their xn-- form: "
	  "\"ex\\xc3\\xa9mple.com\"" },
	{ "a.*.com", NULL,
	  "a wildcard is only \"*.\" before a name: \"a.*.com\"" },
	{ "1.2.3.4", NULL,
	  "top-level label all digits: not a name: \"1.2.3.4\"" },
	{ "example.123", NULL,
	  "top-level label all digits: not a name: \"example.123\"" },
};

BW_TEST(test_name_rules)
{
	char out[BW_NAME_MAX], err[BW_ERRLEN];
	size_t i;
	int n;

	for (i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
		err[0] = '\0';
		n = bw_name_check(name_cases[i].in, strlen(name_cases[i].in),
				  out, err, sizeof(err));
		if (name_cases[i].want) {
			if (!ASSERT_GE(n, 1, name_cases[i].in))
				continue;
			out[n] = '\0';
			ASSERT_STREQ(out, name_cases[i].want, name_cases[i].in);
		} else {
			ASSERT_EQ(n, -EINVAL, name_cases[i].in);
			ASSERT_STREQ(err, name_cases[i].err, name_cases[i].in);
		}
	}
}

/* Labels of 63 bytes and names of 253 pass; one byte more does not. */
BW_TEST(test_name_rules_bounds)
{
	char in[300], out[BW_NAME_MAX], err[BW_ERRLEN];
	size_t i;

	memset(in, 'a', 63);
	memcpy(in + 63, ".com", 4);
	ASSERT_EQ(bw_name_check(in, 67, out, err, sizeof(err)), 67, "63");
	memset(in, 'a', 64);
	memcpy(in + 64, ".com", 4);
	ASSERT_EQ(bw_name_check(in, 68, out, err, sizeof(err)), -EINVAL, "64");
	ASSERT_STRSTR(err, "label longer than 63 bytes in name", "64 msg");
	/* 127 labels of one byte: 253 bytes, and the trailing dot of FQDNs */
	for (i = 0; i < 253; i++)
		in[i] = i % 2 ? '.' : 'a';
	in[253] = '.';
	ASSERT_EQ(bw_name_check(in, 253, out, err, sizeof(err)), 253, "253");
	ASSERT_EQ(bw_name_check(in, 254, out, err, sizeof(err)), 253, "dot");
	in[253] = 'a';
	ASSERT_EQ(bw_name_check(in, 254, out, err, sizeof(err)), -EINVAL,
		  "254");
	ASSERT_STRSTR(err, "name longer than 253 bytes", "254 msg");
}

BW_TEST(test_name_local)
{
	static const char *const local[] = {
		"localhost",	"localhost.localdomain",
		"local",	"broadcasthost",
		"0.0.0.0",	"ip6-localhost",
		"ip6-loopback", "ip6-allnodes",
		"LocalHost.",
	};
	static const char *const not_local[] = {
		"localhost.example.com", "ip6-x.example.com", "ip6-",
		"my-localhost",		 "0.0.0.1",
	};
	size_t i;

	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		ASSERT_TRUE(bw_name_is_local(local[i], strlen(local[i])),
			    local[i]);
	for (i = 0; i < sizeof(not_local) / sizeof(not_local[0]); i++)
		ASSERT_FALSE(
			bw_name_is_local(not_local[i], strlen(not_local[i])),
			not_local[i]);
}

/* ---- list lines ---- */

/*
 * Parses one line with domains kept; *out lists what it pushed: "=name"
 * exact, "*name" subtree, a leading "@" for allow entries, then "+N" for
 * N local entries skipped and the prefixes pushed as "ip:N".
 */
static int parse_names(const char *line, bool domains, char *out, size_t outlen,
		       char *err, size_t *lines)
{
	struct bw_list_opts opts = { .domains = domains };
	struct bw_list l;
	const struct bw_domain *d;
	size_t i, o = 0;
	int ret;

	bw_list_init(&l);
	err[0] = '\0';
	ret = bw_list_parse_line(&l, line, &opts, err, BW_ERRLEN);
	out[0] = '\0';
	for (i = 0; i < l.ndom; i++) {
		d = &l.dom[i];
		o += (size_t)snprintf(out + o, outlen - o, "%s%s%s%.*s",
				      i ? " " : "",
				      d->flags & BW_DOM_ALLOW ? "@" : "",
				      d->flags & BW_DOM_SUBTREE ? "*" : "=",
				      d->len, bw_domain_name(&l, d));
	}
	if (l.local)
		o += (size_t)snprintf(out + o, outlen - o, "%s+%zu",
				      o ? " " : "", l.local);
	if (l.n4 + l.n6)
		snprintf(out + o, outlen - o, "%sip:%zu", o ? " " : "",
			 l.n4 + l.n6);
	*lines = l.lines;
	bw_list_free(&l);
	return ret;
}

static const struct {
	const char *line, *want;
} form_cases[] = {
	{ "example.com", "=example.com" },
	{ "  Example.COM.  # a comment", "=example.com" },
	{ "example.com ; a comment", "=example.com" },
	{ "*.example.com", "*example.com" },
	{ "*.Example.Com.", "*example.com" },
	{ "*.com", "*com" },
	{ "||example.com^", "*example.com" },
	{ "||ADS.example.com^", "*ads.example.com" },
	{ "@@||example.com^", "@*example.com" },
	{ "0.0.0.0 example.com", "=example.com" },
	{ "127.0.0.1\tads.example.com\t# tracking", "=ads.example.com" },
	{ "0.0.0.0 a.example b.example  c.example", "=a.example =b.example "
						    "=c.example" },
	{ "0.0.0.0 fashion-tube.be  #[Win32/InstallMonetizer.AN]",
	  "=fashion-tube.be" },
	{ "1.2.3.4 intranet", "=intranet" },
	{ "::1 localhost ip6-localhost", "+2" },
	{ "fe80::1%lo0 localhost", "+1" },
	{ "255.255.255.255 broadcasthost", "+1" },
	{ "0.0.0.0 0.0.0.0", "+1" },
	{ "127.0.0.1 localhost example.com", "=example.com +1" },
	{ "www.zgarniij_vouchher.skroc.pl", "=www.zgarniij_vouchher.skroc.pl" },
	{ "xn--80ak6aa92e.com", "=xn--80ak6aa92e.com" },
	/* The IP forms are as they were, beside names. */
	{ "10.0.0.0/8", "ip:1" },
	{ "1.2.3.4\t5", "ip:1" },
	{ "! adblock comment", "" },
	{ "[Adblock Plus 2.0]", "" },
};

BW_TEST(test_name_list_forms)
{
	char out[512], err[BW_ERRLEN];
	size_t i, lines;

	for (i = 0; i < sizeof(form_cases) / sizeof(form_cases[0]); i++) {
		if (!ASSERT_OK(parse_names(form_cases[i].line, true, out,
					   sizeof(out), err, &lines),
			       form_cases[i].line))
			continue;
		ASSERT_STREQ(out, form_cases[i].want, form_cases[i].line);
		ASSERT_STREQ(err, "", form_cases[i].line);
		/* An entry line counts once, however many names it holds. */
		ASSERT_EQ(lines,
			  strchr(out, '=') || strchr(out, '*') ||
				  strstr(out, "ip:"),
			  form_cases[i].line);
	}
}

static const struct {
	const char *line, *err;
} form_errors[] = {
	{ "ex!ample.com", "bad character \"!\" in name: \"ex!ample.com\"" },
	{ "*.", "empty name: \"\"" },
	{ "*.a..com", "empty label in name: \"a..com\"" },
	{ "**.example.com",
	  "a wildcard is only \"*.\" before a name: \"**.example.com\"" },
	{ "ads.*.example.com",
	  "a wildcard is only \"*.\" before a name: \"ads.*.example.com\"" },
	{ "||example.com", "adblock rule without its closing \"^\": "
			   "\"||example.com\"" },
	{ "||example.com^$third-party",
	  "adblock rule with options after \"^\": only ||name^ is read: "
	  "\"||example.com^$third-party\"" },
	{ "@@example.com",
	  "an allow entry is written @@||name^: \"@@example.com\"" },
	{ "@@||", "adblock rule without its closing \"^\": \"@@||\"" },
	{ "example.com##.banner",
	  "\"#\" right after a name (an adblock element-hiding rule?): "
	  "\"example.com\"" },
	{ "example.com other.com",
	  "unexpected text after the name: \"other.com\"" },
	{ "0.0.0.0 good.com b@d.com",
	  "bad character \"@\" in name: \"b@d.com\"" },
	{ "0.0.0.0 *.example.com",
	  "unexpected text after the address: \"*.example.com\"" },
	{ "10.0.0.0/8 example.com",
	  "unexpected text after the address: \"example.com\"" },
	{ "1.2.3.4 foo!", "unexpected text after the address: \"foo!\"" },
	{ "fe80::1%lo0", "not an IP address: \"fe80::1%lo0\"" },
	{ "1.2.3.999", "not an IP address: \"1.2.3.999\"" },
	{ "hello", "not an IP address: \"hello\"" },
};

BW_TEST(test_name_list_errors)
{
	char out[512], err[BW_ERRLEN];
	size_t i, lines;

	for (i = 0; i < sizeof(form_errors) / sizeof(form_errors[0]); i++) {
		ASSERT_EQ(parse_names(form_errors[i].line, true, out,
				      sizeof(out), err, &lines),
			  -EINVAL, form_errors[i].line);
		ASSERT_STREQ(err, form_errors[i].err, form_errors[i].line);
		/* A bad line adds nothing, not even its good names. */
		ASSERT_STREQ(out, "", form_errors[i].line);
		ASSERT_EQ(lines, 0, form_errors[i].line);
	}
}

/*
 * Without domains (a caller whose filter cannot match names): names are
 * still checked, then refused, never taken as an empty list; local entries
 * and IP lines are as they were.
 */
BW_TEST(test_name_list_refused)
{
	char out[512], err[BW_ERRLEN];
	size_t lines;

	ASSERT_EQ(parse_names("*.example.com", false, out, sizeof(out), err,
			      &lines),
		  -EINVAL, "subtree");
	ASSERT_STREQ(err, DNS_REFUSED ": \"*.example.com\"", "subtree msg");
	ASSERT_EQ(parse_names("0.0.0.0 localhost a.com b.com", false, out,
			      sizeof(out), err, &lines),
		  -EINVAL, "hosts");
	ASSERT_STREQ(err, DNS_REFUSED ": \"a.com\"", "hosts msg");
	ASSERT_STREQ(out, "", "nothing kept");
	ASSERT_EQ(parse_names("ex!.com", false, out, sizeof(out), err, &lines),
		  -EINVAL, "bad name");
	ASSERT_STREQ(err, "bad character \"!\" in name: \"ex!.com\"",
		     "a bad name says why first");
	ASSERT_OK(parse_names("127.0.0.1 localhost", false, out, sizeof(out),
			      err, &lines),
		  "local only");
	ASSERT_STREQ(out, "+1", "local only: skipped");
	ASSERT_OK(parse_names("1.2.3.4", false, out, sizeof(out), err, &lines),
		  "address");
	ASSERT_STREQ(out, "ip:1", "address kept");
}

/* A mixed file: addresses and names side by side, duplicates removed. */
BW_TEST(test_name_list_finish)
{
	static const char *const lines[] = {
		"1.2.3.4",	     "example.com",    "EXAMPLE.com.",
		"*.example.com",     "||example.com^", "@@||example.com^",
		"0.0.0.0 a.example", "a.example",      "2001:db8::1",
		"b.example",	     "*.b.example",    "@@||b.example^",
	};
	struct bw_list_opts opts = { .domains = true };
	struct bw_domain_counts c;
	char err[BW_ERRLEN];
	struct bw_list l;
	size_t i;

	bw_list_init(&l);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ASSERT_OK(bw_list_parse_line(&l, lines[i], &opts, err,
					     sizeof(err)),
			  lines[i]);
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, 1, "v4");
	ASSERT_EQ(l.n6, 1, "v6");
	ASSERT_EQ(l.ndom, 7, "names");
	ASSERT_EQ(l.duplicates, 3, "duplicates");
	bw_domains_count(&l, &c);
	ASSERT_EQ(c.exact, 3, "exact");
	ASSERT_EQ(c.subtree, 2, "subtree");
	ASSERT_EQ(c.allow, 2, "allow");
	/* Sorted: a name's exact entry, then its subtree, then its allow. */
	ASSERT_EQ(l.dom[0].flags, 0, "a.example exact");
	ASSERT_EQ(l.dom[1].flags, 0, "b.example exact");
	ASSERT_EQ(l.dom[2].flags, BW_DOM_SUBTREE, "b.example subtree");
	ASSERT_EQ(l.dom[3].flags, BW_DOM_SUBTREE | BW_DOM_ALLOW, "allow");
	/* --subdomains: each exact entry meets its subtree twin */
	bw_domains_subtree(&l);
	bw_list_finish(&l);
	bw_domains_count(&l, &c);
	ASSERT_EQ(c.exact, 0, "subdomains: exact");
	ASSERT_EQ(c.subtree, 3, "subdomains: subtree");
	ASSERT_EQ(c.allow, 2, "subdomains: allow");
	ASSERT_EQ(l.duplicates, 5, "subdomains: duplicates");
	bw_list_free(&l);
}

/* ---- the real domain lists ---- */

/*
 * exact/subtree after de-duplication; lines: entry lines; local: hosts
 * entries skipped. The headers' counts: StevenBlack "Number of unique
 * domains: 93,811", hagezi "# Domains: 12305", blocklistproject
 * "# Entries: 1,904".
 */
static const struct {
	const char *rel;
	size_t exact, lines, local, dups;
} domain_lists[] = {
	{ "domains/stevenblack/hosts", 93811, 93811, 14, 0 },
	{ "domains/hagezi/personal.txt", 12305, 12305, 0, 0 },
	{ "domains/blocklistproject/ransomware-nl.txt", 1904, 1904, 0, 0 },
};

BW_TEST(test_name_real_lists)
{
	struct bw_list_opts opts = { .domains = true };
	const char *dir = bw_test_data_dir();
	struct bw_domain_counts c;
	struct bw_list l;
	char path[512];
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < sizeof(domain_lists) / sizeof(domain_lists[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, domain_lists[i].rel);
		bw_list_init(&l);
		if (ASSERT_OK(bw_list_load(&l, path, &opts),
			      domain_lists[i].rel)) {
			bw_list_finish(&l);
			bw_domains_count(&l, &c);
			ASSERT_EQ(c.exact, domain_lists[i].exact,
				  domain_lists[i].rel);
			ASSERT_EQ(c.subtree + c.allow, 0, domain_lists[i].rel);
			ASSERT_EQ(l.lines, domain_lists[i].lines,
				  domain_lists[i].rel);
			ASSERT_EQ(l.local, domain_lists[i].local,
				  domain_lists[i].rel);
			ASSERT_EQ(l.duplicates, domain_lists[i].dups,
				  domain_lists[i].rel);
			ASSERT_EQ(l.skipped + l.n4 + l.n6, 0,
				  domain_lists[i].rel);
		}
		bw_list_free(&l);
	}
}

/* ---- the wire format ---- */

BW_TEST(test_name_wire)
{
	static const __u8 ptr[] = { 3, 'w', 'w', 'w', 0xc0, 12 };
	static const __u8 noroot[] = { 3, 'c', 'o', 'm' };
	static const __u8 mixed[] = { 3, 'A', 'd', 'S', 3, 'C', 'o', 'm', 0 };
	__u8 wire[BW_WIRE_MAX + 8];
	char out[BW_NAME_MAX + 1];
	size_t w;
	int n;

	w = bw_name_to_wire("ads.example.com", 15, wire);
	ASSERT_EQ(w, 17, "wire length");
	ASSERT_OK(memcmp(wire, "\3ads\7example\3com", 17), "wire bytes");
	n = bw_name_from_wire(wire, w, out);
	ASSERT_EQ(n, 15, "back");
	ASSERT_OK(memcmp(out, "ads.example.com", 15), "back bytes");
	ASSERT_EQ(bw_name_from_wire(mixed, sizeof(mixed), out), 7, "mixed");
	ASSERT_OK(memcmp(out, "ads.com", 7), "folded");
	ASSERT_EQ(bw_name_from_wire((const __u8 *)"", 1, out), 0, "root");
	ASSERT_EQ(bw_name_from_wire(ptr, sizeof(ptr), out), -EINVAL, "ptr");
	ASSERT_EQ(bw_name_from_wire(noroot, sizeof(noroot), out), -EINVAL,
		  "no root");
	/* 128 one-byte labels: 257 bytes of wire, past the 255 allowed */
	for (w = 0; w < 256; w += 2) {
		wire[w] = 1;
		wire[w + 1] = 'a';
	}
	wire[256] = 0;
	ASSERT_EQ(bw_name_from_wire(wire, 257, out), -EINVAL, "128 labels");
	wire[254] = 0; /* 127 labels: 255 bytes */
	ASSERT_EQ(bw_name_from_wire(wire, 255, out), 253, "127 labels");
}

/* ---- the name hash ---- */

/*
 * bw_name_label_hash() as its comment in bw_hash.h defines it, read a
 * byte at a time: the check that the definition is the one written down.
 */
static __u64 label_hash_ref(const char *p, size_t len)
{
	__u64 a = BW_NAME_LABEL_SALT ^ len, chunk;
	size_t i, j;

	for (i = 0; i < len; i += 8) {
		chunk = 0;
		for (j = 0; j < 8 && i + j < len; j++) {
			unsigned char c = (unsigned char)p[i + j];

			if (c >= 'A' && c <= 'Z')
				c += 'a' - 'A';
			chunk |= (__u64)c << (8 * j);
		}
		a = (a ^ chunk) * BW_NAME_MUL;
		a ^= a >> 29;
	}
	return a;
}

BW_TEST(test_name_hash_vectors)
{
	__u64 keys[BW_NAME_LABELS_MAX + 1], wkeys[BW_NAME_LABELS_MAX + 1];
	char folded[BW_NAME_MAX], err[BW_ERRLEN];
	bool l63 = false, n253 = false, l127 = false;
	const struct bw_name_vector *v;
	__u8 wire[BW_WIRE_MAX];
	unsigned int i, k;
	int n, len;

	for (i = 0; i < BW_NNAME_VECTORS; i++) {
		v = &bw_name_vectors[i];
		n = bw_name_hashes(v->name, strlen(v->name), v->seed, keys,
				   BW_NAME_LABELS_MAX);
		if (!ASSERT_EQ(n, v->nlabels, v->name))
			continue;
		for (k = 0; k < v->nlabels; k++)
			ASSERT_EQ_U64(keys[k], v->suffix[k], v->name);
		ASSERT_EQ_U64(bw_name_key_exact(keys[n - 1]), v->exact,
			      v->name);
		/* the wire-format twin, as a packet holds the name */
		len = bw_name_check(v->name, strlen(v->name), folded, err,
				    sizeof(err));
		if (!ASSERT_GE(len, 1, v->name))
			continue;
		n = bw_name_wire_hashes(
			wire, bw_name_to_wire(folded, (size_t)len, wire),
			v->seed, wkeys, BW_NAME_LABELS_MAX);
		ASSERT_EQ(n, v->nlabels, v->name);
		ASSERT_OK(memcmp(keys, wkeys, sizeof(keys[0]) * v->nlabels),
			  v->name);
		l63 |= strspn(v->name,
			      "abcdefghijklmnopqrstuvwxyz0123456789") == 63;
		n253 |= len == BW_NAME_MAX;
		l127 |= v->nlabels == BW_NAME_LABELS_MAX;
	}
	ASSERT_TRUE(l63 && n253 && l127, "vectors cover 63, 253 and 127");
}

BW_TEST(test_name_label_hash_definition)
{
	char label[BW_NAME_LABEL_MAX];
	unsigned int i, len, j;

	srand(11);
	for (i = 0; i < 20000; i++) {
		len = 1 + (unsigned int)rand() % BW_NAME_LABEL_MAX;
		for (j = 0; j < len; j++)
			label[j] = (char)(' ' + rand() % 95);
		if (!ASSERT_EQ_U64(bw_name_label_hash((const __u8 *)label, len),
				   label_hash_ref(label, len), "label"))
			break;
	}
}

/* Keys of name, all suffixes, and its exact key in keys[n]. */
static int all_keys(const char *name, __u32 seed, __u64 *keys)
{
	int n = bw_name_hashes(name, strlen(name), seed, keys,
			       BW_NAME_LABELS_MAX);

	if (n > 0)
		keys[n] = bw_name_key_exact(keys[n - 1]);
	return n;
}

BW_TEST(test_name_hash_properties)
{
	__u64 a[BW_NAME_LABELS_MAX + 1], b[BW_NAME_LABELS_MAX + 1];
	int na, nb, i, j;

	/* Every suffix in one pass: a parent's keys are the child's first. */
	na = all_keys("example.com", 7, a);
	nb = all_keys("ads.example.com", 7, b);
	ASSERT_EQ(na, 2, "example.com");
	ASSERT_EQ(nb, 3, "ads.example.com");
	ASSERT_OK(memcmp(a, b, 2 * sizeof(a[0])), "shared suffixes");
	/* An exact entry is never a key its children test. */
	for (i = 0; i < nb; i++)
		ASSERT_NEQ(b[i], a[na], "exact vs a child's suffix");
	ASSERT_NEQ(a[na], a[na - 1], "exact vs its own subtree");
	/* Label boundaries: bad.com / badexample.com share no key. */
	na = all_keys("ad.com", 7, a);
	nb = all_keys("bad.com", 7, b);
	ASSERT_NEQ(a[1], b[1], "ad.com vs bad.com");
	na = all_keys("example.com", 7, a);
	nb = all_keys("badexample.com", 7, b);
	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++)
			ASSERT_NEQ(a[i], b[j], "badexample.com");
	/* Case and the trailing dot change nothing; the seed changes all. */
	na = all_keys("WWW.Example.COM.", 7, a);
	nb = all_keys("www.example.com", 7, b);
	ASSERT_OK(memcmp(a, b, (size_t)(na + 1) * sizeof(a[0])), "case");
	nb = all_keys("www.example.com", 8, b);
	for (i = 0; i <= na; i++)
		ASSERT_NEQ(a[i], b[i], "seed");
	ASSERT_EQ(all_keys("a..com", 7, a), -EINVAL, "empty label");
	ASSERT_EQ(bw_name_hashes("a.b.c", 5, 7, a, 2), -E2BIG, "max");
}
