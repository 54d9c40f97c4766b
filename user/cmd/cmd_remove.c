// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall remove IFACE ADDR|CIDR...|NAME...: takes entries out of those kept
 * from 'bloomwall add'. A Bloom filter cannot unset a bit (another key may
 * share it). With a watch running, which keeps the adds as live entries
 * and the blocks they live in as built (daemon/live.h), the entries are
 * marked taken out in the running filter's records in place and the watch
 * rewrites their blocks in place: no rebuild, no swap. Without one,
 * removing is a rebuild: from the list files and options the running
 * filter records, and the kept adds less these, through reload's path
 * (build before the lock, swap under it, the same messages).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_remove.h"
#include "base/log.h"
#include "lists/entry.h"
#include "lists/names.h"
#include "base/output.h"
#include "filter/records.h"
#include "ops/rebuild.h"
#include "out/op_report.h"
#include "ops/reload.h"
#include "ops/remove_mark.h"
#include "ops/handover.h"

/* The rebuild, and the reload's report when there was one. */
static int rebuild(const struct bw_rebuild_req *rq,
		   struct bw_rebuild_result *res)
{
	int err = bw_rebuild(rq, res);

	if (res->reloaded)
		bw_reload_report(rq->iface, &res->reload);
	return err;
}

/* What one remove takes out: addresses, or names. */
struct taken {
	struct bw_entries s;
	bool names; /* said as names */
};

/* Why found of a's entries only were removed (said when not all). */
static void warn_not_added(const struct bw_args *a, const struct taken *t,
			   int found)
{
	if (found >= a->npos)
		return;
	if (t->names)
		pr_warn("%s: %d of %d names were not added at run time: only those can be removed\n",
			a->iface, a->npos - found, a->npos);
	else
		pr_warn("%s: %d of %d entries were not added at run time: only those can be removed (an entry of a LIST goes when it is taken out of the file and the filter reloaded)\n",
			a->iface, a->npos - found, a->npos);
}

/* How an entry went: the watch's word (JSON "how") and the text. */
static void say_how(enum bw_handover_how how)
{
	static const char *const word[] = {
		[BW_HOW_IN_PLACE] = "in_place", [BW_HOW_HELD] = "held",
		[BW_HOW_REBUILD] = "rebuild",	[BW_HOW_MARKED] = "marked",
		[BW_HOW_KEPT] = "kept",
	};

	if (how == BW_HOW_NOT_ADDED) {
		bw_out_text("not added at run time\n");
		return;
	}
	if (how < sizeof(word) / sizeof(word[0]) && word[how])
		bw_out_string("how", NULL, word[how]);
	if (how == BW_HOW_KEPT)
		bw_out_text(
			"removed this owner's claim; still dropped: other owners keep it\n");
	else if (how == BW_HOW_REBUILD)
		bw_out_text(
			"removed; the watch rebuilds the filter without it\n");
	else if (how == BW_HOW_HELD)
		bw_out_text(
			"removed; still dropped: a live entry of the watch (a decision) holds it\n");
	else if (how == BW_HOW_MARKED)
		bw_out_text(
			"removed from the records; the watch takes it out of the filter within a second\n");
	else
		bw_out_text("removed in place\n");
}

/*
 * "ADDR  removed in place" (or how else it went, or "not added at run
 * time"), one line an entry in the order given; JSON {address|name,
 * result, how}. The number removed.
 */
