// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall add IFACE NAME|*.NAME...: a name's key is set in a copy of the
 * running filter's name region and the name kept in the copy's record area
 * (BW_REC_ADDED_NAMES), swapped in as add does for addresses. A filter
 * without the region the name needs (no names yet, or no subtree entries)
 * gets it by a rebuild from its recorded lists, the name kept with them.
 * With --timeout each name records when it ends (BW_REC_ADDED_NAME_EXPIRES),
 * as add does for addresses: a running watch takes it out in place, a
 * rebuild after it leaves it out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/bloom.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_add_names.h"
#include "base/log.h"
#include "filter/bloom_names.h"
#include "filter/records_write.h"
#include "lists/list_domain.h"
#include "lists/names.h"
#include "base/output.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "ops/rebuild.h"
#include "out/expiry_view.h"
#include "out/op_report.h"
#include "ops/reload.h"
#include "ops/handover.h"
#include "kernel/running.h"

/* Whether the running filter has a name region for every name asked. */
static bool fits_in_place(const void *mem, const struct bw_list *l)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	size_t i;
	int n;

	if (!dns)
		return false;
	for (i = 0; i < l->ndom; i++) {
		n = l->dom[i].flags & BW_DOM_SUBTREE ? BW_NAME_SUBTREE
						     : BW_NAME_EXACT;
		if (dns->region_end[n] <= bw_name_region_start(mem, dns, n))
			return false;
	}
	return true;
}

struct name_ctx {
	const struct bw_args *a;
	const struct bw_list *names;
	const struct bw_records *rec;
	int *fresh;
	bool *unexpired;    /* per name: it had an expiry, this add ended it */
	__u64 expires, now; /* --timeout: when they end (0: never), and now */
	__u64 generation;
	double worst, target; /* the touched regions' rate, and their target */
};

/*
 * Bits added raise the rate above what the regions were sized for: the
 * worst estimate of the regions a name went into, as add says for
 * addresses.
 */
static void worst_fpr(struct name_ctx *c, const void *mem)
{
	bool touched[BW_NAME_REGIONS] = { false };
	__u64 set, total;
	double fpr;
	size_t i;
	int n;

	c->target = bw_dns_fpr(bw_filter_dns(mem));
	for (i = 0; i < c->names->ndom; i++)
		if (c->fresh[i])
			touched[c->names->dom[i].flags & BW_DOM_SUBTREE
					? BW_NAME_SUBTREE
					: BW_NAME_EXACT] = true;
	for (n = 0; n < BW_NAME_REGIONS; n++) {
		if (!touched[n])
			continue;
		bw_name_region_fill(mem, n, &set, &total, &fpr);
		if (fpr > c->worst)
			c->worst = fpr;
	}
}

static int insert_names(void *mem, __u32 nblocks, void *arg)
{
	struct name_ctx *c = arg;
	struct bw_dns_hdr *dns = (struct bw_dns_hdr *)bw_filter_dns(mem);
	const struct bw_domain *d;
	size_t i;
	bool sub;

	for (i = 0; i < c->names->ndom; i++) {
		d = &c->names->dom[i];
		sub = d->flags & BW_DOM_SUBTREE;
		c->fresh[i] = bw_name_insert(mem, bw_domain_name(c->names, d),
					     d->len, sub) > 0;
		dns->region_entries[sub ? BW_NAME_SUBTREE : BW_NAME_EXACT] +=
			(__u32)c->fresh[i];
	}
	c->generation =
		((struct bw_info *)((char *)mem + BW_BLOCK_BYTES))->generation;
	worst_fpr(c, mem);
	return bw_records_write(mem, nblocks, c->rec) ? -E2BIG : 0;
}

