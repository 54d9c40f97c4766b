// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * List parsing (user/lists/list_parse.c, list_load.c): every line form and every error message, file
 * and standard input loading, de-duplication, the radix sort, and the real
 * lists of tests/data with their known entry counts.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bloomwall.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "lists/list_parse.h"
#include "test_helpers.h"
#include "unit.h"

/* ---- helpers shared with the other unit test files (unit.h) ---- */

int bw_test_load_data(struct bw_list *l, const char *rel)
{
	struct bw_list_opts opts = {};
	const char *dir = bw_test_data_dir();
	char path[512];

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return bw_list_load(l, path, &opts);
}

/* ---- line forms ---- */

enum { NONE = 0, MASK = 1, SKIP = 2 };

struct line_case {
	const char *line;
	int opts;
	const char *want;  /* entries, space-separated, via bw_prefix_str */
	const char *error; /* exact err text; NULL: must succeed silently */
};

#define DNS_REFUSED \
	"domain entries are read and checked, but only addresses are taken here"

static const struct line_case ok_cases[] = {
	/* A hosts file's local entries are no entries, and no error. */
	{ "127.0.0.1\tlocalhost", NONE, "", NULL },
	{ "1.2.3.4", NONE, "1.2.3.4", NULL },
	{ "  1.2.3.4\t ", NONE, "1.2.3.4", NULL },
	{ "\t1.2.3.4\r", NONE, "1.2.3.4", NULL },
	{ "1.2.3.4\r\n", NONE, "1.2.3.4", NULL },
	{ "1.2.3.4 # x", NONE, "1.2.3.4", NULL },
	{ "1.2.3.4#x", NONE, "1.2.3.4", NULL },
	{ "1.2.3.0/24 ; SBL123", NONE, "1.2.3.0/24", NULL },
	{ "31.220.1.233\t10", NONE, "31.220.1.233", NULL },
	{ "# comment 1.2.3.4", NONE, "", NULL },
	{ "; comment", NONE, "", NULL },
	{ "", NONE, "", NULL },
	{ "  \t ", NONE, "", NULL },
	{ "\r\n", NONE, "", NULL },
	{ "0.0.0.0", NONE, "0.0.0.0", NULL },
	{ "255.255.255.255", NONE, "255.255.255.255", NULL },
	{ "2001:db8::1", NONE, "2001:db8::1", NULL },
	{ "2001:DB8::1 # upper case", NONE, "2001:db8::1", NULL },
	{ "::", NONE, "::", NULL },
	/* IPv4-mapped: the IPv4 prefix (the note is asked for in opts) */
	{ "::ffff:1.2.3.4", NONE, "1.2.3.4", NULL },
	{ "::FFFF:1.2.3.4/128", NONE, "1.2.3.4", NULL },
	{ "::ffff:102:304", NONE, "1.2.3.4", NULL },
	{ "::ffff:10.0.0.0/104", NONE, "10.0.0.0/8", NULL },
	{ "::ffff:0.0.0.0/96", NONE, "0.0.0.0/0", NULL },
	{ "::ffff:1.2.3.0-::ffff:1.2.3.255", NONE, "1.2.3.0/24", NULL },
	/* not inside ::ffff:0:0/96: stays IPv6 */
	{ "::fffe:0:0/96", NONE, "::fffe:0:0/96", NULL },
	{ "::/64", NONE, "::/64", NULL },
	{ "0:0:0:1:0:ffff:102:304", NONE, "::1:0:ffff:102:304", NULL },
	{ "1.2.3.4/32", NONE, "1.2.3.4", NULL },
	{ "2001:db8::1/128", NONE, "2001:db8::1", NULL },
	{ "2001:db8::/32 ; SBL1", NONE, "2001:db8::/32", NULL },
	{ "2001:db8:1:2::/64", NONE, "2001:db8:1:2::/64", NULL },
	{ "2001:db8::/96", NONE, "2001:db8::/96", NULL },
	{ "0.0.0.0/0", NONE, "0.0.0.0/0", NULL },
	{ "::/0", NONE, "::/0", NULL },
	{ "10.0.0.0/8", NONE, "10.0.0.0/8", NULL },
	{ "1.2.3.0-1.2.3.255", NONE, "1.2.3.0/24", NULL },
	{ "1.2.3.1-1.2.3.6", NONE, "1.2.3.1 1.2.3.2/31 1.2.3.4/31 1.2.3.6",
	  NULL },
	{ "0.0.0.0-255.255.255.255", NONE, "0.0.0.0/0", NULL },
	{ "10.0.0.5-10.0.0.5", NONE, "10.0.0.5", NULL },
	{ "255.255.255.254-255.255.255.255", NONE, "255.255.255.254/31", NULL },
	{ "0.0.0.1-255.255.255.254", NONE,
	  "0.0.0.1 0.0.0.2/31 0.0.0.4/30 0.0.0.8/29 0.0.0.16/28 0.0.0.32/27 "
	  "0.0.0.64/26 0.0.0.128/25 0.0.1.0/24 0.0.2.0/23 0.0.4.0/22 "
	  "0.0.8.0/21 0.0.16.0/20 0.0.32.0/19 0.0.64.0/18 0.0.128.0/17 "
	  "0.1.0.0/16 0.2.0.0/15 0.4.0.0/14 0.8.0.0/13 0.16.0.0/12 "
	  "0.32.0.0/11 0.64.0.0/10 0.128.0.0/9 1.0.0.0/8 2.0.0.0/7 4.0.0.0/6 "
	  "8.0.0.0/5 16.0.0.0/4 32.0.0.0/3 64.0.0.0/2 128.0.0.0/2 "
	  "192.0.0.0/3 224.0.0.0/4 240.0.0.0/5 248.0.0.0/6 252.0.0.0/7 "
	  "254.0.0.0/8 255.0.0.0/9 255.128.0.0/10 255.192.0.0/11 "
	  "255.224.0.0/12 255.240.0.0/13 255.248.0.0/14 255.252.0.0/15 "
	  "255.254.0.0/16 255.255.0.0/17 255.255.128.0/18 255.255.192.0/19 "
	  "255.255.224.0/20 255.255.240.0/21 255.255.248.0/22 "
	  "255.255.252.0/23 255.255.254.0/24 255.255.255.0/25 "
	  "255.255.255.128/26 255.255.255.192/27 255.255.255.224/28 "
	  "255.255.255.240/29 255.255.255.248/30 255.255.255.252/31 "
	  "255.255.255.254",
	  NULL },
};

