// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Rebuilding the running filter from its recorded lists with changes
 * (rebuild.h): what remove does, and add when a name has no region.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/log.h"
#include "filter/live_room.h"
#include "filter/records.h"
#include "kernel/running.h"
#include "ops/rebuild.h"

/* The options the running filter was built with; not its seed. */
static void args_from_record(const struct bw_rec_build *rb,
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

/*
 * Whether the recorded lists can be read again (and, to grow it, the
 * filter is not an image's); says why not, and that then is the verb to
 * run again.
 */
static int check_rebuildable(const struct bw_rebuild_req *rq,
			     const struct bw_records *rec)
{
	const char *iface = rq->iface, *then = rq->remove ? "remove" : "add";
	int i;

	if (rq->room && rec->have_image) {
		pr_warn("%s: the running filter is an image's, loaded as it was built: it cannot grow here; build the image again with the entries in its lists, or load a larger one\n",
			iface);
		return -EPERM;
	}
	if (!rec->have_build || !rec->nlists) {
		pr_warn("%s: the running filter does not record the lists it was built from (an older bloomwall built it); run 'bloomwall reload %s LIST...' once, then %s\n",
			iface, iface, then);
		return -ENOENT;
	}
	for (i = 0; i < rec->nlists; i++) {
		if (strcmp(rec->lists[i], "-"))
			continue;
		pr_warn("%s: the running filter was built from standard input, which cannot be read again; run 'bloomwall reload %s LIST...' with files, then %s\n",
			iface, iface, then);
		return -EINVAL;
	}
	return 0;
}

/* Room for every kept add and those rq adds (rebuild.h's room). */
static void room_for_adds(const struct bw_records *rec,
			  const struct bw_entries *add, struct bw_live_room *r)
{
	const struct bw_entries *from[2] = { &rec->added, add };
	/* Under --subdomains every name is a subtree. */
	bool sub = rec->have_dns && (rec->dns.opts & BW_REC_DNS_SUBDOMAINS);
	const struct bw_entry *e;
	size_t i;
	int k;

	bw_room_init(r);
	for (k = 0; k < 2; k++)
		for (i = 0; from[k] && i < from[k]->n; i++) {
			e = &from[k]->v[i];
			if (bw_entry_is_name(e))
				bw_room_add_name(r, sub || (e->d.flags &
							    BW_DOM_SUBTREE));
			else
				bw_room_add(r, &e->p);
		}
}

/*
 * Whether any entry req takes out is one the filter keeps. rec is indexed
 * for it (without memory, scanned): the caller's lookups of each entry in
 * it cost O(1) too.
 */
static bool any_kept(const struct bw_rebuild_req *rq, struct bw_records *rec)
{
	size_t i;

	bw_entries_index(&rec->added);
	for (i = 0; i < rq->remove->n; i++)
		if (bw_records_find(rec, bw_entries_key(rq->remove, i)) >= 0)
			return true;
	return false;
}

/* r stays open for the reload, which builds on it. */
static int read_running(const struct bw_rebuild_req *rq, struct bw_running *r,
			struct bw_rebuild_result *res)
{
	int err;

	err = bw_running_open(rq->iface, rq->ifindex, 0, r);
	if (err)
		return err;
	err = bw_running_need_filter(r) ?: bw_running_records(r, &res->rec);
	if (!err)
		res->generation = bw_running_info(r)->generation;
	res->read = !err;
	return err;
}

int bw_rebuild(const struct bw_rebuild_req *rq, struct bw_rebuild_result *res)
{
	struct bw_build_args ba;
	struct bw_reload_req r = { .iface = rq->iface,
				   .ifindex = rq->ifindex,
				   .args = &ba,
				   .remove = rq->remove,
				   .add = rq->add,
				   .owner = rq->owner };
	struct bw_live_room room;
	struct bw_running run;
	int err;

	memset(res, 0, sizeof(*res));
	bw_records_init(&res->rec);
	err = read_running(rq, &run, res);
	if (!err && rq->remove && !any_kept(rq, &res->rec))
		err = -ENOENT;
	if (!err)
		err = check_rebuildable(rq, &res->rec);
	if (!err && rq->before_reload)
		rq->before_reload(rq->ctx);
	if (!err) {
		args_from_record(&res->rec.build, &ba);
		r.lists = (const char *const *)res->rec.lists;
		r.nlists = res->rec.nlists;
		r.running = &run;
		if (rq->room) {
			room_for_adds(&res->rec, rq->add, &room);
			r.room = &room;
		}
		res->reloaded = true;
		err = bw_reload(&r, &res->reload);
	}
	bw_running_close(&run);
	return err;
}

void bw_rebuild_result_free(struct bw_rebuild_result *res)
{
	bw_records_free(&res->rec);
}
