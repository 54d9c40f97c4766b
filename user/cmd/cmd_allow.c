// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall allow IFACE ADDR|CIDR...    bloomwall unallow IFACE ADDR|CIDR...
 *
 * The allowlist is an LPM trie the data path consults on a Bloom hit only:
 * an address it covers is never dropped. A change makes a new trie (the
 * old entries, changed) that goes in with a new program, in one swap of
 * the program on the hook: a packet meets the old allowlist or the new
 * one, and a killed command changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/allowlist.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_allow.h"
#include "cmd/cmd_allow_names.h"
#include "lists/list.h"
#include "base/log.h"
#include "base/output.h"
#include "kernel/lpm.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "filter/provenance.h"
#include "ops/reload.h"
#include "kernel/running.h"

/* Parsed entries, the running state and its allowlist, under the lock. */
struct allow_ctx {
	struct bw_prefix *p;
	bool *hit; /* per entry: in the allowlist before (or earlier here) */
	struct bw_running r;
	struct bw_list old, new;
	int lock;
};

static int allow_open(const char *verb, struct bw_args *a, struct allow_ctx *c)
{
	int err;

	bw_out_string("iface", NULL, a->iface);
	memset(c, 0, sizeof(*c));
	c->r = (struct bw_running)BW_RUNNING_INIT;
	c->lock = -1;
	bw_list_init(&c->old);
	bw_list_init(&c->new);
	err = bw_parse_addrs(verb, a->pos, a->npos, &c->p);
	if (!err) {
		c->hit = calloc(a->npos, sizeof(*c->hit));
		err = c->hit ? 0 : -ENOMEM;
	}
	if (!err)
		err = bw_check_privileges(verb);
	if (err)
		return err;
	c->lock = bw_lock_acquire();
	if (c->lock < 0)
		return c->lock;
	err = bw_running_open(a->iface, a->ifindex, BW_RUN_REPAIR, &c->r);
	if (!err)
		err = bw_running_need_filter(&c->r);
	if (!err)
		err = bw_allow_read(c->r.maps.allow, &c->old);
	if (err == -ENOMEM)
		pr_warn("%s: out of memory while reading the allowlist\n",
			a->iface);
	return err;
}

static void allow_close(struct allow_ctx *c)
{
	bw_running_close(&c->r);
	bw_lock_release(c->lock);
	bw_list_free(&c->old);
	bw_list_free(&c->new);
	free(c->hit);
	free(c->p);
}

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

static bool same_prefix(const struct bw_prefix *x, const struct bw_prefix *y)
{
	return x->family == y->family && x->plen == y->plen && x->hi == y->hi &&
	       x->lo == y->lo;
}

/* Entry i is in the allowlist, or given earlier on this command line. */
static bool seen(const struct allow_ctx *c, int i)
{
	int j;

	if (bw_list_has(&c->old, &c->p[i]))
		return true;
	for (j = 0; j < i; j++)
		if (same_prefix(&c->p[j], &c->p[i]))
			return true;
	return false;
}

/*
 * The new allowlist goes in with a program whose BW_F_ALLOW says whether
 * it has entries (the data path reads the flag as a constant of its own):
 * one swap, so a packet meets the old allowlist or the new one.
 */
static int swap_allowlist(struct allow_ctx *c, const char *iface, __u8 verb)
{
	struct bw_edit e = { .allow_on = c->new.n4 + c->new.n6 > 0,
			     .edit = bw_prov_change_edit };
	struct bw_records rec;
	int err;

	/* The copy records the change (provenance.h): the old records, stamped. */
	err = bw_running_change_prepare(&c->r, verb, &rec, &e.extra_blocks);
	if (err)
		return err;
	e.ctx = &rec;
	e.allow_fd = bw_allow_create(&c->new);
	if (e.allow_fd < 0) {
		pr_warn("%s: cannot make the new allowlist: %s\n", iface,
			e.allow_fd == -E2BIG ? "it is full"
					     : bw_errno_hint(e.allow_fd));
		bw_records_free(&rec);
		return e.allow_fd;
	}
	err = bw_swap_running(&c->r, &e);
	bw_records_free(&rec);
	close(e.allow_fd);
	if (err)
		pr_warn("%s: nothing changed: the allowlist is as it was\n",
			iface);
	return err;
}