static const struct line_case bad_cases[] = {
	{ "1.2.3.999", NONE, "", "not an IP address: \"1.2.3.999\"" },
	{ "1.2.3", NONE, "", "not an IP address: \"1.2.3\"" },
	{ "1.2.3.4.5", NONE, "", "not an IP address: \"1.2.3.4.5\"" },
	{ "2001:db8:::1", NONE, "", "not an IP address: \"2001:db8:::1\"" },
	{ "hello", NONE, "", "not an IP address: \"hello\"" },
	{ "10.0.0.1/8", NONE, "",
	  "host bits set in \"10.0.0.1/8\" (did you mean 10.0.0.0/8?)" },
	{ "2001:db8::1/32", NONE, "",
	  "host bits set in \"2001:db8::1/32\" (did you mean 2001:db8::/32?)" },
	{ "10.0.0.0/33", NONE, "",
	  "bad prefix length (0-32): \"10.0.0.0/33\"" },
	{ "10.0.0.0/", NONE, "", "bad prefix length (0-32): \"10.0.0.0/\"" },
	{ "10.0.0.0/x", NONE, "", "bad prefix length (0-32): \"10.0.0.0/x\"" },
	{ "10.0.0.0/-8", NONE, "",
	  "bad prefix length (0-32): \"10.0.0.0/-8\"" },
	{ "10.0.0.0/0008", NONE, "",
	  "bad prefix length (0-32): \"10.0.0.0/0008\"" },
	{ "::/129", NONE, "", "bad prefix length (0-128): \"::/129\"" },
	{ "10.0.0.300/8", NONE, "", "not an IP prefix: \"10.0.0.300/8\"" },
	{ "1.2.3.4-1.2.3.0", NONE, "",
	  "range ends before it starts: \"1.2.3.4-1.2.3.0\"" },
	{ "1.2.3.4-", NONE, "", "not an IP address range: \"1.2.3.4-\"" },
	{ "2001:db8::1-2001:db8::5", NONE, "",
	  "IPv6 ranges are not supported: \"2001:db8::1-2001:db8::5\"" },
	/* Names are read and checked, then refused (tests/unit/test_names.c). */
	{ "example.com", NONE, "", DNS_REFUSED ": \"example.com\"" },
	{ "ads.example-cdn.co.uk # ads", NONE, "",
	  DNS_REFUSED ": \"ads.example-cdn.co.uk\"" },
	{ "*.example.com", NONE, "", DNS_REFUSED ": \"*.example.com\"" },
	{ "||example.com^", NONE, "", DNS_REFUSED ": \"||example.com^\"" },
	{ "0.0.0.0 example.com", NONE, "", DNS_REFUSED ": \"example.com\"" },
	{ "1.2.3.4 foo!", NONE, "",
	  "unexpected text after the address: \"foo!\"" },
	{ "1.2.3.4 10 x", NONE, "",
	  "unexpected text after the address: \"10 x\"" },
	{ "1.2.3.4,5.6.7.8", NONE, "",
	  "not an IP address: \"1.2.3.4,5.6.7.8\"" },
	{ "::ffff:10.0.0.1/104", NONE, "",
	  "host bits set in \"::ffff:10.0.0.1/104\" (did you mean 10.0.0.0/8?)" },
	{ "::ffff:1.2.3.4-2001:db8::1", NONE, "",
	  "IPv6 ranges are not supported: \"::ffff:1.2.3.4-2001:db8::1\"" },
	/* A bad line's bytes reach the terminal escaped, never raw. */
	{ "\x1b[31mred\x1b[0m", NONE, "",
	  "not an IP address: \"\\x1b[31mred\\x1b[0m\"" },
	{ "1.2.3.4 1\tb\r\nx\x7f", NONE, "",
	  "unexpected text after the address: \"1\\tb\\r\\nx\\x7f\"" },
	{ "1.2.3.4\x08\x08\x08\x08\x08\x08\x08", NONE, "",
	  "not an IP address: "
	  "\"1.2.3.4\\x08\\x08\\x08\\x08\\x08\\x08\\x08\"" },
	{ "ex\xc3\xa9mple.com", NONE, "",
	  "not ASCII: write IDN names in their xn-- form: "
	  "\"ex\\xc3\\xa9mple.com\"" },
	{ "\"1.2.3.4\"\\", NONE, "",
	  "not an IP address: \"\\\"1.2.3.4\\\"\\\\\"" },
	{ "a\x1f", NONE, "", "not an IP address: \"a\\x1f\"" },
	/* 17 escapes (68 characters) are cut whole at 64, then "..." */
	{ "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
	  "\x01\x01",
	  NONE, "",
	  "not an IP address: "
	  "\"\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01"
	  "\\x01\\x01\\x01\\x01...\"" },
};

