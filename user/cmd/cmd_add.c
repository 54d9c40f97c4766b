// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall add IFACE ADDR|CIDR...|NAME...: with a watch running, the
 * entries are handed to it, which adds them in place (ops/handover.h);
 * without one, or where it cannot, they go in by a swap of a changed copy
 * of the running filter, their records with them (ops/add.h), and every
 * later rebuild builds them in. Names the filter has no region for go in
 * by a rebuild from its recorded lists (ops/rebuild.h), and so do entries
 * that would take it past its target false-positive rate (a rebuild with
 * room for the adds: the filter grows). With --timeout
 * each records when it ends: a running watch takes it out in place, a
 * rebuild after it leaves it out.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/output.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_add.h"
#include "filter/records.h"
#include "filter/rate.h"
#include "filter/records_edit.h"
#include "lists/entry.h"
#include "ops/add.h"
#include "ops/handover.h"
#include "ops/rebuild.h"
#include "out/expiry_view.h"
#include "out/op_report.h"

/*
 * With a watch running: handed to it, in place (ops/handover.h). 0 when
 * done; -ENOENT or -EXDEV when the CLI adds them itself.
 */
static int add_by_watch(const struct bw_add_req *c)
{
	struct bw_handover_req rq = { .iface = c->iface,
				      .op = BW_HANDOVER_ADD,
				      .entries = c->entries,
				      .owner = c->owner };
	struct bw_handover_result res;
	int err;

	err = bw_handover(&rq, &res);
	if (err == -EXDEV)
		pr_debug(
			"%s: the watch does not add in place (%s): adding by a swap\n",
			c->iface, res.why);
	if (err)
		return err;
	bw_add_handed_report(c, res.how);
	bw_handover_free(&res);
	return 0;
}

static void say_rebuilding(void *ctx)
{
	const struct bw_args *a = ctx;

	bw_out_text(
		"%s: the running filter has no name region for %s: rebuilding it from its lists\n",
		a->iface, a->npos == 1 ? "this name" : "these names");
}

/*
 * After a rebuild that kept the names with an expiry (or ended one): each
 * name, whether it was kept before, and its expiry, as in place.
 */
static void say_kept(const struct bw_add_req *rq, struct bw_records *before)
{
	const struct bw_entries *s = rq->entries;
	bool any = false, *unexpired;
	size_t i;
	long k;

	unexpired = calloc(s->n ?: 1, sizeof(*unexpired));
	if (!unexpired)
		return;
	/* Whether name i had an expiry that this add (none) ends. */
	bw_entries_index(&before->added);
	for (i = 0; i < s->n; i++) {
		k = bw_records_find(before, bw_entries_key(s, i));
		unexpired[i] = k >= 0 && before->added.v[k].expires &&
			       !s->v[i].expires;
		any = any || unexpired[i] || s->v[i].expires;
	}
	if (any) {
		bw_out_open_array("names");
		for (i = 0; i < s->n; i++) {
			bw_out_open_object(NULL);
			bw_out_string("name", "%s  ", rq->given[i]);
			bw_out_string("result", "kept", "kept");
			bw_expiry_say_add(s->v[i].expires, rq->now,
					  unexpired[i]);
			bw_out_close_object();
		}
		bw_out_close_array();
	}
	free(unexpired);
}

/*
 * A filter without the region the names need gets it by a rebuild from
 * its recorded lists, the names kept with them (as remove does).
 */
static int add_by_rebuild(struct bw_args *a, const struct bw_add_req *c)
{
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .before_reload = say_rebuilding,
				     .ctx = (void *)a,
				     .add = c->entries,
				     .owner = c->owner };
	struct bw_rebuild_result res;
	int err;

	err = bw_rebuild(&rq, &res);
	if (res.reloaded)
		bw_reload_report(a->iface, &res.reload);
	if (!err && res.read)
		say_kept(c, &res.rec);
	bw_rebuild_result_free(&res);
	return err;
}

