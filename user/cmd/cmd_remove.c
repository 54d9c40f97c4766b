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
#include "lists/list_domain.h"
#include "lists/names.h"
#include "base/output.h"
#include "filter/records.h"
#include "ops/rebuild.h"
#include "out/op_report.h"
#include "ops/reload.h"
#include "ops/remove_mark.h"
#include "ops/handover.h"
#include "lists/list_parse.h"

/* The rebuild, and the reload's report when there was one. */
static int rebuild(const struct bw_rebuild_req *rq,
		   struct bw_rebuild_result *res)
{
	int err = bw_rebuild(rq, res);

	if (res->reloaded)
		bw_reload_report(rq->iface, &res->reload);
	return err;
}

/* What one remove takes out: addresses, or names (keys NULL). */
struct taken {
	const struct bw_prefix *keys;
	const struct bw_list *names;
	size_t n;
};

/* Entry i as given: the prefix, or the name ("*." a subtree). */
static void entry_text(const struct taken *t, size_t i, char *buf, size_t len)
{
	if (t->keys) {
		bw_prefix_str(&t->keys[i], buf, len);
		return;
	}
	bw_domain_str(t->names, &t->names->dom[i], buf, len);
}

/* Entry i as the records hold it. */
static struct bw_entry_key entry_key(const struct taken *t, size_t i)
{
	const struct bw_domain *d;

	if (t->keys)
		return bw_key_prefix(&t->keys[i]);
	d = &t->names->dom[i];
	return bw_key_name(bw_domain_name(t->names, d), d->len, d->flags);
}

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
		[BW_HOW_IN_PLACE] = "in_place",
		[BW_HOW_HELD] = "held",
		[BW_HOW_REBUILD] = "rebuild",
		[BW_HOW_MARKED] = "marked",
	};

	if (how == BW_HOW_NOT_ADDED) {
		bw_out_text("not added at run time\n");
		return;
	}
	if (how < sizeof(word) / sizeof(word[0]) && word[how])
		bw_out_string("how", NULL, word[how]);
	if (how == BW_HOW_REBUILD)
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

	bw_out_open_array(t->keys ? "addresses" : "names");
	for (i = 0; i < t->n; i++) {
		entry_text(t, i, text, sizeof(text));
		found = how[i] != BW_HOW_NOT_ADDED;
		removed += found;
		bw_out_open_object(NULL);
		bw_out_string(t->keys ? "address" : "name", "%s  ",
			      i < (size_t)a->npos ? a->pos[i] : text);
		bw_out_string("result", NULL, found ? "removed" : "not_added");
		say_how(how[i]);
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", (long long)removed);
	bw_out_int("total", "%lld removed\n", (long long)t->n);
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
				      .p = t->keys,
				      .n = t->n,
				      .names = t->names };
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
	*err = removed < t->n ? -ENOENT : 0;
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
				  .keys = t->keys,
				  .names = t->names,
				  .n = t->n };
	struct bw_mark_result res = { .found =
					      calloc(t->n ?: 1, sizeof(bool)) };
	struct bw_rebuild_req rb = { .iface = a->iface, .ifindex = a->ifindex };
	enum bw_handover_how *how = calloc(t->n ?: 1, sizeof(*how));
	struct bw_rebuild_result rr;
	size_t i;
	int err;

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
	for (i = 0; i < t->n; i++)
		how[i] = res.found[i] ? BW_HOW_MARKED : BW_HOW_NOT_ADDED;
	say_handed(a, t, how);
out:
	free(how);
	free(res.found);
	return err ?: (res.marked < t->n ? -ENOENT : 0);
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

	bw_out_open_array(t->keys ? "addresses" : "names");
	for (i = 0; i < t->n && i < (size_t)a->npos; i++) {
		/* rec is indexed (ops/rebuild.h): O(1) each. */
		kept = bw_records_find(rec, entry_key(t, i)) >= 0;
		found += kept;
		bw_out_open_object(NULL);
		bw_out_string(t->keys ? "address" : "name", "%s  ", a->pos[i]);
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
	struct bw_entries out;
	size_t i;

	if (pid > 0 && remove_by_watch(a, t, &err))
		return err;
	if (pid > 0)
		return remove_in_place(a, t, pid);
	bw_entries_init(&out);
	for (i = 0, err = 0; !err && i < t->n; i++)
		err = bw_entries_push(&out, entry_key(t, i), 0);
	rq.remove = &out;
	if (err) {
		bw_entries_free(&out);
		return err;
	}
	err = rebuild(&rq, &res);
	bw_entries_free(&out);
	if (!res.read)
		return err;
	found = say_rebuilt(a, t, &res.rec, res.reloaded && !err);
	warn_not_added(a, t, found);
	/* Addresses say the generation kept; names never did. */
	if (t->keys && !res.reloaded)
		bw_say_unchanged(a->iface, res.generation);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_rebuild_result_free(&res);
	return err ?: (found < a->npos ? -ENOENT : 0);
}

static int do_remove(struct bw_args *a)
{
	struct taken t = { 0 };
	struct bw_prefix *keys = NULL;
	struct bw_list l;
	int err;

	bw_out_string("iface", NULL, a->iface);
	if (bw_arg_is_name(a->pos[0])) {
		bw_list_init(&l);
		err = bw_parse_names("remove", a->pos, a->npos, false, &l)
			      ?: bw_check_privileges("remove");
		t.names = &l;
		t.n = l.ndom;
		if (!err)
			err = remove_taken(a, &t);
		bw_list_free(&l);
		return err;
	}
	err = bw_parse_addrs("remove", a->pos, a->npos, &keys);
	if (err)
		return err;
	t.keys = keys;
	t.n = (size_t)a->npos;
	err = bw_check_privileges("remove") ?: remove_taken(a, &t);
	free(keys);
	return err;
}

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
		"reload's objects, \"removed\", \"total\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_remove,
};