/* Parses one line; *out gets the entries it pushed, space-separated. */
static int parse_one(const struct line_case *c, char *out, size_t outlen,
		     char *err)
{
	struct bw_list_opts opts = {
		.mask_host_bits = c->opts & MASK,
	};
	struct bw_prefix p = {};
	struct bw_list l;
	char buf[64];
	size_t i;
	int ret;

	bw_list_init(&l);
	ret = bw_list_parse_line(&l, c->line, &opts, err, BW_ERRLEN);
	out[0] = '\0';
	for (i = 0; i < l.n4 + l.n6; i++) {
		p.family = i < l.n4 ? BW_V4 : BW_V6;
		p.hi = i < l.n4 ? 0 : l.v6[i - l.n4].hi;
		p.lo = i < l.n4 ? bw_v4key_addr(l.v4[i]) : l.v6[i - l.n4].lo;
		p.plen =
			i < l.n4 ? bw_v4key_plen(l.v4[i]) : l.v6[i - l.n4].plen;
		snprintf(out + strlen(out), outlen - strlen(out), "%s%s",
			 i ? " " : "", bw_prefix_str(&p, buf, sizeof(buf)));
	}
	bw_list_free(&l);
	return ret;
}

BW_TEST(test_list_line_forms)
{
	char out[4096], err[BW_ERRLEN], name[128];
	size_t i;

	for (i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		snprintf(name, sizeof(name), "line \"%s\"", ok_cases[i].line);
		ASSERT_OK(parse_one(&ok_cases[i], out, sizeof(out), err), name);
		ASSERT_STREQ(out, ok_cases[i].want, name);
		ASSERT_STREQ(err, "", name);
	}
}

BW_TEST(test_list_line_errors)
{
	char out[4096], err[BW_ERRLEN], name[128];
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		snprintf(name, sizeof(name), "line \"%s\"", bad_cases[i].line);
		ASSERT_EQ(parse_one(&bad_cases[i], out, sizeof(out), err),
			  -EINVAL, name);
		ASSERT_STREQ(err, bad_cases[i].error, name);
		ASSERT_STREQ(out, "", name);
	}
}

BW_TEST(test_list_mask_host_bits)
{
	const struct line_case v4 = { "10.0.0.1/8", MASK, NULL, NULL };
	const struct line_case v6 = { "2001:db8::1/32", MASK, NULL, NULL };
	char out[256], err[BW_ERRLEN];

	ASSERT_OK(parse_one(&v4, out, sizeof(out), err), "v4 masked");
	ASSERT_STREQ(out, "10.0.0.0/8", "v4 masked entry");
	ASSERT_STREQ(err, "host bits set in \"10.0.0.1/8\", using 10.0.0.0/8",
		     "v4 warning");
	ASSERT_OK(parse_one(&v6, out, sizeof(out), err), "v6 masked");
	ASSERT_STREQ(out, "2001:db8::/32", "v6 masked entry");
	ASSERT_STREQ(err,
		     "host bits set in \"2001:db8::1/32\", using 2001:db8::/32",
		     "v6 warning");
}

/* Entry lines count in l->lines; comments and blanks do not. */
BW_TEST(test_list_line_counts)
{
	struct bw_list_opts opts = {};
	char err[BW_ERRLEN];
	struct bw_list l;

	bw_list_init(&l);
	bw_list_parse_line(&l, "# x", &opts, err, sizeof(err));
	bw_list_parse_line(&l, "", &opts, err, sizeof(err));
	bw_list_parse_line(&l, "1.2.3.4", &opts, err, sizeof(err));
	bw_list_parse_line(&l, "1.2.3.1-1.2.3.6", &opts, err, sizeof(err));
	bw_list_parse_line(&l, "::1", &opts, err, sizeof(err));
	bw_list_parse_line(&l, "bad", &opts, err, sizeof(err));
	ASSERT_EQ(l.lines, 3, "entry lines");
	ASSERT_EQ(l.n4, 5, "v4 entries (1 + range of 4)");
	ASSERT_EQ(l.n6, 1, "v6 entries");
	bw_list_free(&l);
	ASSERT_EQ(l.n4 + l.n6 + l.lines, 0, "free resets");
}