/* What add_by_growing says before its rebuild. */
struct grow_ctx {
	const struct bw_add_req *rq;
	const struct bw_add_result *res;
};

static void say_growing(void *ctx)
{
	const struct grow_ctx *g = ctx;

	bw_out_text(
		"%s: %s would take the filter's %s past its target false-positive rate (about %.3g%% where it is sized for %.3g%%): rebuilding it from its lists with room for the adds\n",
		g->rq->iface,
		g->rq->entries->n == 1 ? "this entry" : "these entries",
		bw_rate_part_name(g->res->grow_part), g->res->grow_rate * 100,
		g->res->grow_target * 100);
}

/*
 * Entries that would take the filter past its target rate in place grow
 * it: a rebuild from its recorded lists with them kept, sized with room
 * for every kept add. A filter that cannot be rebuilt here refuses them,
 * and says why.
 */
static int add_by_growing(struct bw_args *a, const struct bw_add_req *c,
			  const struct bw_add_result *ares)
{
	struct grow_ctx g = { .rq = c, .res = ares };
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .before_reload = say_growing,
				     .ctx = &g,
				     .add = c->entries,
				     .owner = c->owner,
				     .room = true };
	struct bw_rebuild_result res;
	int err;

	err = bw_rebuild(&rq, &res);
	if (res.reloaded)
		bw_reload_report(a->iface, &res.reload);
	else if (err)
		pr_warn("%s: nothing added: in place, %s would take the filter's %s past its target false-positive rate (about %.3g%% where it is sized for %.3g%%), and it cannot grow\n",
			a->iface,
			c->entries->n == 1 ? "this entry" : "these entries",
			bw_rate_part_name(ares->grow_part),
			ares->grow_rate * 100, ares->grow_target * 100);
	if (!err)
		bw_add_grown_report(c, ares->had, ares->unexpired, &res.reload);
	bw_rebuild_result_free(&res);
	return err;
}

static const struct bw_opt add_only_opts[] = {
	BW_OPT("timeout", "DURATION", timeout, bw_parse_timeout,
	       "the entries or names expire after DURATION (30s, 5m, 4h, 7d, 1h30m; 0: never)",
	       .set = BW_FIELD(timeout_set)),
	BW_OPT("owner", "NAME", owner, bw_parse_owner,
	       "the adds are NAME's (e.g. f2b-sshd): they stay while any owner wants them"),
	{ 0 },
};

static const struct bw_opt *const add_opts[] = { add_only_opts, NULL };

/*
 * Handed to a running watch; else (none, or one that cannot in place) by
 * a swap, which is right whatever the watch did: an add is idempotent.
 * Names the filter has no region for go in by a rebuild.
 */
static int add(struct bw_args *a, struct bw_add_req *rq)
{
	struct bw_add_result res = { 0 };
	size_t n = rq->entries->n;
	int err;

	res.plan = calloc(n ?: 1, sizeof(*res.plan));
	res.fresh = calloc(n ?: 1, sizeof(*res.fresh));
	res.unexpired = calloc(n ?: 1, sizeof(*res.unexpired));
	res.had = calloc(n ?: 1, sizeof(*res.had));
	err = res.plan && res.fresh && res.unexpired && res.had ? 0 : -ENOMEM;
	if (!err)
		err = bw_check_privileges("add");
	if (err)
		goto out;
	err = add_by_watch(rq);
	if (!err)
		goto out;
	if (err != -ENOENT && err != -EXDEV)
		pr_warn("%s: the watch did not take the add (%s): adding by a swap\n",
			a->iface, bw_errno_hint(err));
	err = bw_add(rq, &res);
	if (!err)
		bw_add_report(rq, &res);
	if (err == BW_ADD_NO_REGION)
		err = add_by_rebuild(a, rq);
	else if (err == BW_ADD_GROW)
		err = add_by_growing(a, rq, &res);
out:
	free(res.had);
	free(res.fresh);
	free(res.unexpired);
	free(res.plan);
	return err;
}

