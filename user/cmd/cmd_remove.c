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
#include "ops/reload.h"
#include "kernel/running.h"

/* The options the running filter was built with; not its seed. */
void bw_args_from_record(const struct bw_rec_build *rb,
			 struct bw_build_args *ba)
{
	int f;

	memset(ba, 0, sizeof(*ba));
	memcpy(&ba->fpr, &rb->fpr_bits, sizeof(ba->fpr));
	/* A rate that is none: the running filter's, as reload takes it. */
	ba->fpr_set = isnormal(ba->fpr) && ba->fpr > 0.0 && ba->fpr < 0.5;
	ba->match = rb->flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST);
	ba->monitor = rb->flags & BW_F_MONITOR;
	ba->enforce = !ba->monitor;
	ba->verify = rb->flags & BW_F_VERIFY;
	for (f = 0; f < BW_FAMILIES; f++)
		if (rb->max_lengths[f] <= BW_MAX_LENGTHS)
			ba->max_lengths[f] = rb->max_lengths[f];
	ba->mask_host_bits = rb->opts & BW_REC_OPT_MASK_HOST_BITS;
	ba->skip_invalid = rb->opts & BW_REC_OPT_SKIP_INVALID;
}

/* Whether the recorded lists can be read again; says why not. */
int bw_check_rebuildable(const char *iface, const struct bw_records *rec)
{
	int i;

	if (!rec->have_build || !rec->nlists) {
		pr_warn("%s: the running filter does not record the lists it was built from (an older bloomwall built it); run 'bloomwall reload %s LIST...' once, then remove\n",
			iface, iface);
		return -ENOENT;
	}
	for (i = 0; i < rec->nlists; i++) {
		if (strcmp(rec->lists[i], "-"))
			continue;
		pr_warn("%s: the running filter was built from standard input, which cannot be read again; run 'bloomwall reload %s LIST...' with files, then remove\n",
			iface, iface);
		return -EINVAL;
	}
	return 0;
}

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

/* Reads what runs, says what goes, rebuilds without it. */
static int remove_entries(struct bw_args *a, const struct bw_prefix *keys)
{
	struct bw_build_args ba;
	struct bw_reload_req rq = { .iface = a->iface,
				    .ifindex = a->ifindex,
				    .args = &ba,
				    .remove = keys,
				    .nremove = a->npos };
	struct bw_records rec;
	struct bw_running r;
	__u64 gen = 0;
	int err, found;

	bw_records_init(&rec);
	err = bw_running_open(a->iface, a->ifindex, 0, &r);
	if (err)
		return err;
	err = bw_running_need_filter(&r) ?: bw_running_records(&r, &rec);
	if (!err)
		gen = bw_running_info(&r)->generation;
	bw_running_close(&r);
	if (err)
		return err;
	found = count_kept(a, keys, &rec);
	err = found ? bw_check_rebuildable(a->iface, &rec) : -ENOENT;
	if (!err) {
		bw_args_from_record(&rec.build, &ba);
		rq.lists = (const char *const *)rec.lists;
		rq.nlists = rec.nlists;
		err = bw_reload(&rq);
		say_entries(a, keys, &rec, !err);
	} else {
		say_entries(a, keys, &rec, false);
		bw_say_unchanged(a->iface, gen);
	}
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_records_free(&rec);
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
	struct bw_build_args ba;
	struct bw_reload_req rq = { .iface = a->iface,
				    .ifindex = a->ifindex,
				    .args = &ba,
				    .remove_names = l };
	struct bw_records rec;
	struct bw_running r;
	int err, found;

	bw_records_init(&rec);
	err = bw_running_open(a->iface, a->ifindex, 0, &r);
	if (err)
		return err;
	err = bw_running_need_filter(&r) ?: bw_running_records(&r, &rec);
	bw_running_close(&r);
	if (err)
		return err;
	found = say_names(a, l, &rec, false, false);
	err = found ? bw_check_rebuildable(a->iface, &rec) : -ENOENT;
	if (!err) {
		bw_args_from_record(&rec.build, &ba);
		rq.lists = (const char *const *)rec.lists;
		rq.nlists = rec.nlists;
		err = bw_reload(&rq);
	}
	say_names(a, l, &rec, !err, true);
	if (found < a->npos)
		pr_warn("%s: %d of %d names were not added at run time: only those can be removed\n",
			a->iface, a->npos - found, a->npos);
	bw_out_text("%s: ", a->iface);
	bw_out_int("removed", "%lld of ", err ? 0 : found);
	bw_out_int("total", "%lld removed\n", a->npos);
	bw_records_free(&rec);
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