/* An error quotes at most 64 characters of a line, whatever its length. */
BW_TEST(test_list_long_line)
{
	struct bw_list_opts opts = {};
	char err[BW_ERRLEN];
	char want[BW_ERRLEN + 64];
	struct bw_list l;
	size_t n = 1 << 20;
	char *line;

	line = malloc(n + 1);
	if (!ASSERT_OK_PTR(line, "malloc"))
		return;
	memset(line, '1', n);
	line[n] = '\0';
	bw_list_init(&l);
	ASSERT_EQ(bw_list_parse_line(&l, line, &opts, err, sizeof(err)),
		  -EINVAL, "1 MiB of digits");
	/* The line's first 64 characters, quoted, and an ellipsis. */
	snprintf(want, sizeof(want), "not an IP address: \"%.64s...\"", line);
	ASSERT_STREQ(err, want, "quoted, cut with an ellipsis");
	ASSERT_LE(strlen(err), 100, "short message");
	memset(line, 'a', n);
	line[n / 2] = '.';
	ASSERT_EQ(bw_list_parse_line(&l, line, &opts, err, sizeof(err)),
		  -EINVAL, "1 MiB domain");
	snprintf(want, sizeof(want), "name longer than 253 bytes: \"%.64s...\"",
		 line);
	ASSERT_STREQ(err, want, "domain");
	ASSERT_EQ(l.n4 + l.n6, 0, "nothing pushed");
	bw_list_free(&l);
	free(line);
}

/* ---- files ---- */

static char tmpdir[64];