static size_t say_handed(const struct bw_args *a, const struct taken *t,
			 const enum bw_handover_how *how)
{
	char text[BW_NAME_MAX + 3];
	size_t i, removed = 0;
	bool found;

	bw_out_open_array(t->names ? "names" : "addresses");
	for (i = 0; i < t->s.n; i++) {
		found = how[i] != BW_HOW_NOT_ADDED;
		removed += found;
		bw_out_open_object(NULL);
		bw_out_string(
			bw_entry_is_name(&t->s.v[i]) ? "name" : "address",
			"%s  ",
			i < (size_t)a->npos
				? a->pos[i]
				: bw_entries_str(&t->s, i, text, sizeof(text)));
		bw_out_string("result", NULL, found ? "removed" : "not_added");
		say_how(how[i]);
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", (long long)removed);
	bw_out_int("total", "%lld removed\n", (long long)t->s.n);
	warn_not_added(a, t, (int)removed);
	return removed;
}

/*
 * With a watch: handed to it (ops/handover.h), which marks them out of
 * the records and takes them out of the blocks in place. 1 when it did
 * (*err its result: -ENOENT when one was no add), 0 when the caller
 * marks them itself.
 */
static int remove_by_watch(struct bw_args *a, const struct taken *t, int *err)
{
	struct bw_handover_req rq = { .iface = a->iface,
				      .op = BW_HANDOVER_REMOVE,
				      .entries = &t->s,
				      .owner = a->owner };
	struct bw_handover_result res;
	size_t removed;
	int e = bw_handover(&rq, &res);

	if (e) {
		if (e != -ENOENT && e != -EXDEV)
			pr_warn("%s: the watch did not take the remove (%s): marking the entries here\n",
				a->iface, bw_errno_hint(e));
		return 0;
	}
	removed = say_handed(a, t, res.how);
	bw_handover_free(&res);
	*err = removed < t->s.n ? -ENOENT : 0;
	return 1;
}

/*
 * With a watch that did not take the remove (busy, too old): the entries
 * marked taken out in the records here, under the lock; the watch finds
 * the marks within a second and takes them out of the blocks. If none
 * runs any more, a rebuild here leaves them out.
 */
static int remove_in_place(struct bw_args *a, const struct taken *t, int pid)
{
	struct bw_mark_req rq = { .iface = a->iface,
				  .ifindex = a->ifindex,
				  .entries = &t->s };
	struct bw_mark_result res = { .found = calloc(t->s.n ?: 1,
						      sizeof(bool)) };
	struct bw_rebuild_req rb = { .iface = a->iface, .ifindex = a->ifindex };
	enum bw_handover_how *how = calloc(t->s.n ?: 1, sizeof(*how));
	struct bw_rebuild_result rr;
	size_t i;
	int err;

	/* An owner's claims need the watch's view of the others': it asks. */
	if (a->owner) {
		pr_warn("%s: the watch (pid %d) did not take the remove of %s's claims: try again\n",
			a->iface, pid, a->owner);
		free(how);
		free(res.found);
		return -EAGAIN;
	}
	/* A failed mark was said; one made before it the watch finds. */
	err = res.found && how ? bw_remove_mark(&rq, &res) : -ENOMEM;
	if (err)
		goto out;
	if (res.watch_gone) {
		pr_warn("%s: the watch (pid %d) is gone: rebuilding without the entries\n",
			a->iface, pid);
		err = rebuild(&rb, &rr);
		bw_rebuild_result_free(&rr);
	}
	for (i = 0; i < t->s.n; i++)
		how[i] = res.found[i] ? BW_HOW_MARKED : BW_HOW_NOT_ADDED;
	say_handed(a, t, how);
out:
	free(how);
	free(res.found);
	return err ?: (res.marked < t->s.n ? -ENOENT : 0);
}

/* Whether owner had a claim on entry i of s in rec (as it was read). */
static bool owned_by(const struct bw_records *rec, const struct bw_entries *s,
		     size_t i, const char *owner)
{
	const struct bw_owned *o =
		bw_owners_get(&rec->owners, bw_entries_key(s, i));
	__u32 j;

	for (j = 0; o && j < o->n; j++)
		if (!strcmp(o->v[j].name, owner))
			return true;
	return false;
}

/*
 * After the rebuild (done: the kept adds went): "ENTRY  removed", "ENTRY
 * not removed" or "ENTRY  not added at run time"; the number found.
 */
static int say_rebuilt(const struct bw_args *a, const struct taken *t,
		       const struct bw_records *rec, bool done)
{
	int found = 0;
	size_t i;
	bool kept;

	bw_out_open_array(t->names ? "names" : "addresses");
	for (i = 0; i < t->s.n && i < (size_t)a->npos; i++) {
		/* rec is indexed (ops/rebuild.h): O(1) each. */
		kept = a->owner ? owned_by(rec, &t->s, i, a->owner)
				: bw_records_find(
					  rec, bw_entries_key(&t->s, i)) >= 0;
		found += kept;
		bw_out_open_object(NULL);
		bw_out_string(bw_entry_is_name(&t->s.v[i]) ? "name" : "address",
			      "%s  ", a->pos[i]);
		bw_out_string("result", NULL,
			      !kept  ? "not_added"
			      : done ? "removed"
				     : "not_removed");
		bw_out_text("%s\n", !kept  ? "not added at run time"
				    : done ? "removed"
					   : "not removed");
		bw_out_close_object();
	}
	bw_out_close_array();
	return found;
}

/*
 * Handed to a watch, or marked for it; without one, reads what runs,
 * says what goes, rebuilds without it.
 */
static int remove_taken(struct bw_args *a, const struct taken *t)
{
	struct bw_rebuild_req rq = { .iface = a->iface, .ifindex = a->ifindex };
	struct bw_rebuild_result res;
	int err, found, pid = bw_handover_watch(a->iface);

	if (pid > 0 && remove_by_watch(a, t, &err))
		return err;
	if (pid > 0)
		return remove_in_place(a, t, pid);
	rq.remove = &t->s;
	rq.owner = a->owner;
	err = rebuild(&rq, &res);
	if (!res.read)
		return err;
	found = say_rebuilt(a, t, &res.rec, res.reloaded && !err);
	warn_not_added(a, t, found);
	/* Addresses say the generation kept; names never did. */
	if (!t->names && !res.reloaded)
		bw_say_unchanged(a->iface, res.generation);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_rebuild_result_free(&res);
	return err ?: (found < a->npos ? -ENOENT : 0);
}

static int do_remove(struct bw_args *a)
{
	struct taken t = { .names = bw_arg_is_name(a->pos[0]) };
	int err;

	bw_out_string("iface", NULL, a->iface);
	bw_entries_init(&t.s);
	err = bw_parse_entries("remove", a->pos, a->npos, BW_PARSE_ONE_KIND, 0,
			       &t.s);
	if (!err && a->owner && t.names) {
		pr_warn("%s: --owner takes addresses and prefixes, not names\n",
			a->iface);
		err = -BW_EUSAGE;
	}
	err = err ?: bw_check_privileges("remove") ?: remove_taken(a, &t);
	bw_entries_free(&t.s);
	return err;
}

static const struct bw_opt remove_only_opts[] = {
	BW_OPT("owner", "NAME", owner, bw_parse_owner,
	       "take out NAME's claims alone: the entries stay while other owners want them"),
	{ 0 },
};

static const struct bw_opt *const remove_opts[] = { remove_only_opts, NULL };

const struct bw_verb bw_verb_remove = {
	.name = "remove",
	.summary = "take entries added with 'add' out of the filter on IFACE",
	.details =
		"With a 'bloomwall watch' running on IFACE (it keeps the adds live), the\n"
		"entries are taken out in place: marked out of the running filter's records,\n"
		"then the watch rewrites the blocks they live in; no rebuild, no swap, and\n"
		"remove returns once they no longer match (\"removed in place\"). Where the\n"
		"watch has them built in it rebuilds (\"the watch rebuilds the filter without\n"
		"it\"); a decision of its CrowdSec source covering one still drops it. Names\n"
		"added at run time go the same way.\n"
		"Without a watch, a Bloom filter cannot unset bits, so this\n"
		"rebuilds it: from the list files and build options the running filter\n"
		"records (those of its last attach or reload; a new seed), and the entries\n"
		"kept from 'bloomwall add' but these, and swaps it in as 'bloomwall reload'\n"
		"does (the same messages; on failure nothing changes). Give an entry as it\n"
		"was added (a prefix as the prefix).\n"
		"An entry that was not added at run time is reported and the exit status is\n"
		"1; the others are still removed.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"removed\"|\n"
		"\"not_added\", with a watch \"how\": \"in_place\"|\"held\"|\"rebuild\"}] (for\n"
		"names \"names\": [{\"name\", ...}]), the\n"
		"reload's objects, \"removed\", \"total\"}.\n"
		"--owner NAME takes out NAME's claims alone (see add --owner): an entry\n"
		"other owners still want stays, until the latest end among them (\"how\":\n"
		"\"kept\"); the last owner's remove takes it out. One NAME has no claim on\n"
		"is reported not added. Without --owner, remove takes the entry out\n"
		"whatever owns it.\n",
	.opts = remove_opts,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_remove,
};
