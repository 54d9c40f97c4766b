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
#include "kernel/lock.h"
#include "kernel/running.h"
#include "ops/remove_mark.h"
#include "base/run_ask.h"
#include "lists/list_parse.h"

/* How long the watch may take to answer: a CrowdSec poll may hold it. */
#define ASK_MS 10000

static int count_kept(const struct bw_args *a, const struct bw_prefix *keys,
		      const struct bw_records *rec)
{
	int i, found = 0;

	for (i = 0; i < a->npos; i++)
		found += bw_records_find(rec, &keys[i]) >= 0;
	return found;
}

/* Why found of a's entries only were removed (said when not all). */
static void warn_not_added(const struct bw_args *a, int found)
{
	if (found < a->npos)
		pr_warn("%s: %d of %d entries were not added at run time: only those can be removed (an entry of a LIST goes when it is taken out of the file and the filter reloaded)\n",
			a->iface, a->npos - found, a->npos);
}

static void warn_names_not_added(const struct bw_args *a, int found)
{
	if (found < a->npos)
		pr_warn("%s: %d of %d names were not added at run time: only those can be removed\n",
			a->iface, a->npos - found, a->npos);
}

/*
 * After the rebuild (done: the kept adds went): "ADDR  removed", "ADDR  not
 * removed" or "ADDR  not added at run time", and a line for the last.
 */
static void say_entries(const struct bw_args *a, const struct bw_prefix *keys,
			const struct bw_records *rec, bool done)
{
	const char *res, *text;
	int i, found = 0;
	bool kept;

	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		kept = bw_records_find(rec, &keys[i]) >= 0;
		found += kept;
		res = !kept ? "not_added" : done ? "removed" : "not_removed";
		text = !kept  ? "not added at run time"
		       : done ? "removed"
			      : "not removed";
		bw_out_open_object(NULL);
		bw_out_string("address", "%s  ", a->pos[i]);
		bw_out_string("result", NULL, res);
		bw_out_text("%s\n", text);
		bw_out_close_object();
	}
	bw_out_close_array();
	warn_not_added(a, found);
}

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

/* Entry i as the watch names it: the prefix, or the name ("*." a subtree). */
static void entry_text(const struct taken *t, size_t i, char *buf, size_t len)
{
	if (t->keys) {
		bw_prefix_str(&t->keys[i], buf, len);
		return;
	}
	bw_domain_str(t->names, &t->names->dom[i], buf, len);
}

/* The watch's word on entry text: "in_place", "held", "rebuild", or NULL. */
static const char *how_of(struct json_object *ans, const char *text)
{
	struct json_object *list, *o, *v;
	size_t i, n;

	if (!json_object_object_get_ex(ans, "removed", &list) ||
	    !json_object_is_type(list, json_type_array))
		return NULL;
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(list, i);
		if (json_object_object_get_ex(o, "entry", &v) &&
		    !strcmp(json_object_get_string(v), text) &&
		    json_object_object_get_ex(o, "how", &v))
			return json_object_get_string(v);
	}
	return NULL;
}

static void say_how(const char *how, bool found)
{
	if (!found)
		bw_out_text("not added at run time\n");
	else if (!how || !strcmp(how, "rebuild"))
		bw_out_text(
			"removed; the watch rebuilds the filter without it\n");
	else if (!strcmp(how, "held"))
		bw_out_text(
			"removed; still dropped: a live entry of the watch (a decision) holds it\n");
	else
		bw_out_text("removed in place\n");
}

/*
 * "ADDR  removed in place" (or how else it goes, or "not added at run
 * time"); JSON {address|name, result, how}.
 */
static void say_marked(const struct bw_args *a, const struct taken *t,
		       const bool *found, struct json_object *ans)
{
	char text[BW_NAME_MAX + 3];
	const char *how;
	size_t i;

	bw_out_open_array(t->keys ? "addresses" : "names");
	for (i = 0; i < t->n; i++) {
		entry_text(t, i, text, sizeof(text));
		how = found[i] ? how_of(ans, text) : NULL;
		bw_out_open_object(NULL);
		bw_out_string(t->keys ? "address" : "name", "%s  ",
			      i < (size_t)a->npos ? a->pos[i] : text);
		bw_out_string("result", NULL,
			      found[i] ? "removed" : "not_added");
		if (how)
			bw_out_string("how", NULL, how);
		say_how(how, found[i]);
		bw_out_close_object();
	}
	bw_out_close_array();
}