/* Writes text (len bytes) to tmpdir/name; returns the path (static). */
static const char *write_file(const char *name, const char *text, size_t len)
{
	static char path[128];
	FILE *f;

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/bwtest-list-XXXXXX");
		if (!mkdtemp(tmpdir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

static void remove_file(const char *path)
{
	unlink(path);
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

/* Loads text as file name; *msgs gets what was printed to stderr. */
static int load_text(const char *name, const char *text, size_t len, int o,
		     struct bw_list *l, char **msgs)
{
	struct bw_list_opts opts = {
		.mask_host_bits = o & MASK,
		.skip_invalid = o & SKIP,
	};
	struct bw_capture cap;
	const char *path;
	int ret;

	path = write_file(name, text, len);
	if (!path) {
		*msgs = strdup("cannot write temp file");
		return -EIO;
	}
	bw_capture_start(&cap);
	ret = bw_list_load(l, path, &opts);
	*msgs = bw_capture_end(&cap);
	remove_file(path);
	return ret;
}

#define LOAD(text, o, l, msgs) \
	load_text("list.txt", text, sizeof(text) - 1, o, l, msgs)

BW_TEST(test_list_load_forms)
{
	static const char text[] =
		"\xef\xbb\xbf# a list with every accepted form\r\n"
		"1.2.3.4\r\n"
		"\r\n"
		"  5.6.7.8   # trailing comment\n"
		"; semicolon comment\n"
		"9.9.9.0/24 ; SBL123\n"
		"31.220.1.233\t10\n"
		"2001:db8::1\n"
		"\t2001:db8::/32\t\n"
		"10.0.0.1-10.0.0.4\n"
		"1.2.3.4\n"
		"6.6.6.6"; /* no final newline */
	struct bw_list l;
	char *msgs;

	bw_list_init(&l);
	ASSERT_OK(LOAD(text, NONE, &l, &msgs), "load");
	ASSERT_STREQ(msgs, "", "no messages");
	ASSERT_EQ(l.lines, 9, "entry lines");
	ASSERT_EQ(l.n4, 9, "v4 before finish (a range of 3 prefixes)");
	ASSERT_EQ(l.n6, 2, "v6");
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, 8, "v4 after finish");
	ASSERT_EQ(l.duplicates, 1, "1.2.3.4 twice");
	ASSERT_EQ(l.skipped, 0, "skipped");
	bw_list_free(&l);
	free(msgs);
}

BW_TEST(test_list_load_bad_line)
{
	static const char text[] = "1.2.3.4\n# ok\n1.2.3.999\n5.6.7.8\n";
	char want[256], *msgs;
	struct bw_list l;

	bw_list_init(&l);
	ASSERT_EQ(load_text("bad.txt", text, sizeof(text) - 1, NONE, &l, &msgs),
		  -EINVAL, "bad line fails the load");
	snprintf(want, sizeof(want),
		 "/tmp/bwtest-list-XXXXXX/bad.txt:3: not an IP address: "
		 "\"1.2.3.999\"\n");
	/* the directory name is random: compare from "/bad.txt" on */
	ASSERT_STRSTR(msgs, strstr(want, "/bad.txt"), "message");
	ASSERT_EQ(strncmp(msgs, "/tmp/bwtest-list-", 17), 0, "path first");
	ASSERT_EQ(strchr(msgs, '\n') - msgs + 1, strlen(msgs), "one line");
	bw_list_free(&l);
	free(msgs);
}

BW_TEST(test_list_load_skip_invalid)
{
	static const char text[] = "1.2.3.4\n"
				   "example.com\n"
				   "10.0.0.1/8\n"
				   "5.6.7.8 junk!\n"
				   "5.6.7.8\n";
	struct bw_list l;
	char *msgs;

	bw_list_init(&l);
	ASSERT_OK(LOAD(text, SKIP, &l, &msgs), "skip_invalid loads");
	ASSERT_EQ(l.skipped, 3, "skipped lines");
	ASSERT_EQ(l.n4, 2, "good entries");
	ASSERT_EQ(l.lines, 2, "entry lines");
	ASSERT_STRSTR(msgs,
		      "list.txt:2: " DNS_REFUSED
		      ": \"example.com\" (skipped)\n",
		      "line 2");
	ASSERT_STRSTR(msgs,
		      "list.txt:3: host bits set in \"10.0.0.1/8\" (did "
		      "you mean 10.0.0.0/8?) (skipped)\n",
		      "line 3");
	ASSERT_STRSTR(msgs,
		      "list.txt:4: unexpected text after the address: "
		      "\"junk!\" (skipped)\n",
		      "line 4");
	bw_list_free(&l);
	free(msgs);
}

BW_TEST(test_list_load_mask_warning)
{
	static const char text[] = "10.0.0.1/8\n10.0.0.0/8\n";
	struct bw_list l;
	char *msgs;

	bw_list_init(&l);
	ASSERT_OK(LOAD(text, MASK, &l, &msgs), "masked load");
	ASSERT_STRSTR(msgs,
		      "list.txt:1: host bits set in \"10.0.0.1/8\", using "
		      "10.0.0.0/8\n",
		      "warning with file:line");
	ASSERT_FALSE(strstr(msgs, "list.txt:2"), "correct line is silent");
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, 1, "masked prefix is a duplicate");
	ASSERT_EQ(l.duplicates, 1, "duplicates");
	bw_list_free(&l);
	free(msgs);
}

BW_TEST(test_list_load_empty_and_binary)
{
	static const char nul[] = "1.2.3.4\n5.6\0.7.8\n";
	struct bw_list l;
	char *msgs;

	bw_list_init(&l);
	ASSERT_OK(load_text("empty.txt", "", 0, NONE, &l, &msgs), "empty");
	ASSERT_EQ(l.n4 + l.n6 + l.lines, 0, "no entries");
	ASSERT_STREQ(msgs, "", "empty is silent");
	free(msgs);
	ASSERT_OK(LOAD("# only comments\n\n;\n", NONE, &l, &msgs), "comments");
	ASSERT_EQ(l.n4 + l.n6, 0, "no entries");
	free(msgs);
	ASSERT_EQ(LOAD(nul, NONE, &l, &msgs), -EINVAL, "NUL byte");
	ASSERT_STRSTR(msgs, "list.txt:2: NUL byte: not a text list", "msg");
	free(msgs);
	bw_list_free(&l);
}

BW_TEST(test_list_load_long_lines)
{
	size_t n = BW_LINE_MAX, off;
	struct bw_list l;
	char *text, *msgs;

	/* a comment line of exactly BW_LINE_MAX bytes, then an entry */
	text = malloc(n + 64);
	if (!ASSERT_OK_PTR(text, "malloc"))
		return;
	text[0] = '#';
	memset(text + 1, 'x', n - 1);
	off = n;
	off += (size_t)sprintf(text + off, "\n1.2.3.4\n");
	bw_list_init(&l);
	ASSERT_OK(load_text("long.txt", text, off, NONE, &l, &msgs), "load");
	ASSERT_EQ(l.n4, 1, "entry after the longest line");
	ASSERT_STREQ(msgs, "", "silent");
	free(msgs);
	/* one byte more, even in a comment: no list has such lines */
	text[0] = ' ';
	text[n] = '#';
	off = n + 1;
	off += (size_t)sprintf(text + off, "\n5.6.7.8\n");
	ASSERT_EQ(load_text("long.txt", text, off, NONE, &l, &msgs), -EINVAL,
		  "one byte over");
	ASSERT_STRSTR(msgs,
		      "/long.txt:1: line too long (more than 4096 bytes)\n",
		      "msg");
	ASSERT_EQ(strchr(msgs, '\n') - msgs + 1, strlen(msgs), "one line");
	free(msgs);
	/* the same unterminated, at the end of the file */
	ASSERT_EQ(load_text("long.txt", text, n + 1, NONE, &l, &msgs), -EINVAL,
		  "unterminated");
	ASSERT_STRSTR(msgs,
		      "/long.txt:1: line too long (more than 4096 bytes)\n",
		      "unterminated msg");
	free(msgs);
	/* skipped under --skip-invalid, and the next line read */
	ASSERT_OK(load_text("long.txt", text, off, SKIP, &l, &msgs), "skip");
	ASSERT_STRSTR(msgs,
		      "/long.txt:1: line too long (more than 4096 bytes) "
		      "(skipped)\n",
		      "skip msg");
	ASSERT_EQ(l.skipped, 1, "skipped");
	ASSERT_EQ(l.n4, 2, "the line after it");
	free(msgs);
	bw_list_free(&l);
	free(text);
}

BW_TEST(test_list_load_unreadable)
{
	struct bw_list_opts opts = {};
	struct bw_capture cap;
	struct bw_list l;
	char *msgs;
	int ret;

	bw_list_init(&l);
	bw_capture_start(&cap);
	ret = bw_list_load(&l, "/nonexistent/bloomwall/list.txt", &opts);
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -ENOENT, "missing file");
	ASSERT_STREQ(msgs,
		     "/nonexistent/bloomwall/list.txt: No such file or "
		     "directory (check the path; \"-\" reads standard input)\n",
		     "missing file message");
	free(msgs);

	bw_capture_start(&cap);
	ret = bw_list_load(&l, "/", &opts);
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -EISDIR, "directory");
	ASSERT_STREQ(msgs,
		     "/: not a regular file or pipe (directory): give a list "
		     "file, or \"-\" for standard input\n",
		     "dir msg");
	free(msgs);
	bw_list_free(&l);
}

