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
#include "lists/entry.h"
#include "ops/allow.h"
#include "out/op_report.h"

/*
 * unallow: the entries of each kind it did not find, said; -ENOENT when
 * some, else 0.
 */
static int warn_absent(const struct bw_args *a, const struct bw_entries *s,
		       const struct bw_allow_result *res)
{
	int addrs = 0, names = 0, naddrs = 0, nnames = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (bw_entry_is_name(&s->v[i])) {
			nnames++;
			names += !res->changed[i];
		} else {
			naddrs++;
			addrs += !res->changed[i];
		}
	}
	if (addrs)
		pr_warn("%s: %d of %d entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status %s' counts them)\n",
			a->iface, addrs, naddrs, a->iface);
	if (names)
		pr_warn("%s: %d of %d names were not in the name allowlist (a name is removed as it was added: \"*.name\" for a subtree)\n",
			a->iface, names, nnames);
	return addrs || names ? -ENOENT : 0;
}

/* Addresses and names: parsed, changed all or none, reported. */
static int allow_verb(const char *verb, struct bw_args *a, bool on)
{
	struct bw_allow_req rq = { .iface = a->iface,
				   .ifindex = a->ifindex,
				   .on = on };
	struct bw_allow_result res = { 0 };
	struct bw_entries s;
	int err;

	bw_out_string("iface", NULL, a->iface);
	bw_entries_init(&s);
	rq.entries = &s;
	err = bw_parse_entries(verb, a->pos, a->npos, 0, 0, &s);
	if (err)
		goto out;
	err = bw_check_privileges(verb);
	if (!err) {
		res.changed = calloc(s.n ?: 1, sizeof(*res.changed));
		err = res.changed ? bw_allow(&rq, &res) : -ENOMEM;
	}
	bw_allow_report(&rq, a->pos, &res, err);
	if (!err && !on)
		err = warn_absent(a, &s, &res);
out:
	free(res.changed);
	bw_entries_free(&s);
	return err;
}

static int do_allow(struct bw_args *a)
{
	return allow_verb("allow", a, true);
}

static int do_unallow(struct bw_args *a)
{
	return allow_verb("unallow", a, false);
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
		"Addresses and names may go in one command: all of them change, or none\n"
		"(a command that fails part way puts back what it changed).\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"allowed\"|\"already\"}],\n"
		"\"names\": [{\"name\", \"result\"}] (each array when the command has that kind),\n"
		"\"added\", \"total\", \"allowlist_entries\" (of names only: the names'),\n"
		"\"name_allowlist_entries\" (with names)}.\n",
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
		"Addresses and names may go in one command, as with allow.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"removed\"|\"absent\"}],\n"
		"\"names\": [{\"name\", \"result\"}], \"removed\", \"total\", \"allowlist_entries\",\n"
		"\"name_allowlist_entries\"}, as allow's.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_unallow,
};