/*
 * With a watch: the entries marked taken out in the records in place,
 * then the watch asked to take them out of the blocks. A watch that does
 * not answer finds the marks itself within a second; if none runs any
 * more, a rebuild here leaves them out.
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
	struct bw_rebuild_result rr;
	struct json_object *ans = NULL;
	int err;

	/* A failed mark was said; one made before it the watch finds. */
	err = res.found ? bw_remove_mark(&rq, &res) : -ENOMEM;
	if (err)
		goto out;
	if (res.marked)
		err = bw_run_ask(a->iface, "sync", ASK_MS, &ans);
	if (err && bw_lock_watch_holder(a->iface) <= 0) {
		pr_warn("%s: the watch (pid %d) is gone: rebuilding without the entries\n",
			a->iface, pid);
		err = rebuild(&rb, &rr);
		bw_rebuild_result_free(&rr);
	} else if (err) {
		pr_warn("%s: the watch (pid %d) did not answer (%s): the entries are out of the records, and it takes them out of the filter once it reads them\n",
			a->iface, pid, strerror(-err));
		err = 0;
	}
	say_marked(a, t, res.found, ans);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", (long long)res.marked);
	bw_out_int("total", "%lld removed\n", (long long)t->n);
	if (t->names)
		warn_names_not_added(a, (int)res.marked);
	else
		warn_not_added(a, (int)res.marked);
out:
	json_object_put(ans);
	free(res.found);
	return err ?: (res.marked < t->n ? -ENOENT : 0);
}

/* Reads what runs, says what goes, rebuilds without it. */
static int remove_entries(struct bw_args *a, const struct bw_prefix *keys)
{
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .remove = keys,
				     .nremove = a->npos };
	struct bw_rebuild_result res;
	int err, found, pid = bw_lock_watch_holder(a->iface);

	if (pid > 0) {
		struct taken t = { .keys = keys, .n = (size_t)a->npos };

		return remove_in_place(a, &t, pid);
	}
	err = rebuild(&rq, &res);
	if (!res.read)
		return err;
	found = count_kept(a, keys, &res.rec);
	say_entries(a, keys, &res.rec, res.reloaded && !err);
	if (!res.reloaded)
		bw_say_unchanged(a->iface, res.generation);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_rebuild_result_free(&res);
	return err ?: (found < a->npos ? -ENOENT : 0);
}

/* "NAME  removed" or "NAME  not added at run time"; the number found. */
static int say_names(const struct bw_args *a, const struct bw_list *l,
		     const struct bw_records *rec, bool done, bool say)
{
	const struct bw_domain *d;
	int i, found = 0;
	bool kept;

	if (say)
		bw_out_open_array("names");
	for (i = 0; i < a->npos && (size_t)i < l->ndom; i++) {
		d = &l->dom[i];
		kept = bw_records_find_name(rec, bw_domain_name(l, d), d->len,
					    d->flags & BW_DOM_SUBTREE) >= 0;
		found += kept;
		if (!say)
			continue;
		bw_out_open_object(NULL);
		bw_out_string("name", "%s  ", a->pos[i]);
		bw_out_string("result", NULL,
			      !kept  ? "not_added"
			      : done ? "removed"
				     : "not_removed");
		bw_out_text("%s\n", !kept  ? "not added at run time"
				    : done ? "removed"
					   : "not removed");
		bw_out_close_object();
	}
	if (say)
		bw_out_close_array();
	return found;
}

/* remove IFACE NAME...: as for addresses, the names left out. */
static int remove_names(struct bw_args *a, const struct bw_list *l)
{
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .remove_names = l };
	struct bw_rebuild_result res;
	struct taken t = { .names = l, .n = l->ndom };
	int err, found, pid = bw_lock_watch_holder(a->iface);

	if (pid > 0)
		return remove_in_place(a, &t, pid);
	err = rebuild(&rq, &res);
	if (!res.read)
		return err;
	found = say_names(a, l, &res.rec, !err, true);
	warn_names_not_added(a, found);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_rebuild_result_free(&res);
	return err ?: (found < a->npos ? -ENOENT : 0);
}

static int do_remove(struct bw_args *a)
{
	struct bw_prefix *keys = NULL;
	struct bw_list l;
	int err;

	bw_out_string("iface", NULL, a->iface);
	if (bw_arg_is_name(a->pos[0])) {
		bw_list_init(&l);
		err = bw_parse_names("remove", a->pos, a->npos, false, &l)
			      ?: bw_check_privileges("remove");
		if (!err)
			err = remove_names(a, &l);
		bw_list_free(&l);
		return err;
	}
	err = bw_parse_addrs("remove", a->pos, a->npos, &keys);
	if (err)
		return err;
	err = bw_check_privileges("remove") ?: remove_entries(a, keys);
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