static void say_names(const struct name_ctx *c)
{
	int i, added = 0;

	bw_out_open_array("names");
	for (i = 0; i < c->a->npos; i++) {
		bw_out_open_object(NULL);
		bw_out_string("name", "%s  ", c->a->pos[i]);
		bw_out_string("result", NULL,
			      c->fresh[i] ? "added" : "already");
		bw_out_text("%s",
			    c->fresh[i] ? "added" : "already in the filter");
		bw_expiry_say_add(c->expires, c->now, c->unexpired[i]);
		bw_out_close_object();
		added += c->fresh[i];
	}
	bw_out_close_array();
	bw_out_text("%s: ", c->a->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total", "%lld names added to filter ", c->a->npos);
	bw_out_u64("generation", "generation %llu\n", c->generation);
	bw_out_u64("added_kept", NULL, c->rec->nadded + c->rec->names.ndom);
	if (c->worst > 2 * c->target)
		pr_warn("%s: the name regions are now past their target false-positive rate (about %.3g%% where they were sized for %.3g%%): rebuild with 'bloomwall reload' to size them for the names\n",
			c->a->iface, c->worst * 100, c->target * 100);
}

/* Whether name i had an expiry in rec that this add (no --timeout) ends. */
static bool unexpired(const struct name_ctx *c, const struct bw_records *rec,
		      size_t i)
{
	const struct bw_domain *d = &c->names->dom[i];
	long k = bw_records_find_name(rec, bw_domain_name(c->names, d), d->len,
				      d->flags);

	return k >= 0 && rec->names_expires[k] && !c->expires;
}

/*
 * The names into rec with their expiry: a new timeout replaces the old
 * one, none makes the name permanent (as for addresses).
 */
static int keep_names(struct name_ctx *c, struct bw_records *rec)
{
	const struct bw_list *l = c->names;
	size_t i;

	for (i = 0; i < l->ndom; i++) {
		c->unexpired[i] = unexpired(c, rec, i);
		if (bw_records_add_name_until(
			    rec, bw_domain_name(l, &l->dom[i]), l->dom[i].len,
			    l->dom[i].flags, c->expires) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* In place, under the lock: 1 when the filter has no region for them. */
static int add_in_place(struct name_ctx *c)
{
	const struct bw_args *a = c->a;
	struct bw_edit e = { .edit = insert_names, .ctx = c, .allow_fd = -1 };
	struct bw_records rec;
	struct bw_running r;
	__u32 need;
	int err;

	bw_records_init(&rec);
	c->rec = &rec;
	err = bw_running_open(a->iface, a->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err && !fits_in_place(r.filter.mem, c->names))
		err = 1;
	if (!err)
		err = bw_running_records(&r, &rec);
	if (!err)
		err = keep_names(c, &rec);
	if (!err) {
		bw_prov_change(&rec, BW_CHANGE_ADD);
		need = bw_records_end(r.filter.mem, &rec);
		e.extra_blocks =
			need > r.filter.nblocks ? need - r.filter.nblocks : 0;
		err = bw_swap_running(&r, &e);
	}
	if (!err)
		say_names(c);
	bw_running_close(&r);
	bw_records_free(&rec);
	c->rec = NULL;
	return err;
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
static void say_kept(struct name_ctx *c, const struct bw_records *before)
{
	const struct bw_list *l = c->names;
	bool any = c->expires != 0;
	size_t i;

	for (i = 0; i < l->ndom; i++) {
		c->unexpired[i] = unexpired(c, before, i);
		any = any || c->unexpired[i];
	}
	if (!any)
		return;
	bw_out_open_array("names");
	for (i = 0; i < l->ndom && i < (size_t)c->a->npos; i++) {
		bw_out_open_object(NULL);
		bw_out_string("name", "%s  ", c->a->pos[i]);
		bw_out_string("result", "kept", "kept");
		bw_expiry_say_add(c->expires, c->now, c->unexpired[i]);
		bw_out_close_object();
	}
	bw_out_close_array();
}

/* A rebuild from the recorded lists with the names kept: as remove does. */
static int add_by_rebuild(struct name_ctx *c)
{
	const struct bw_args *a = c->a;
	struct bw_rebuild_req rq = { .iface = a->iface,
				     .ifindex = a->ifindex,
				     .add_names = c->names,
				     .add_names_expires = c->expires,
				     .before_reload = say_rebuilding,
				     .ctx = (void *)a };
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

/* With a watch running: handed to it, in place (ops/handover.h). */
static int add_by_watch(struct name_ctx *c)
{
	const struct bw_args *a = c->a;
	struct bw_handover_req rq = { .iface = a->iface,
				      .op = BW_HANDOVER_ADD,
				      .names = c->names,
				      .expires = c->expires };
	struct bw_handover_result res;
	size_t i;
	int added = 0, err;

	err = bw_handover(&rq, &res);
	if (err == -EXDEV)
		pr_debug(
			"%s: the watch does not add in place (%s): adding by a swap\n",
			a->iface, res.why);
	if (err)
		return err;
	bw_out_open_array("names");
	for (i = 0; i < c->names->ndom && i < (size_t)a->npos; i++) {
		bw_out_open_object(NULL);
		bw_out_string("name", "%s  ", a->pos[i]);
		bw_out_string("result", NULL,
			      (res.how[i] == BW_HOW_ALREADY) ? "already"
							     : "added");
		bw_out_text("%s", (res.how[i] == BW_HOW_ALREADY)
					  ? "already in the filter"
					  : "added");
		bw_expiry_say_add(c->expires, c->now, false);
		bw_out_close_object();
		added += !(res.how[i] == BW_HOW_ALREADY);
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total", "%lld names added in place by the watch",
		   (long long)c->names->ndom);
	bw_out_bool("in_place", " (no swap)\n", true);
	bw_handover_free(&res);
	return 0;
}

int bw_add_names(struct bw_args *a)
{
	struct name_ctx c = { .a = a };
	struct bw_list l;
	int lock, err;

	bw_list_init(&l);
	c.names = &l;
	c.now = bw_expiry_now();
	c.expires = a->timeout ? c.now + a->timeout : 0;
	err = bw_parse_names("add", a->pos, a->npos, true, &l);
	if (!err) {
		c.fresh = calloc(l.ndom ?: 1, sizeof(*c.fresh));
		c.unexpired = calloc(l.ndom ?: 1, sizeof(*c.unexpired));
		err = c.fresh && c.unexpired ? 0 : -ENOMEM;
	}
	if (!err)
		err = bw_check_privileges("add");
	if (!err) {
		err = add_by_watch(&c);
		if (!err)
			goto out;
		/* The swap below is right whatever the watch did: idempotent. */
		if (err != -ENOENT && err != -EXDEV)
			pr_warn("%s: the watch did not take the add (%s): adding by a swap\n",
				a->iface, bw_errno_hint(err));
		err = 0;
	}
	if (!err) {
		lock = bw_lock_acquire();
		err = lock < 0 ? lock : add_in_place(&c);
		bw_lock_release(lock);
	}
	if (err == 1)
		err = add_by_rebuild(&c);
out:
	free(c.fresh);
	free(c.unexpired);
	bw_list_free(&l);
	return err;
}