/*
 * Loads path as an unprivileged user: root reads any file, so a child
 * drops to nobody first. Returns the load's result.
 */
static int load_as_nobody(const char *path)
{
	struct bw_list_opts opts = {};
	struct bw_list l;
	int status, ret;
	pid_t pid;

	if (geteuid() != 0) {
		bw_list_init(&l);
		ret = bw_list_load(&l, path, &opts);
		bw_list_free(&l);
		return ret;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(255);
		bw_list_init(&l);
		_exit(-bw_list_load(&l, path, &opts));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

BW_TEST(test_list_load_permission)
{
	struct bw_capture cap;
	const char *path;
	char *msgs;
	int ret;

	path = write_file("secret.txt", "1.2.3.4\n", 8);
	if (!ASSERT_OK_PTR(path, "write"))
		return;
	chmod(path, 0);
	bw_capture_start(&cap);
	ret = load_as_nobody(path);
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -EACCES, "unreadable");
	ASSERT_STRSTR(msgs,
		      "secret.txt: Permission denied (check its "
		      "permissions)\n",
		      "msg");
	free(msgs);
	remove_file(path);
}

/* "-" reads standard input; stdin is swapped for a file for the test. */
BW_TEST(test_list_load_stdin)
{
	static const char text[] = "1.2.3.4\n2001:db8::1\nbad\n";
	struct bw_list_opts opts = { .skip_invalid = true };
	struct bw_capture cap;
	const char *path;
	struct bw_list l;
	int fd, saved, ret;
	char *msgs;

	path = write_file("stdin.txt", text, sizeof(text) - 1);
	if (!ASSERT_OK_PTR(path, "write"))
		return;
	fd = open(path, O_RDONLY);
	saved = dup(STDIN_FILENO);
	dup2(fd, STDIN_FILENO);
	close(fd);
	bw_list_init(&l);
	bw_capture_start(&cap);
	ret = bw_list_load(&l, "-", &opts);
	msgs = bw_capture_end(&cap);
	dup2(saved, STDIN_FILENO);
	close(saved);
	remove_file(path);
	ASSERT_OK(ret, "load -");
	ASSERT_EQ(l.n4, 1, "v4 from stdin");
	ASSERT_EQ(l.n6, 1, "v6 from stdin");
	ASSERT_STREQ(msgs, "<stdin>:3: not an IP address: \"bad\" (skipped)\n",
		     "stdin is named <stdin>");
	free(msgs);
	bw_list_free(&l);
}

/* ---- sorting and de-duplication ---- */

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

BW_TEST(test_list_finish_dedup)
{
	static const char *lines[] = {
		"10.0.0.0/8",	   "10.0.0.0/16",   "10.0.0.0/8", "1.2.3.4",
		"1.2.3.4",	   "1.2.3.4/32",    "::1",	  "::1/128",
		"2001:db8::/32",   "2001:db8::/48", "::1",	  "0.0.0.0",
		"255.255.255.255",
	};
	struct bw_list_opts opts = {};
	char err[BW_ERRLEN];
	struct bw_list l;
	size_t i;

	bw_list_init(&l);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ASSERT_OK(bw_list_parse_line(&l, lines[i], &opts, err,
					     sizeof(err)),
			  lines[i]);
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, 5, "v4 unique");
	ASSERT_EQ(l.n6, 3, "v6 unique");
	ASSERT_EQ(l.duplicates, 5, "duplicates");
	ASSERT_EQ_U64(l.v4[0], bw_v4key(0, 32), "0.0.0.0 first");
	ASSERT_EQ_U64(l.v4[4], bw_v4key(0xffffffff, 32), "255.* last");
	ASSERT_EQ_U64(l.v4[2], bw_v4key(0x0a000000, 8), "/8 before /16");
	ASSERT_EQ(l.v6[0].lo, 1, "::1 first");
	ASSERT_EQ(l.v6[1].plen, 32, "/32 before /48");
	bw_list_finish(&l);
	ASSERT_EQ(l.duplicates, 5, "finish twice changes nothing");
	bw_list_free(&l);
}

