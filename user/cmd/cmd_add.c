// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall add IFACE ADDR|CIDR...: sets the entries' bits in a copy of
 * the running filter, a prefix as the keys that cover it at one of the
 * filter's target lengths, records the entries in the copy's record area
 * (records.h) and swaps the copy in: the entries and their record go in
 * together or not at all, and every later rebuild builds them in. With
 * --timeout each records when it ends (BW_REC_ADDED_EXPIRES): a rebuild
 * after that leaves it out, a running watch takes it out in place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/bloom.h"
#include "filter/bloom_add.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "lists/cidr.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/cmd_add.h"
#include "cmd/cmd_add_names.h"
#include "lists/list.h"
#include "lists/names.h"
#include "base/log.h"
#include "base/output.h"
#include "kernel/lpm.h"
#include "kernel/lock.h"
#include "kernel/pin.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "ops/reload.h"
#include "ops/handover.h"
#include "kernel/running.h"
#include "out/expiry_view.h"

/* All or nothing: every entry must fit before any bit is set. */
static int plan_all(const struct bw_args *a, const void *mem,
		    const struct bw_prefix *keys, struct bw_add_plan *plan)
{
	const char *fam;
	int i, err;

	for (i = 0; i < a->npos; i++) {
		fam = keys[i].family == BW_V4 ? "IPv4" : "IPv6";
		/*
		 * A /0 is every address: attach and reload warn of it after
		 * merging, but add would set it at once, one mistyped
		 * argument away from dropping a whole family.
		 */
		if (!keys[i].plen) {
			pr_warn("%s: %s is every %s address: adding it would drop every %s packet; if that is really meant, put it in a LIST and use 'bloomwall reload'\n",
				a->iface, a->pos[i], fam, fam);
			return -EINVAL;
		}
		err = bw_add_plan(mem, &keys[i], &plan[i]);
		if (err == -ENOENT)
			pr_warn("%s: the running filter has no %s target length of /%u or longer, so %s cannot be added without blocking more than it says; add it through 'bloomwall reload'\n",
				a->iface, fam, keys[i].plen, a->pos[i]);
		else if (err)
			pr_warn("%s: %s would take 2^%u keys at the filter's %s target length /%u (at most %u in place); add it through 'bloomwall reload'\n",
				a->iface, a->pos[i],
				plan[i].tlen - keys[i].plen, fam, plan[i].tlen,
				BW_ADD_MAX_KEYS);
		if (err)
			return err;
	}
	return 0;
}

/* What add does to the copy of the running filter, and what it found. */
struct add_ctx {
	const struct bw_args *a;
	const struct bw_prefix *keys;
	const struct bw_add_plan *plan;
	__u32 *fresh;	 /* per entry: keys that set a bit */
	bool *unexpired; /* per entry: it had an expiry, an add without ended it */
	const struct bw_records *rec; /* the copy's records, entries added */
	__u64 expires, now; /* --timeout: when they end (0: never), and now */
	double worst;	    /* highest estimated rate of a region touched */
	__u64 generation, entries;
};

/*
 * Bits added raise the false-positive rate above what the filter was
 * sized for: the worst estimate of the regions touched.
 */
static double worst_fpr(const struct add_ctx *c, const void *mem)
{
	bool touched[BW_REGIONS] = { false };
	double fpr, worst = 0.0;
	__u64 set, total;
	int i;

	for (i = 0; i < c->a->npos; i++)
		touched[c->plan[i].region] = true;
	/* One pass over each region: a big filter has millions of blocks. */
	for (i = 0; i < BW_REGIONS; i++) {
		if (!touched[i])
			continue;
		bw_region_fill(mem, i, &set, &total, &fpr);
		if (fpr > worst)
			worst = fpr;
	}
	return worst;
}

static int insert_all(void *mem, __u32 nblocks, void *arg)
{
	struct add_ctx *c = arg;
	struct bw_info *info = (void *)((char *)mem + BW_BLOCK_BYTES);
	int i, added = 0;

	for (i = 0; i < c->a->npos; i++) {
		c->fresh[i] = bw_add_insert(mem, &c->keys[i], &c->plan[i]);
		if (!c->fresh[i])
			continue;
		added++;
		info->region_entries[c->plan[i].region] += c->fresh[i];
		info->entries += c->fresh[i];
	}
	info->source_entries += added;
	c->generation = info->generation;
	/* Sized for it by add_locked: cannot fail. */
	if (bw_records_write(mem, nblocks, c->rec))
		return -E2BIG;
	c->entries = info->entries;
	c->worst = added ? worst_fpr(c, mem) : 0.0;
	return 0;
}

