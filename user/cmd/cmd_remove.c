// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall remove IFACE ADDR|CIDR...: takes entries out of those kept
 * from 'bloomwall add'. A Bloom filter cannot unset a bit (another key may
 * share it), so removing is a rebuild: from the list files and options the
 * running filter records, and the kept adds less these, through reload's
 * path (build before the lock, swap under it, the same messages).
 */
#include <errno.h>
#include <math.h>
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
#include "kernel/running.h"

static int count_kept(const struct bw_args *a, const struct bw_prefix *keys,
		      const struct bw_records *rec)
{
	int i, found = 0;

	for (i = 0; i < a->npos; i++)
		found += bw_records_find(rec, &keys[i]) >= 0;
	return found;
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
	if (found < a->npos)
		pr_warn("%s: %d of %d entries were not added at run time: only those can be removed (an entry of a LIST goes when it is taken out of the file and the filter reloaded)\n",
			a->iface, a->npos - found, a->npos);
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

/* Reads what runs, says what goes, rebuilds without it. */
static int remove_entries(struct bw_args *a, const struct bw_prefix *keys)
{
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .remove = keys,
				     .nremove = a->npos };
	struct bw_rebuild_result res;
	int err, found;

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
	int err, found;

	err = rebuild(&rq, &res);
	if (!res.read)
		return err;
	found = say_names(a, l, &res.rec, !err, true);
	if (found < a->npos)
		pr_warn("%s: %d of %d names were not added at run time: only those can be removed\n",
			a->iface, a->npos - found, a->npos);
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
		"A Bloom filter cannot unset bits, so this rebuilds it: from the list files\n"
		"and build options the running filter records (those of its last attach or\n"
		"reload; a new seed), and the entries kept from 'bloomwall add' but these,\n"
		"and swaps it in as 'bloomwall reload' does (the same messages; on failure\n"
		"nothing changes). Give an entry as it was added (a prefix as the prefix).\n"
		"An entry that was not added at run time is reported and the exit status is\n"
		"1; the others are still removed.\n"
		"With --json: {\"iface\", \"addresses\": [{\"address\", \"result\": \"removed\"|\n"
		"\"not_added\"}], the reload's objects, \"removed\", \"total\"}.\n",
	.opts = NULL,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_remove,
};
