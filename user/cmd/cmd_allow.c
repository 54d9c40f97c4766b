// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE ADDR|CIDR...    bloomwall unallow IFACE ADDR|CIDR...
 *
 * An address the allowlist covers is never dropped; ops/allow.h changes
 * it, in one swap of the program on the hook.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_allow.h"
#include "cmd/cmd_allow_names.h"
#include "lists/list.h"
#include "ops/allow.h"

/* "IFACE: N of M added (allowlist now K entries)"; JSON what, total, entries. */
static void print_total(const struct bw_args *a, long long total,
			const char *what, int n)
{
	bw_out_text("%s: ", a->iface);
	bw_out_int(what, "%lld of ", n);
	bw_out_int("total", "%lld ", a->npos);
	bw_out_text("%s", what);
	bw_out_int("allowlist_entries", " (allowlist now %'lld ", total);
	bw_out_text("%s)\n", bw_plural(total, "entry", "entries"));
}

/* "ADDR  allowed"; JSON {address, result}. */
static void say_entry(const char *addr, const char *result, const char *text)
{
	bw_out_open_object(NULL);
	bw_out_string("address", "%s  ", addr);
	bw_out_string("result", NULL, result);
	bw_out_text("%s\n", text);
	bw_out_close_object();
}

/* The addresses parsed, then changed in the running allowlist. */
static int change(const char *verb, struct bw_args *a, bool on,
		  struct bw_prefix **p, struct bw_allow_result *res)
{
	struct bw_allow_req rq = {
		.iface = a->iface, .ifindex = a->ifindex, .on = on, .n = a->npos
	};
	int err;

	bw_out_string("iface", NULL, a->iface);
	err = bw_parse_addrs(verb, a->pos, a->npos, p);
	if (!err) {
		res->changed = calloc(a->npos, sizeof(*res->changed));
		err = res->changed ? 0 : -ENOMEM;
	}
	if (!err)
		err = bw_check_privileges(verb);
	rq.addrs = *p;
	return err ? err : bw_allow_addrs(&rq, res);
}

static int do_allow(struct bw_args *a)
{
	struct bw_allow_result res = { 0 };
	struct bw_prefix *p = NULL;
	int i, err;

	if (bw_arg_is_name(a->pos[0]))
		return bw_allow_names_verb("allow", a, true);
	err = change("allow", a, true, &p, &res);
	bw_out_open_array("addresses");
	for (i = 0; !err && i < a->npos; i++)
		say_entry(a->pos[i], res.changed[i] ? "allowed" : "already",
			  res.changed[i] ? "allowed" : "already allowed");
	bw_out_close_array();
	if (!err)
		print_total(a, res.entries, "added", res.changed_n);
	free(res.changed);
	free(p);
	return err;
}

static int do_unallow(struct bw_args *a)
{
	struct bw_allow_result res = { 0 };
	struct bw_prefix *p = NULL;
	int i, absent = 0, err;

	if (bw_arg_is_name(a->pos[0]))
		return bw_allow_names_verb("unallow", a, false);
	err = change("unallow", a, false, &p, &res);
	bw_out_open_array("addresses");
	for (i = 0; !err && i < a->npos; i++) {
		say_entry(a->pos[i], res.changed[i] ? "removed" : "absent",
			  res.changed[i] ? "removed" : "not in the allowlist");
		absent += !res.changed[i];
	}
	bw_out_close_array();
	if (!err)
		print_total(a, res.entries, "removed", res.changed_n);
	if (!err && absent) {
		pr_warn("%s: %d of %d entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status %s' counts them)\n",
			a->iface, absent, a->npos, a->iface);
		err = -ENOENT;
	}
	free(res.changed);
	free(p);
	return err;
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