/*
 * "ADDR  added" (or why not); JSON {address, result, keys, new_keys,
 * prefix, expires, expires_in}.
 */
static void say_entry(const struct add_ctx *c, int i)
{
	const struct bw_add_plan *ap = &c->plan[i];
	const char *addr = c->a->pos[i];
	__u32 fresh = c->fresh[i];

	bw_out_open_object(NULL);
	bw_out_string("address", "%s  ", addr);
	bw_out_string("result", NULL, fresh ? "added" : "already");
	bw_out_u64("keys", NULL, ap->nkeys);
	bw_out_u64("new_keys", NULL, fresh);
	bw_out_u64("prefix", NULL, ap->tlen);
	if (!fresh)
		bw_out_text("already in the filter");
	else if (ap->nkeys == 1)
		bw_out_text("added");
	else
		bw_out_text("added (%u of its %u keys at /%u were new)", fresh,
			    ap->nkeys, ap->tlen);
	bw_expiry_say_add(c->expires, c->now, c->unexpired[i]);
	bw_out_close_object();
}

static void say_added(const struct add_ctx *c, const struct bw_info *before)
{
	const struct bw_args *a = c->a;
	double target = bw_info_fpr(before);
	int i, added = 0;

	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		say_entry(c, i);
		added += c->fresh[i] > 0;
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total", "%lld added to filter ", a->npos);
	bw_out_u64("generation", "generation %llu", c->generation);
	bw_out_u64("entries", " (now %'llu entries)\n", c->entries);
	bw_out_u64("added_kept", NULL, c->rec->nadded);
	/* Past twice its target, the operator should rebuild. */
	if (c->worst > 2 * target)
		pr_warn("%s: the filter is now past its target false-positive rate (about %.3g%% where it was sized for %.3g%%): rebuild it with 'bloomwall reload' and the entries in a LIST\n",
			a->iface, c->worst * 100, target * 100);
}

/*
 * Verify mode: the running exact trie must know the keys before their bits
 * are set, or the data path would count their packets as false positives.
 * It is changed in place: until the swap, a key added to it changes a
 * verdict only for an address the running Bloom filter already hits by
 * chance (a false positive of it that the trie now confirms).
 */
static int add_exact(const struct bw_running *r, const struct bw_args *a,
		     const struct bw_prefix *keys)
{
	struct bw_list l;
	int fd, i, err;

	if (!(r->prog_hdr.flags & BW_F_VERIFY))
		return 0;
	fd = bw_exact_open(r->maps.exact, r->prog_hdr.exact_slot);
	if (fd < 0) {
		pr_warn("%s: verify mode, but its exact trie is gone: %s; run 'bloomwall reload %s --verify LIST...'\n",
			a->iface, bw_errno_hint(fd), a->iface);
		return fd;
	}
	bw_list_init(&l);
	err = 0;
	for (i = 0; i < a->npos && !err; i++)
		err = bw_list_push(&l, &keys[i]);
	if (!err)
		err = bw_lpm_fill(fd, &l);
	if (err)
		pr_warn("%s: cannot add to the exact trie: %s; nothing added\n",
			a->iface, bw_errno_hint(err));
	bw_list_free(&l);
	close(fd);
	return err;
}

/*
 * The running filter's records with every entry asked for (those already
 * in the filter too: a false positive of this filter may not be one of
 * the next build), and the blocks the copy needs beyond the running one's.
 */
static int keep_entries(const struct add_ctx *c, const struct bw_running *r,
			struct bw_records *rec, __u32 *extra)
{
	__u32 need;
	int i, err;
	long k;

	err = bw_running_records(r, rec);
	/* A new timeout replaces the old one; none makes it permanent. */
	for (i = 0; !err && i < c->a->npos; i++) {
		k = bw_records_find(rec, &c->keys[i]);
		c->unexpired[i] =
			k >= 0 && rec->added_expires[k] && !c->expires;
		err = bw_records_add_until(rec, &c->keys[i], c->expires) < 0
			      ? -ENOMEM
			      : 0;
	}
	if (err)
		return err;
	bw_prov_change(rec, BW_CHANGE_ADD);
	need = bw_records_end(r->filter.mem, rec);
	*extra = need > r->filter.nblocks ? need - r->filter.nblocks : 0;
	return 0;
}