/* The radix sort against qsort, on keys with many duplicates. */
BW_TEST(test_list_radix_vs_qsort)
{
	const size_t n = 1000000;
	struct bw_list l;
	__u64 *ref, s = 7;
	size_t i, out;

	bw_list_init(&l);
	ref = calloc(n, sizeof(*ref));
	l.v4 = calloc(n, sizeof(*l.v4));
	if (!ASSERT_OK_PTR(ref, "calloc") || !ASSERT_OK_PTR(l.v4, "calloc"))
		goto out;
	l.n4 = l.cap4 = n;
	for (i = 0; i < n; i++) {
		/* low addresses and few lengths: duplicates in every byte */
		__u32 plen = 8 + (__u32)(bw_test_splitmix64(&s) % 25);

		l.v4[i] = bw_v4key(bw_mask_v4((__u32)bw_test_splitmix64(&s) >>
						      (i & 1 ? 12 : 0),
					      plen),
				   plen);
		ref[i] = l.v4[i];
	}
	qsort(ref, n, sizeof(*ref), cmp_u64);
	for (out = 0, i = 0; i < n; i++)
		if (!out || ref[i] != ref[out - 1])
			ref[out++] = ref[i];
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, out, "unique count");
	ASSERT_EQ(l.duplicates, n - out, "duplicates");
	ASSERT_GE(l.duplicates, 1000, "test has duplicates");
	ASSERT_EQ(memcmp(l.v4, ref, out * sizeof(*ref)), 0, "same order");
out:
	free(ref);
	bw_list_free(&l);
}

/* Ten million keys: sorted, unique, and none lost. */
BW_TEST(test_list_radix_10m)
{
	const size_t n = 10000000;
	size_t i, bad = 0;
	struct bw_list l;
	__u64 sum = 0, sum2 = 0;

	bw_list_init(&l);
	l.v4 = malloc(n * sizeof(*l.v4));
	if (!ASSERT_OK_PTR(l.v4, "malloc"))
		return;
	l.n4 = l.cap4 = n;
	/* distinct keys (a bijection of i), so the sum must survive */
	for (i = 0; i < n; i++) {
		l.v4[i] = bw_v4key((__u32)(i * 2654435761U), 32);
		sum += l.v4[i];
	}
	bw_list_finish(&l);
	ASSERT_EQ(l.n4, n, "all unique");
	for (i = 0; i < l.n4; i++) {
		bad += i && l.v4[i] <= l.v4[i - 1];
		sum2 += l.v4[i];
	}
	ASSERT_EQ(bad, 0, "strictly increasing");
	ASSERT_EQ_U64(sum2, sum, "same keys");
	bw_list_free(&l);
}

/* ---- command-line prefixes and formatting ---- */

BW_TEST(test_parse_prefix)
{
	char err[BW_ERRLEN], buf[64];
	struct bw_prefix p;

	ASSERT_OK(bw_parse_prefix("10.0.0.1", &p, err, sizeof(err)), "v4");
	ASSERT_EQ(p.family, BW_V4, "family");
	ASSERT_EQ(p.plen, 32, "host length");
	ASSERT_EQ_U64(p.lo, 0x0a000001, "host order");
	ASSERT_EQ(p.hi, 0, "hi of v4");
	ASSERT_OK(bw_parse_prefix("10.0.0.0/8", &p, err, sizeof(err)), "/8");
	ASSERT_EQ(p.plen, 8, "plen");
	ASSERT_OK(bw_parse_prefix("2001:db8::1", &p, err, sizeof(err)), "v6");
	ASSERT_EQ(p.family, BW_V6, "family");
	ASSERT_EQ(p.plen, 128, "v6 host length");
	ASSERT_EQ_U64(p.hi, 0x20010db800000000ULL, "hi");
	ASSERT_EQ_U64(p.lo, 1, "lo");
	ASSERT_OK(bw_parse_prefix("2001:db8::/32", &p, err, sizeof(err)),
		  "/32");
	ASSERT_STREQ(bw_prefix_str(&p, buf, sizeof(buf)), "2001:db8::/32",
		     "round trip");
	ASSERT_EQ(bw_parse_prefix("10.0.0.1/8", &p, err, sizeof(err)), -EINVAL,
		  "host bits");
	ASSERT_STREQ(
		err,
		"host bits set in \"10.0.0.1/8\" (did you mean 10.0.0.0/8?)",
		"host bits message");
	ASSERT_EQ(bw_parse_prefix("", &p, err, sizeof(err)), -EINVAL, "empty");
	ASSERT_STREQ(err, "empty address: \"\"", "empty message");
	ASSERT_EQ(bw_parse_prefix("1.2.3.4-1.2.3.5", &p, err, sizeof(err)),
		  -EINVAL, "range");
	ASSERT_STREQ(err,
		     "expected one address or prefix, not a range: "
		     "\"1.2.3.4-1.2.3.5\"",
		     "range message");
	ASSERT_EQ(bw_parse_prefix("eth0", &p, err, sizeof(err)), -EINVAL,
		  "word");
	ASSERT_STREQ(err, "not an IP address: \"eth0\"", "word message");
	ASSERT_EQ(bw_parse_prefix("example.com", &p, err, sizeof(err)), -EINVAL,
		  "domain");
	ASSERT_STREQ(
		err,
		"a name where an address is expected (addresses and names go in separate commands): \"example.com\"",
		"domain msg");
}