static int do_add(struct bw_args *a)
{
	struct bw_add_req rq = { .iface = a->iface,
				 .ifindex = a->ifindex,
				 .given = a->pos,
				 .owner = a->owner };
	struct bw_entries s;
	int err;

	bw_out_string("iface", NULL, a->iface);
	rq.now = bw_expiry_now();
	bw_entries_init(&s);
	rq.entries = &s;
	err = bw_parse_entries("add", a->pos, a->npos,
			       BW_PARSE_NO_ALLOW | BW_PARSE_ONE_KIND,
			       a->timeout ? rq.now + a->timeout : 0, &s);
	if (!err && a->owner && bw_entries_count(&s, BW_ENTRY_NAME)) {
		pr_warn("%s: --owner takes addresses and prefixes, not names\n",
			a->iface);
		err = -BW_EUSAGE;
	}
	if (!err)
		err = add(a, &rq);
	bw_entries_free(&s);
	return err;
}

const struct bw_verb bw_verb_add = {
	.name = "add",
	.summary = "add addresses, or names, to the running filter on IFACE",
	.details =
		"No rebuild from the lists: the addresses' bits are set in a copy of the\n"
		"running filter, which replaces it in one step (a killed add changes\n"
		"nothing), and its entry count grows. Adds that would take the filter past\n"
		"its target false-positive rate grow it instead: a rebuild from its lists\n"
		"with room for the adds, said in one line (an image's filter, which cannot\n"
		"be rebuilt here, refuses them and says why).\n"
		"The entries are kept with the filter:\n"
		"every later rebuild ('bloomwall reload', 'bloomwall remove') builds them in\n"
		"with the lists' until 'bloomwall remove IFACE ADDR' takes one out (or\n"
		"'reload --forget-added' all); 'bloomwall status' counts them.\n"
		"A prefix is added as the keys that cover it exactly at the filter's\n"
		"shortest target length at or below it (see status), up to 65536 keys; in\n"
		"verify mode it also goes into the running exact trie as it is. A /0 (every\n"
		"address of a family) is refused: put it in a LIST and reload if it is meant.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"added\"|\"already\",\n"
		"\"keys\", \"new_keys\", \"prefix\"}], \"added\", \"total\", \"generation\", \"entries\",\n"
		"\"added_kept\"}.\n"
		"Names (NAME blocks that name, *.NAME or ||NAME^ it and every name under\n"
		"it) are added the same way, to the filter's name regions; a filter without\n"
		"the region a name needs is rebuilt from its lists to get it. One add takes\n"
		"addresses or names, not both. JSON: \"names\": [{\"name\", \"result\"}].\n"
		"--timeout DURATION (30s, 5m, 4h, 7d, 1h30m, or seconds) makes the entries\n"
		"(addresses, prefixes or names) expire, as ipset's and nftables' timeout:\n"
		"the expiry is recorded with each (JSON \"expires\", Unix seconds, and\n"
		"\"expires_in\"); a running 'bloomwall watch' takes an entry out in place\n"
		"within a second of it, and any rebuild after it leaves it out (reload says\n"
		"how many). Adding an entry again sets its expiry anew: a new --timeout\n"
		"replaces the old one, an add without one (or --timeout 0) makes it\n"
		"permanent. status and query show what expires when.\n"
		"--owner NAME (1 to 32 of A-Z a-z 0-9 . _ -; fail2ban's action passes\n"
		"f2b-JAIL) makes the adds NAME's: each owner has its own claim and end, an\n"
		"entry stays while any owner wants it and ends at the latest end among\n"
		"them; a new --timeout replaces NAME's own end alone. An add without\n"
		"--owner is an owner of its own (the anonymous one). Addresses only.\n",
	.opts = add_opts,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_add,
};
