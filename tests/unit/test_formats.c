// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The list formats told from a file's content (user/lists/list_format.c,
 * rpz.c, srvconf.c, ipset.c, nftset.c): each one's entries and what it
 * counts and says, its bad lines as file:line: reason, and a line of
 * another format in a file. The real files and query --why are in
 * test_formats_real.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "test_formats.h"

static char dir[64];

const char *bw_fmt_test_file(const char *name, const char *text)
{
	static char path[160];
	FILE *f;

	if (!dir[0]) {
		strcpy(dir, "/tmp/bwtest-fmt-XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

__attribute__((destructor)) static void fmt_cleanup(void)
{
	char path[160];
	static const char *const names[] = { "f",	    "big",
					     "why.rpz",	    "why.dnsmasq",
					     "why.unbound", "why.nft",
					     NULL };
	int i;

	for (i = 0; dir[0] && names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	if (dir[0])
		rmdir(dir);
}

int bw_fmt_test_load(const char *path, bool skip, struct bw_list *l,
		     char **msgs)
{
	struct bw_list_opts opts = { .skip_invalid = skip, .domains = true };
	struct bw_capture cap;
	int ret;

	bw_capture_start(&cap);
	ret = bw_list_load(l, path, &opts);
	*msgs = bw_capture_end(&cap);
	return ret;
}

const char *bw_fmt_test_dump(const struct bw_list *l)
{
	static char out[2048];
	struct bw_prefix p;
	char buf[64];
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < l->n4; i++) {
		p = (struct bw_prefix){ .family = BW_V4,
					.lo = bw_v4key_addr(l->v4[i]),
					.plen = (__u8)bw_v4key_plen(l->v4[i]) };
		n += snprintf(out + n, sizeof(out) - n, "%s%s", n ? " " : "",
			      bw_prefix_str(&p, buf, sizeof(buf)));
	}
	for (i = 0; i < l->n6; i++) {
		p = (struct bw_prefix){ .family = BW_V6,
					.hi = l->v6[i].hi,
					.lo = l->v6[i].lo,
					.plen = (__u8)l->v6[i].plen };
		n += snprintf(out + n, sizeof(out) - n, "%s%s", n ? " " : "",
			      bw_prefix_str(&p, buf, sizeof(buf)));
	}
	for (i = 0; i < l->ndom && n < sizeof(out); i++)
		n += snprintf(
			out + n, sizeof(out) - n, "%s%s%s%.*s", n ? " " : "",
			l->dom[i].flags & BW_DOM_ALLOW ? "+" : "",
			l->dom[i].flags & BW_DOM_SUBTREE ? "*." : "",
			(int)l->dom[i].len, bw_domain_name(l, &l->dom[i]));
	return out;
}

/* Loads text as file "f": the entries, the messages, the result. */
static int load_text(const char *text, bool skip, struct bw_list *l,
		     char **msgs)
{
	const char *path = bw_fmt_test_file("f", text);

	bw_list_init(l);
	if (!path) {
		*msgs = strdup("(no file)");
		return -EIO;
	}
	return bw_fmt_test_load(path, skip, l, msgs);
}

/* One bad line: the load fails, saying "f:LINE: reason". */
struct bad_case {
	const char *text;
	const char *msg; /* after the directory: "f:2: ..." */
};

static void check_bad(const struct bad_case *c, size_t n)
{
	struct bw_list l;
	char *msgs, want[512];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%s/%s", dir, c[i].msg);
		ASSERT_EQ(load_text(c[i].text, false, &l, &msgs), -EINVAL,
			  c[i].msg);
		ASSERT_STRSTR(msgs, want, c[i].msg);
		free(msgs);
		bw_list_free(&l);
	}
}

static const char rpz_zone[] =
	"$TTL 300\n"
	"$ORIGIN rpz.example.org.\n"
	"@ IN SOA ns.example.org. admin.example.org. (\n"
	"      1 3600 600 86400 60 )\n"
	"  IN NS localhost.\n"
	"; a comment\n"
	"ads.example.com CNAME .          ; relative: the listed name\n"
	"*.track.example.net 60 IN CNAME .\n"
	"ABS.example.com.rpz.example.org. CNAME .\n"
	"good.example.com CNAME rpz-passthru.\n"
	"nodata.example.com CNAME *.\n"
	"local.example.com A 10.0.0.1\n"
	"  AAAA ::1\n"
	"txt.example.com TXT \"blocked; really\"\n"
	"walled.example.com CNAME garden.example.net.\n"
	"tcp.example.com CNAME rpz-tcp-only.\n"
	"drop.example.com IN 60 CNAME rpz-drop.\n";

BW_TEST(test_formats_rpz)
{
	struct bw_list l;
	char *msgs;

	ASSERT_OK(load_text(rpz_zone, false, &l, &msgs), "load");
	ASSERT_STREQ(
		bw_fmt_test_dump(&l),
		"ads.example.com *.track.example.net abs.example.com +good.example.com nodata.example.com local.example.com local.example.com txt.example.com walled.example.com drop.example.com",
		"entries: origin cut, passthru an allow entry, local data blocked");
	ASSERT_EQ(l.lines, 10, "lines with entries");
	ASSERT_STRSTR(
		msgs,
		"f: note: read as an RPZ zone; its actions are not kept: a listed name gets bloomwall's --dns-action; 1 NODATA (CNAME *.) and 4 local-data records blocked the same way; 1 rpz-passthru. allow entry; 1 rpz-tcp-only. records ignored; 3 $TTL, SOA and NS lines skipped",
		"the note says the action is bloomwall's, and the counts");
	free(msgs);
	bw_list_free(&l);

	/* No $ORIGIN (hagezi's zones): absolute names as written. */
	ASSERT_OK(
		load_text(
			"$TTL 3600\n@ SOA localhost. root.localhost. 1 2 3 4 5\n"
			"  NS  localhost.\nabs.example.com. CNAME .\n",
			false, &l, &msgs),
		"no origin");
	ASSERT_STREQ(bw_fmt_test_dump(&l), "abs.example.com", "as written");
	free(msgs);
	bw_list_free(&l);

	/* URLhaus' style: CRLF, a comment after each record. */
	ASSERT_OK(load_text("$TTL 30\r\n@ SOA rpz.urlhaus.abuse.ch. "
			    "hostmaster.urlhaus.abuse.ch. 2109201437 300 1800 "
			    "604800 30\r\n NS localhost.\r\n;\r\n"
			    "0-0-0.ml CNAME . ; Malware download, see "
			    "https://urlhaus.abuse.ch/host/0-0-0.ml/\r\n",
			    false, &l, &msgs),
		  "urlhaus");
	ASSERT_STREQ(bw_fmt_test_dump(&l), "0-0-0.ml", "CRLF and comments");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_formats_rpz_errors)
{
	static const struct bad_case c[] = {
		{ "$ORIGIN rpz.example.\nx.example.com. CNAME .\n",
		  "f:2: a name outside the zone's $ORIGIN: \"x.example.com.\"" },
		{ "$ORIGIN rpz.example.\nrpz.example. CNAME .\n",
		  "f:2: a policy for the zone's own apex" },
		{ "$ORIGIN rpz.example.\n@ CNAME .\n",
		  "f:2: a policy for the zone's own apex: \"@\"" },
		{ "$TTL 1\n32.1.0.0.10.rpz-ip CNAME .\n",
		  "f:2: RPZ triggers on addresses or name servers are not read" },
		{ "$TTL 1\nns.example.rpz-nsdname CNAME .\n",
		  "f:2: RPZ triggers on addresses" },
		{ "$TTL 1\nfoo.example BOGUS .\n",
		  "f:2: not an RPZ record (name [TTL] [class] type data): \"foo.example BOGUS .\"" },
		{ "$TTL 1\nfoo.example CNAME\n",
		  "f:2: a record without its data: \"CNAME\"" },
		{ "$INCLUDE other.zone\n", "f:1: $INCLUDE is not followed" },
		{ "$ORIGIN rpz.example\n",
		  "f:1: $ORIGIN takes an absolute name" },
		{ "$FOO 1\n", "f:1: unknown zone file directive" },
		{ "$TTL 1\n  A 10.0.0.1\n",
		  "f:2: a record with no owner name above it" },
		{ "$TTL 1\nbad_name!.example CNAME .\n",
		  "f:2: bad character \"!\" in name" },
		{ "$TTL 1\nok.example CNAME .\naddress=/x.example/#\n",
		  "f:3: a dnsmasq line in a file read as RPZ lines (since line 1): a list file is one format: \"address=/x.example/#\"" },
	};

	check_bad(c, sizeof(c) / sizeof(c[0]));
}

BW_TEST(test_formats_dnsmasq)
{
	struct bw_list l;
	char *msgs;

	ASSERT_OK(load_text("# comment\n"
			    "address=/a.example/#\n"
			    "address=/b.example/C.example/0.0.0.0\r\n"
			    "address=/d.example/::\n"
			    "address=/e.example/192.0.2.1\n"
			    "address=/f.example/\n"
			    "local=/g.example/\n"
			    "server=/h.example/1.1.1.1\n"
			    "server=/i.example/\n"
			    "  address=/*.j.example/127.0.0.1\n",
			    false, &l, &msgs),
		  "load");
	ASSERT_STREQ(
		bw_fmt_test_dump(&l),
		"*.a.example *.b.example *.c.example *.d.example *.e.example *.f.example *.g.example *.i.example *.j.example",
		"each name with its subtree; server= to a server is no block");
	ASSERT_EQ(l.lines, 8, "lines with entries");
	ASSERT_STRSTR(
		msgs,
		"f: note: read as dnsmasq lines: each name blocked with its subtree, with bloomwall's --dns-action; 1 answered with another address (blocked the same way), 1 server= lines forwarding elsewhere not read as blocks",
		"note");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_formats_dnsmasq_errors)
{
	static const struct bad_case c[] = {
		{ "address=/#/0.0.0.0\n",
		  "f:1: \"#\" as the name stands for every name: not a blocklist entry" },
		{ "address=/a.example/#\nconf-file=/etc/x\n",
		  "f:2: a dnsmasq option other than address=, local= and server=: \"conf-file=/etc/x\"" },
		{ "address=/a.example/#\ncache-size=/1\n",
		  "f:2: a dnsmasq option other than address=, local= and server=" },
		{ "address=/a.example\n",
		  "f:1: no closing \"/\" after the name" },
		{ "address=//#\n", "f:1: no name between the slashes" },
		{ "address=/a.example/not-an-ip\n",
		  "f:1: not an address to answer with: \"not-an-ip\"" },
		{ "address=/a.example/#\naddress=/b..example/#\n",
		  "f:2: empty label in name" },
		{ "address=/a.example/#\n1.2.3.4\n",
		  "f:2: not a dnsmasq blocklist line" },
	};

	check_bad(c, sizeof(c) / sizeof(c[0]));
}

BW_TEST(test_formats_unbound)
{
	struct bw_list l;
	char *msgs;

	ASSERT_OK(load_text("# hagezi style\n"
			    "server:\n"
			    "local-zone: \"a.example.\" always_null\n"
			    "local-zone: \"b.example.\" always_nxdomain\n"
			    "local-zone: \"c.example.\" always_refuse\n"
			    "local-zone: d.example. static   # a comment\n"
			    "local-zone: \"ok.a.example.\" transparent\n"
			    "local-zone: \"e.example.\" nodefault\n"
			    "local-data: \"d.example. A 10.0.0.1\"\n"
			    "\tlocal-zone: \"f.example\" deny\n",
			    false, &l, &msgs),
		  "load");
	ASSERT_STREQ(
		bw_fmt_test_dump(&l),
		"*.a.example *.b.example *.c.example *.d.example +*.ok.a.example *.f.example",
		"zones with their subtree; transparent an allow entry");
	ASSERT_STRSTR(
		msgs,
		"f: note: read as Unbound local-zone lines: each zone blocked with its subtree, with bloomwall's --dns-action; 1 transparent zones taken as allow entries, 2 local-data and nodefault lines not read",
		"note");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_formats_unbound_errors)
{
	static const struct bad_case c[] = {
		{ "server:\nlocal-zone: \"a.example.\" bogus\n",
		  "f:2: unknown local-zone type: \"bogus\"" },
		{ "server:\nlocal-zone: \"a.example.\"\n",
		  "f:2: local-zone takes a name and a type" },
		{ "server:\ninclude: \"/etc/unbound/more.conf\"\n",
		  "f:2: not an Unbound blocklist line" },
		{ "server:\nlocal-zone: \"a b.example.\" static\n",
		  "f:2: bad character \" \" in name" },
	};

	check_bad(c, sizeof(c) / sizeof(c[0]));
}

BW_TEST(test_formats_ipset)
{
	struct bw_list l;
	char *msgs;

	ASSERT_OK(
		load_text(
			"create bl hash:net family inet hashsize 1024 maxelem 65536\n"
			"add bl 10.0.0.0/8\n"
			"add bl 192.0.2.1 timeout 300 comment \"a b\"\n"
			"add bl 198.51.100.1-198.51.100.2\n"
			"create bl6 hash:ip family inet6 netmask 64\n"
			"add bl6 2001:db8::1 timeout 0\n"
			"create m hash:ip family inet netmask 24\n"
			"add m 203.0.113.77\n",
			false, &l, &msgs),
		"load");
	ASSERT_STREQ(
		bw_fmt_test_dump(&l),
		"10.0.0.0/8 192.0.2.1 198.51.100.1 198.51.100.2 203.0.113.0/24 2001:db8::/64",
		"entries; a netmask makes each its /N");
	ASSERT_EQ(l.lines, 5, "add lines");
	ASSERT_STRSTR(
		msgs,
		"f: note: read as an ipset save file: 3 sets; 2 add lines' options (timeout, comment...) ignored",
		"options counted");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_formats_ipset_errors)
{
	static const struct bad_case c[] = {
		{ "create s hash:net\nadd s 10.0.0.0/8 nomatch\n",
		  "f:2: nomatch (an exception inside a listed prefix) cannot be kept in a block list: put the addresses in an --allow file" },
		{ "create s hash:ip,port\n",
		  "f:1: a set type that holds more than addresses" },
		{ "create s hash:ip\nadd t 10.0.0.1\n",
		  "f:2: an add to a set not created above: \"t\"" },
		{ "create s hash:ip\nadd s 2001:db8::1\n",
		  "f:2: an IPv6 entry in a family inet set: \"2001:db8::1\"" },
		{ "create s hash:ip family inet6\nadd s 10.0.0.1\n",
		  "f:2: an IPv4 entry in a family inet6 set" },
		{ "create s hash:ip\nadd s 10.0.0.1 bogus 1\n",
		  "f:2: unknown add option: \"bogus\"" },
		{ "create s hash:ip\nadd s 10.0.0.1 timeout\n",
		  "f:2: option without value" },
		{ "create s hash:ip\nadd s example.com\n",
		  "f:2: a name where an address is expected: \"example.com\"" },
		{ "create s hash:ip\nadd s 10.0.0.300\n",
		  "f:2: not an IP address: \"10.0.0.300\"" },
		{ "create s hash:ip\ncreate s hash:net\n",
		  "f:2: set created twice" },
		{ "create s hash:ip\nflush s\n",
		  "f:2: not an ipset save line (create or add)" },
	};

	check_bad(c, sizeof(c) / sizeof(c[0]));
}

static const char nft_file[] =
	"#!/usr/sbin/nft -f\n"
	"table inet filter {\n"
	"\tset blocklist {\n"
	"\t\ttype ipv4_addr\n"
	"\t\tflags interval\n"
	"\t\telements = { 10.0.0.1, 10.1.0.0/16,\n"
	"\t\t\t     10.2.0.1-10.2.0.3 timeout 1h expires 59m,\n"
	"\t\t\t     203.0.113.7 comment \"x, y\" }\n"
	"\t}\n"
	"\tset six { type ipv6_addr; flags interval; elements = { 2001:db8::/32 } }\n"
	"\tchain input {\n"
	"\t\ttype filter hook input priority 0; policy accept;\n"
	"\t\tip saddr { 192.0.2.99 } drop\n"
	"\t}\n"
	"}\n"
	"add element inet filter blocklist { 192.0.2.1, 198.51.100.0/24 }\n";

BW_TEST(test_formats_nft)
{
	struct bw_list l;
	char *msgs;

	ASSERT_OK(load_text(nft_file, false, &l, &msgs), "load");
	ASSERT_STREQ(
		bw_fmt_test_dump(&l),
		"10.0.0.1 10.1.0.0/16 10.2.0.1 10.2.0.2/31 203.0.113.7 192.0.2.1 198.51.100.0/24 2001:db8::/32",
		"elements across lines; a rule's anonymous set is no entry");
	ASSERT_EQ(l.lines, 5, "lines with elements");
	ASSERT_STRSTR(
		msgs,
		"f: note: read as nftables sets: 2 sets; 3 element options (timeout, comment...) ignored",
		"options counted");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_formats_nft_errors)
{
	static const struct bad_case c[] = {
		{ "table inet t {\n\tset s {\n\t\ttype inet_service\n\t\telements = { 22, 80 }\n\t}\n}\n",
		  "f:4: elements of a set that holds no addresses (or of a map)" },
		{ "table inet t {\n\tmap m {\n\t\ttype ipv4_addr : verdict\n\t\telements = { 10.0.0.1 : drop }\n\t}\n}\n",
		  "f:4: elements of a set that holds no addresses" },
		{ "table inet t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements = { 2001:db8::1 }\n\t}\n}\n",
		  "f:4: an element of the other family than the set's type: \"2001:db8::1\"" },
		{ "table inet t {\n\tset s {\n\t\ttype ipv4_addr\n\t\telements =\n{ 10.0.0.1 }\n\t}\n}\n",
		  "f:5: a \"{\" that opens no statement on its line" },
		{ "table inet t {\n}\n}\n",
		  "f:3: a \"}\" that closes nothing" },
		{ "table inet t {\n\tset s {\n\t\ttype ipv4_addr\n",
		  "f:3: 2 blocks still open at the end of the file" },
		{ "add element inet t s { 10.0.0.1 foo }\n",
		  "f:1: unexpected word after an element" },
		{ "add element inet t s { 10.0.0.1, not-an-ip }\n",
		  "f:1: not an IP address range: \"not-an-ip\"" },
	};

	check_bad(c, sizeof(c) / sizeof(c[0]));
}

/* A file is one format: a line of another is said as such. */
BW_TEST(test_formats_mixed)
{
	static const struct bad_case c[] = {
		{ "# plain\n10.0.0.1\nads.example.com\naddress=/x.example/#\n",
		  "f:4: a dnsmasq line in a file read as plain lines (since line 2): a list file is one format" },
		{ "10.0.0.1\n$TTL 300\n",
		  "f:2: an RPZ line in a file read as plain lines (since line 1)" },
		{ "local-zone: \"a.example.\" static\nads.example CNAME .\n",
		  "f:2: an RPZ line in a file read as Unbound lines (since line 1)" },
		{ "create s hash:ip\nadd element inet t s { 10.0.0.1 }\n",
		  "f:2: an nftables line in a file read as ipset lines" },
	};
	struct bw_list l;
	char *msgs;

	check_bad(c, sizeof(c) / sizeof(c[0]));
	/* Under --skip-invalid the line is skipped and counted. */
	ASSERT_OK(
		load_text(
			"address=/a.example/#\n10.0.0.1\naddress=/b.example/#\n",
			true, &l, &msgs),
		"skip");
	ASSERT_EQ(l.skipped, 1, "one line skipped");
	ASSERT_STREQ(bw_fmt_test_dump(&l), "*.a.example *.b.example",
		     "the others read");
	ASSERT_STRSTR(msgs, "f:2: not a dnsmasq blocklist line", "said");
	ASSERT_STRSTR(msgs, "(skipped)", "as skipped");
	free(msgs);
	bw_list_free(&l);
	/* The plain formats still decide as before: hosts, adblock. */
	ASSERT_OK(load_text("! adblock\n||ads.example^\n0.0.0.0 t.example\n",
			    false, &l, &msgs),
		  "plain");
	ASSERT_STREQ(bw_fmt_test_dump(&l), "*.ads.example t.example", "plain");
	ASSERT_TRUE(!strstr(msgs, "note:"), "no note for a plain list");
	free(msgs);
	bw_list_free(&l);
	/* Hosts lines whose names look like record types are no zone. */
	ASSERT_OK(load_text("fe80::1%lo0 a\n10.0.0.1 ns\n", false, &l, &msgs),
		  "hosts");
	ASSERT_STREQ(bw_fmt_test_dump(&l), "a ns", "hosts names");
	free(msgs);
	bw_list_free(&l);
}
