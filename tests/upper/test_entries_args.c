// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The entries of add, remove, allow and unallow as the command line gives
 * them (bw_parse_entries, user/cmd/args.c): each by its own kind, in
 * order; add and remove refuse a command of both kinds, allow takes it;
 * a bad entry refuses the whole command. stderr captured: the exact text
 * a user reads.
 */
#include <stdlib.h>
#include <unistd.h>

#include "bw_hash.h"
#include "base/output.h"
#include "cmd/args.h"
#include "lists/entry.h"
#include "test_helpers.h"

struct parsed {
	struct bw_entries s;
	int ret;
	char *err; /* stderr, to free */
};

static void parse(struct parsed *p, const char *verb, unsigned int flags,
		  const char *const *args, int n)
{
	struct bw_capture err;

	bw_entries_init(&p->s);
	bw_capture_fd(&err, STDERR_FILENO);
	p->ret = bw_parse_entries(verb, (char **)args, n, flags, 7, &p->s);
	p->err = bw_capture_end(&err);
}

static void parsed_free(struct parsed *p)
{
	bw_entries_free(&p->s);
	free(p->err);
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Addresses and names in one command: each entry as given, in order. */
BW_TEST(test_entries_args_mixed)
{
	static const char *const args[] = { "192.0.2.1",      "example.com",
					    "*.ads.test",     "10.0.0.0/24",
					    "@@||good.test^", "2001:db8::/64" };
	static const char *const want[] = { "192.0.2.1",   "example.com",
					    "*.ads.test",  "10.0.0.0/24",
					    "*.good.test", "2001:db8::/64" };
	char buf[BW_NAME_MAX + 3];
	struct parsed p;
	size_t i;

	parse(&p, "allow", 0, args, N(args));
	ASSERT_OK(p.ret, "allow takes both kinds");
	ASSERT_STREQ(p.err, "", "nothing said");
	ASSERT_EQ(p.s.n, (size_t)N(args), "every entry");
	for (i = 0; i < p.s.n && i < (size_t)N(want); i++) {
		ASSERT_STREQ(bw_entries_str(&p.s, i, buf, sizeof(buf)), want[i],
			     "the entry, in the order given");
		ASSERT_EQ(p.s.v[i].expires, 7ULL, "its expiry");
	}
	ASSERT_EQ(bw_entries_count(&p.s, BW_ENTRY_NAME), (size_t)3, "names");
	ASSERT_EQ(bw_entries_count(&p.s, BW_ENTRY_PREFIX), (size_t)3,
		  "addresses");
	parsed_free(&p);
}

/* add and remove: one kind a command, said with both entries named. */
BW_TEST(test_entries_args_one_kind)
{
	static const char *const addr_first[] = { "192.0.2.1", "10.0.0.0/8",
						  "example.com" };
	static const char *const name_first[] = { "example.com", "192.0.2.1" };
	struct parsed p;

	parse(&p, "add", BW_PARSE_ONE_KIND, addr_first, N(addr_first));
	ASSERT_EQ(p.ret, -BW_EUSAGE, "a name after addresses");
	ASSERT_STREQ(
		p.err,
		"bloomwall add: \"192.0.2.1\" is an address, \"example.com\" a name: one add takes addresses or names, not both\n",
		"said");
	parsed_free(&p);
	parse(&p, "remove", BW_PARSE_ONE_KIND, name_first, N(name_first));
	ASSERT_EQ(p.ret, -BW_EUSAGE, "an address after a name");
	ASSERT_STREQ(
		p.err,
		"bloomwall remove: \"example.com\" is a name, \"192.0.2.1\" an address: one remove takes addresses or names, not both\n",
		"said");
	parsed_free(&p);
}

/* A bad entry anywhere refuses the command, said by what is wrong. */
BW_TEST(test_entries_args_refused)
{
	static const char *const host_bits[] = { "example.com", "192.0.2.1",
						 "10.77.0.3/24" };
	static const char *const digits[] = { "192.0.2.1", "example.123" };
	static const char *const allow_entry[] = { "@@||good.test^" };
	struct parsed p;

	parse(&p, "allow", 0, host_bits, N(host_bits));
	ASSERT_EQ(p.ret, -BW_EUSAGE, "host bits");
	ASSERT_STREQ(
		p.err,
		"bloomwall allow: host bits set in \"10.77.0.3/24\" (did you mean 10.77.0.0/24?)\n",
		"host bits: said");
	parsed_free(&p);
	parse(&p, "unallow", 0, digits, N(digits));
	ASSERT_EQ(p.ret, -BW_EUSAGE, "an all-digit top label");
	ASSERT_STREQ(
		p.err,
		"bloomwall unallow: top-level label all digits: not a name: \"example.123\"\n",
		"all digits: said");
	parsed_free(&p);
	parse(&p, "add", BW_PARSE_NO_ALLOW, allow_entry, N(allow_entry));
	ASSERT_EQ(p.ret, -BW_EUSAGE, "add of an allow entry");
	ASSERT_STREQ(
		p.err,
		"bloomwall add: \"@@||good.test^\" is an allow entry: use 'bloomwall allow'\n",
		"allow entry: said");
	parsed_free(&p);
}
