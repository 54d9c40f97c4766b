// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE ADDR|CIDR|NAME...
 * bloomwall unallow IFACE ADDR|CIDR|NAME...
 *
 * An address the allowlist covers is never dropped, a name in the name
 * allowlist never blocked (exact or subtree as written: "name",
 * "*.name", "||name^" or "@@||name^"); ops/allow.h changes them.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_allow.h"
#include "lists/list.h"
#include "ops/allow.h"
#include "out/op_report.h"

/* How many entries the command did not change. */
static int unchanged(const struct bw_allow_result *res, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += !res->changed[i];
	return k;
}

/* Addresses and prefixes: parsed, changed, reported. */
static int addrs_verb(const char *verb, struct bw_args *a, bool on)
{
	struct bw_allow_req rq = {
		.iface = a->iface, .ifindex = a->ifindex, .on = on, .n = a->npos
	};
	struct bw_allow_result res = { 0 };
	struct bw_prefix *p = NULL;
	int absent = 0, err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_parse_addrs(verb, a->pos, a->npos, &p);
	if (!err) {
		res.changed = calloc(a->npos, sizeof(*res.changed));
		err = res.changed ? 0 : -ENOMEM;
	}
	if (!err)
		err = bw_check_privileges(verb);
	rq.addrs = p;
	if (!err)
		err = bw_allow_addrs(&rq, &res);
	bw_allow_report(&rq, a->pos, &res, err);
	if (!err && !on)
		absent = unchanged(&res, a->npos);
	if (absent) {
		pr_warn("%s: %d of %d entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status %s' counts them)\n",
			a->iface, absent, a->npos, a->iface);
		err = -ENOENT;
	}
	free(res.changed);
	free(p);
	return err;
}

/* Names: parsed, changed all or none, reported. */
static int names_verb(const char *verb, struct bw_args *a, bool on)
{
	struct bw_allow_req rq = {
		.iface = a->iface, .ifindex = a->ifindex, .on = on, .n = a->npos
	};
	struct bw_allow_result res = { 0 };
	struct bw_list l;
	int err;

	bw_out_string("iface", NULL, a->iface);
	bw_list_init(&l);
	rq.names = &l;
	err = bw_parse_names(verb, a->pos, a->npos, false, &l)
		      ?: bw_check_privileges(verb);
	if (!err) {
		res.changed = calloc(a->npos ?: 1, sizeof(*res.changed));
		err = res.changed ? bw_allow_names(&rq, &res) : -ENOMEM;
	}
	bw_allow_report(&rq, a->pos, &res, err);
	if (!err && !on && res.changed_n < a->npos) {
		pr_warn("%s: %d of %d names were not in the name allowlist (a name is removed as it was added: \"*.name\" for a subtree)\n",
			a->iface, a->npos - res.changed_n, a->npos);
		err = -ENOENT;
	}
	free(res.changed);
	bw_list_free(&l);
	return err;
}

/* One command takes addresses or names, as its first entry is. */
static int do_allow(struct bw_args *a)
{
	if (bw_arg_is_name(a->pos[0]))
		return names_verb("allow", a, true);
	return addrs_verb("allow", a, true);
}

static int do_unallow(struct bw_args *a)
{
	if (bw_arg_is_name(a->pos[0]))
		return names_verb("unallow", a, false);
	return addrs_verb("unallow", a, false);
}

const struct bw_verb bw_verb_allow = {
	.name = "allow",
	.summary = "add addresses, prefixes or names to the allowlist on IFACE",
	.details =
		"An allowlisted address is never dropped, whatever the blocklist says.\n"
		"The allowlist is an exact LPM trie (IPv4 and IPv6) consulted only when the\n"
		"Bloom filter hits, so it costs nothing on the unlisted path. It lasts until\n"
		"detach; 'bloomwall reload --allow FILE' replaces it, a reload without\n"
		"--allow keeps it. Prefixes must have no host bits set.\n"
		"Names (NAME, or *.NAME / ||NAME^ for it and every name under it) go to\n"
		"the name allowlist: such a name is never blocked, whatever a list says.\n"
		"One command takes addresses or names, not both.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"allowed\"|\"already\"}],\n"
		"\"added\", \"total\", \"allowlist_entries\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_allow,
};

const struct bw_verb bw_verb_unallow = {
	.name = "unallow",
	.summary =
		"remove addresses, prefixes or names from the allowlist on IFACE",
	.details =
		"Each entry is removed as it was added: unallow 10.0.0.0/24 removes the /24,\n"
		"not an allowed 10.0.0.7 inside it. An entry that is not in the allowlist\n"
		"is reported, the others are still removed, and the exit status is 1.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"removed\"|\"absent\"}],\n"
		"\"removed\", \"total\", \"allowlist_entries\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_unallow,
};