/* Under the lock: plan against the running filter, change a copy, swap. */
static int add_locked(struct add_ctx *c, struct bw_add_plan *plan)
{
	const struct bw_args *a = c->a;
	struct bw_edit e = { .edit = insert_all, .ctx = c, .allow_fd = -1 };
	struct bw_records rec;
	struct bw_running r;
	struct bw_info before;
	int err;

	bw_records_init(&rec);
	c->rec = &rec;
	err = bw_running_open(a->iface, a->ifindex, BW_RUN_REPAIR, &r);
	if (!err)
		err = bw_running_need_filter(&r);
	if (!err)
		err = plan_all(a, r.filter.mem, c->keys, plan);
	if (!err)
		err = keep_entries(c, &r, &rec, &e.extra_blocks);
	if (!err)
		err = add_exact(&r, a, c->keys);
	if (!err) {
		before = *bw_running_info(&r);
		err = bw_swap_running(&r, &e);
	}
	if (!err)
		say_added(c, &before);
	bw_running_close(&r);
	bw_records_free(&rec);
	return err;
}

/*
 * With a watch running: handed to it, in place (ops/handover.h). 0 when
 * done; -ENOENT or -EXDEV when the CLI adds them itself.
 */
static int add_by_watch(const struct add_ctx *c)
{
	const struct bw_args *a = c->a;
	struct bw_handover_req rq = { .iface = a->iface,
				      .op = BW_HANDOVER_ADD,
				      .p = c->keys,
				      .n = (size_t)a->npos,
				      .expires = c->expires };
	struct bw_handover_result res;
	int i, added = 0, err;

	err = bw_handover(&rq, &res);
	if (err == -EXDEV)
		pr_debug(
			"%s: the watch does not add in place (%s): adding by a swap\n",
			a->iface, res.why);
	if (err)
		return err;
	bw_out_open_array("addresses");
	for (i = 0; i < a->npos; i++) {
		bw_out_open_object(NULL);
		bw_out_string("address", "%s  ", a->pos[i]);
		bw_out_string("result", NULL,
			      (res.how[i] == BW_HOW_ALREADY) ? "already"
							     : "added");
		bw_out_text((res.how[i] == BW_HOW_ALREADY)
				    ? "already in the filter"
				    : "added");
		bw_expiry_say_add(c->expires, c->now, false);
		bw_out_close_object();
		added += !(res.how[i] == BW_HOW_ALREADY);
	}
	bw_out_close_array();
	bw_out_text("%s: ", a->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total", "%lld added in place by the watch", a->npos);
	bw_out_bool("in_place", " (no swap)\n", true);
	bw_handover_free(&res);
	return 0;
}

static const struct bw_opt add_only_opts[] = {
	{ "timeout", BW_OPT_TIMEOUT, "DURATION",
	  "the entries or names expire after DURATION (30s, 5m, 4h, 7d, 1h30m; 0: never)" },
	{ 0 },
};

static const struct bw_opt *const add_opts[] = { add_only_opts, NULL };

static int do_add(struct bw_args *a)
{
	struct add_ctx c = { .a = a };
	struct bw_prefix *keys = NULL;
	struct bw_add_plan *plan = NULL;
	int lock, err;

	bw_out_string("iface", NULL, a->iface);
	if (bw_arg_is_name(a->pos[0]))
		return bw_add_names(a);
	c.now = bw_expiry_now();
	c.expires = a->timeout ? c.now + a->timeout : 0;
	err = bw_parse_addrs("add", a->pos, a->npos, &keys);
	if (err)
		return err;
	plan = calloc(a->npos, sizeof(*plan));
	c.fresh = calloc(a->npos, sizeof(*c.fresh));
	c.unexpired = calloc(a->npos, sizeof(*c.unexpired));
	c.keys = keys;
	c.plan = plan;
	err = plan && c.fresh && c.unexpired ? 0 : -ENOMEM;
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
		err = lock < 0 ? lock : add_locked(&c, plan);
		bw_lock_release(lock);
	}
out:
	free(c.fresh);
	free(c.unexpired);
	free(plan);
	free(keys);
	return err;
}

const struct bw_verb bw_verb_add = {
	.name = "add",
	.summary = "add addresses, or names, to the running filter on IFACE",
	.details =
		"No rebuild from the lists: the addresses' bits are set in a copy of the\n"
		"running filter, which replaces it in one step (a killed add changes\n"
		"nothing), and its entry count grows. The entries are kept with the filter:\n"
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
		"permanent. status and query show what expires when.\n",
	.opts = add_opts,
	.pos = { .rest = "ADDR|CIDR|NAME", .min_rest = 1, .rest_many = true },
	.run = do_add,
};