/* The allowlist and the entries to add (finish() drops the repeats). */
static int with(struct allow_ctx *c, int nadd)
{
	struct bw_prefix p;
	size_t i;
	int j, err = 0;

	for (i = 0; !err && i < c->old.n4 + c->old.n6; i++) {
		bw_list_prefix(&c->old, i, &p);
		err = bw_list_push(&c->new, &p);
	}
	for (j = 0; !err && j < nadd; j++)
		err = bw_list_push(&c->new, &c->p[j]);
	return err;
}

static int do_allow(struct bw_args *a)
{
	struct allow_ctx c;
	int i, n = 0, err;

	if (bw_arg_is_name(a->pos[0]))
		return bw_allow_names_verb("allow", a, true);
	err = allow_open("allow", a, &c);
	for (i = 0; !err && i < a->npos; i++) {
		c.hit[i] = seen(&c, i);
		n += !c.hit[i];
	}
	if (!err)
		err = with(&c, a->npos);
	if (!err) {
		bw_list_finish(&c.new);
		if (n)
			err = swap_allowlist(&c, a->iface, BW_CHANGE_ALLOW);
	}
	bw_out_open_array("addresses");
	for (i = 0; !err && i < a->npos; i++)
		say_entry(a->pos[i], c.hit[i] ? "already" : "allowed",
			  c.hit[i] ? "already allowed" : "allowed");
	bw_out_close_array();
	if (!err)
		print_total(a, c.new.n4 + c.new.n6, "added", n);
	allow_close(&c);
	return err;
}

/* The allowlist without the entries to remove. */
static int without(struct allow_ctx *c, const struct bw_list *gone)
{
	struct bw_prefix p;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < c->old.n4 + c->old.n6; i++) {
		bw_list_prefix(&c->old, i, &p);
		if (!bw_list_has(gone, &p))
			err = bw_list_push(&c->new, &p);
	}
	bw_list_finish(&c->new);
	return err;
}

static int do_unallow(struct bw_args *a)
{
	struct allow_ctx c;
	struct bw_list gone;
	int i, n = 0, absent = 0, err;

	if (bw_arg_is_name(a->pos[0]))
		return bw_allow_names_verb("unallow", a, false);
	bw_list_init(&gone);
	err = allow_open("unallow", a, &c);
	for (i = 0; !err && i < a->npos; i++) {
		c.hit[i] = bw_list_has(&c.old, &c.p[i]);
		if (c.hit[i])
			err = bw_list_push(&gone, &c.p[i]);
	}
	if (!err) {
		bw_list_finish(&gone);
		n = gone.n4 + gone.n6;
		err = without(&c, &gone);
	}
	if (!err && n)
		err = swap_allowlist(&c, a->iface, BW_CHANGE_UNALLOW);
	bw_out_open_array("addresses");
	for (i = 0; !err && i < a->npos; i++) {
		say_entry(a->pos[i], c.hit[i] ? "removed" : "absent",
			  c.hit[i] ? "removed" : "not in the allowlist");
		absent += !c.hit[i];
	}
	bw_out_close_array();
	if (!err)
		print_total(a, c.new.n4 + c.new.n6, "removed", n);
	if (!err && absent) {
		pr_warn("%s: %d of %d entries were not in the allowlist (an entry is removed with the prefix it was added with; 'bloomwall status %s' counts them)\n",
			a->iface, absent, a->npos, a->iface);
		err = -ENOENT;
	}
	bw_list_free(&gone);
	allow_close(&c);
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