BW_TEST(test_prefix_str)
{
	static const struct {
		struct bw_prefix p;
		const char *want;
	} c[] = {
		{ { 0, 0x01020304, BW_V4, 32 }, "1.2.3.4" },
		{ { 0, 0x0a000000, BW_V4, 8 }, "10.0.0.0/8" },
		{ { 0, 0, BW_V4, 0 }, "0.0.0.0/0" },
		{ { 0, 0xffffffff, BW_V4, 32 }, "255.255.255.255" },
		{ { 0x20010db800000000ULL, 1, BW_V6, 128 }, "2001:db8::1" },
		{ { 0x20010db800000000ULL, 0, BW_V6, 32 }, "2001:db8::/32" },
		{ { 0, 0, BW_V6, 0 }, "::/0" },
		{ { 0, 0x0000ffff01020304ULL, BW_V6, 128 }, "::ffff:1.2.3.4" },
	};
	char buf[64], small[8];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ASSERT_STREQ(bw_prefix_str(&c[i].p, buf, sizeof(buf)),
			     c[i].want, c[i].want);
	/* a short buffer truncates, never overflows */
	ASSERT_STREQ(bw_prefix_str(&c[4].p, small, sizeof(small)), "2001:db",
		     "truncated");
}

/* ---- the real lists of tests/data ---- */

struct data_list {
	const char *rel;
	size_t n4, n6;
};

static const struct data_list data_lists[] = {
	{ "ipv4/ipsum/ipsum.txt", 108919, 0 },
	{ "ipv4/ipsum/levels/3.txt", 11599, 0 },
	{ "ipv4/ipsum/levels/8.txt", 66, 0 },
	{ "ipv4/firehol/feodo.ipset", 2047, 0 },
	{ "ipv4/firehol/tor_exits.ipset", 1560, 0 },
	{ "ipv6/openshield/tor-exit-nodes_ipv6.txt", 0, 619 },
	{ "ipv4/firehol/dshield.netset", 19, 0 },
	{ "ipv4/firehol/spamhaus_drop.netset", 948, 0 },
	{ "ipv4/firehol/firehol_level1.netset", 2747, 0 },
	{ "ipv4/firehol/firehol_level2.netset", 23088, 0 },
	{ "ipv4/firehol/firehol_level4.netset", 123666, 0 },
	{ "spamhaus/drop.txt", 1385, 0 },
	{ "spamhaus/dropv6.txt", 0, 78 },
	{ "ipv6/openshield/high-risk-networks_ipv6-cidrs.txt", 0, 66 },
};

BW_TEST(test_list_real_lists)
{
	const struct data_list *d;
	struct bw_list l;
	size_t i;

	if (!bw_test_data_dir())
		return;
	for (i = 0; i < sizeof(data_lists) / sizeof(data_lists[0]); i++) {
		d = &data_lists[i];
		bw_list_init(&l);
		if (ASSERT_OK(bw_test_load_data(&l, d->rel), d->rel)) {
			bw_list_finish(&l);
			ASSERT_EQ(l.n4, d->n4, d->rel);
			ASSERT_EQ(l.n6, d->n6, d->rel);
			ASSERT_EQ(l.lines, d->n4 + d->n6, d->rel);
			ASSERT_EQ(l.duplicates + l.skipped, 0, d->rel);
		}
		bw_list_free(&l);
	}
}

/*
 * A hosts file is a domain list: without domains, refused at its first
 * blocked name (lines 15-38: local entries, comments and blank lines).
 */
BW_TEST(test_list_real_hosts_file)
{
	struct bw_capture cap;
	struct bw_list l;
	char *msgs;
	int ret;

	if (!bw_test_data_dir())
		return;
	bw_list_init(&l);
	bw_capture_start(&cap);
	ret = bw_test_load_data(&l, "domains/stevenblack/hosts");
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -EINVAL, "hosts file");
	/* Lines 1-14 of the hosts file are comments and blank lines. */
	ASSERT_STRSTR(msgs,
		      "/domains/stevenblack/hosts:40: " DNS_REFUSED
		      ": \"wizhumpgyros.com\"\n",
		      "msg");
	free(msgs);
	bw_list_free(&l);
}
