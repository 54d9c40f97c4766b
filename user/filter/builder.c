// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The filter builder: lists -> merged, expanded keys -> a planned filter ->
 * its bytes. No bpf() calls (see builder.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "filter/bloom_names.h"
#include "filter/bloom_size.h"
#include "filter/build_records.h"
#include "filter/builder.h"
#include "filter/provenance.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "lists/list_load.h"
#include "lists/names.h"

/*
 * The files, then more entries (NULL: none); sorted and de-duplicated if
 * finish; src (NULL: not wanted) gets what each file was (provenance.h).
 */
static int load_files(const char *const *files, int n,
		      const struct bw_list_opts *lo,
		      const struct bw_entries *more, bool finish,
		      struct bw_list *l, struct bw_rec_source *src)
{
	const struct bw_entry *e;
	size_t j;
	int i, err;

	/* Each failure, read errors included, was said with its file name. */
	for (i = 0; i < n; i++) {
		err = src ? bw_prov_load(l, files[i], lo, &src[i])
			  : bw_list_load(l, files[i], lo);
		if (err)
			return err;
	}
	for (j = 0; more && j < more->n; j++) {
		e = &more->v[j];
		err = bw_entry_is_name(e)
			      ? bw_domain_push(l, bw_entry_name(more, e),
					       e->d.len, e->d.flags)
			      : bw_list_push(l, &e->p);
		if (err) {
			pr_warn("bloomwall: no memory for the entries added at run time\n");
			return err;
		}
	}
	if (finish)
		bw_list_finish(l);
	return 0;
}

void bw_build_free(struct bw_build *b)
{
	bw_list_free(&b->keys);
	bw_list_free(&b->exact);
	bw_list_free(&b->allow_names);
	bw_records_free(&b->rec);
}

static void explain_plan_error(int err, const struct bw_build_req *req)
{
	if (err == -E2BIG)
		pr_warn("%s: the filter would exceed %u blocks (%u MiB); use fewer entries, a higher --fpr or fewer target lengths (--max-lengths)\n",
			req->label, BW_MAX_BLOCKS,
			(unsigned int)((BW_MAX_BLOCKS *
					(__u64)BW_BLOCK_BYTES) >>
				       20));
	else
		pr_warn("%s: cannot size the filter: %s\n", req->label,
			strerror(-err));
}

/* A /0 after merging is the whole family: say so, it is rarely meant. */
static void warn_everything(const struct bw_build_req *req,
			    struct bw_build_summary *sum,
			    const struct bw_cidr_stats *st)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		sum->everything[f] =
			st->fam[f].merged && st->fam[f].shortest == 0;
		if (sum->everything[f])
			pr_warn("warning: %s: the lists hold %s: the filter drops every %s packet\n",
				req->label, f == BW_V4 ? "0.0.0.0/0" : "::/0",
				f == BW_V4 ? "IPv4" : "IPv6");
	}
}

/*
 * Whether the adds stay out of the blocks. Not in verify mode: the exact
 * trie is built from the same entries, and a live entry has no place in
 * it (the watch keeps such a filter's adds built in).
 */
static bool adds_live(const struct bw_build_req *req)
{
	return req->adds_live && !(req->opts.flags & BW_F_VERIFY);
}

/*
 * The adds a watch sets live (adds_live) count as the filter's entries
 * once it has: keys at their target lengths, as 'add' counts them.
 */
static void count_live_adds(const struct bw_build_req *req, struct bw_plan *p)
{
	struct bw_add_plan ap;
	size_t i;

	for (i = 0; adds_live(req) && req->added && i < req->added->n; i++) {
		if (bw_entry_is_name(&req->added->v[i]) ||
		    bw_add_plan(&p->hdr, &req->added->v[i].p, &ap))
			continue;
		p->info.entries += ap.nkeys;
		p->info.region_entries[ap.region] += ap.nkeys;
		p->info.source_entries++;
	}
}

/* The keys of the entries added at run time, built in or live. */
static __u64 added_keys(const struct bw_build_req *req, const struct bw_plan *p)
{
	const struct bw_entry *e;
	struct bw_add_plan ap;
	__u64 n = 0;
	size_t i;

	for (i = 0; req->added && i < req->added->n; i++) {
		e = &req->added->v[i];
		/* Names built in are one key each; live ones not counted. */
		if (bw_entry_is_name(e))
			n += !adds_live(req);
		else if (!bw_add_plan(&p->hdr, &e->p, &ap))
			n += ap.nkeys;
	}
	return n;
}

int bw_plan_filter(const struct bw_list *l, const struct bw_build_opts *o,
		   struct bw_plan *plan)
{
	int err;

	err = bw_plan_prefixes(l, o, plan);
	if (err)
		return err;
	err = bw_plan_names(l, o, plan);
	if (err)
		return err;
	plan->info.entries = l->n4 + l->n6;
	plan->info.source_entries = l->n4 + l->n6;
	bw_info_set_fpr(&plan->info, o->fpr);
	return 0;
}

void bw_fill_filter(void *mem, const struct bw_plan *plan,
		    const struct bw_list *l)
{
	memcpy(mem, &plan->hdr, sizeof(plan->hdr));
	memcpy(bw_block_at(mem, 1), &plan->info, sizeof(plan->info));
	bw_fill_prefixes(mem, l);
	bw_fill_names(mem, plan, l);
}

static int plan(const struct bw_build_req *req, const struct bw_cidr_stats *st,
		struct bw_build *b)
{
	int err;

	err = bw_plan_filter(&b->keys, &req->opts, &b->plan);
	if (err) {
		explain_plan_error(err, req);
		return err;
	}
	b->plan.info.generation = req->generation;
	b->plan.info.source_entries =
		st->fam[BW_V4].source + st->fam[BW_V6].source;
	b->plan.hdr.exact_slot = req->exact_slot;
	count_live_adds(req, &b->plan);
	b->sum.source_entries = b->plan.info.source_entries;
	b->sum.merged = st->fam[BW_V4].merged + st->fam[BW_V6].merged;
	b->sum.entries = b->plan.info.entries;
	b->sum.added_keys = added_keys(req, &b->plan);
	return 0;
}

/*
 * The domain entries move from the loaded list (which becomes the exact
 * trie's, or goes) to the keys the filter is planned from; the allow
 * entries are copied out for the name allowlist.
 */
static int take_names(const struct bw_build_req *req, struct bw_build *b)
{
	struct bw_list *from = &b->exact, *to = &b->keys;
	size_t i;
	int err = 0;

	bw_domains_count(from, &b->sum.names);
	b->sum.local = from->local;
	for (i = 0; !err && i < from->ndom; i++)
		if (from->dom[i].flags & BW_DOM_ALLOW)
			err = bw_domain_push(
				&b->allow_names,
				bw_domain_name(from, &from->dom[i]),
				from->dom[i].len, from->dom[i].flags);
	if (err) {
		pr_warn("%s: no memory for the allow entries\n", req->label);
		return -ENOMEM;
	}
	to->dom = from->dom;
	to->ndom = from->ndom;
	to->capdom = from->capdom;
	to->names = from->names;
	to->names_len = from->names_len;
	to->names_cap = from->names_cap;
	from->dom = NULL;
	from->names = NULL;
	from->ndom = from->capdom = from->names_len = from->names_cap = 0;
	return 0;
}

/*
 * The key cap: what the largest filter holds at this rate, unless the
 * caller set a lower one. why gets what the cap is, for its message.
 */
static void key_cap(const struct bw_build_req *req, struct bw_cidr_opts *co,
		    char *why, size_t len)
{
	unsigned int mib =
		(unsigned int)(((__u64)BW_MAX_BLOCKS * BW_BLOCK_BYTES) >> 20);
	__u64 fit = bw_size_max_keys(req->opts.fpr);

	if (co->max_keys && co->max_keys < BW_CIDR_MAX_KEYS)
		return;
	co->max_keys = BW_CIDR_MAX_KEYS;
	co->cap_why = why;
	if (fit && fit < BW_CIDR_MAX_KEYS) {
		co->max_keys = fit;
		snprintf(
			why, len,
			"what the largest filter, %u blocks (%u MiB), holds at --fpr %g%%",
			BW_MAX_BLOCKS, mib, req->opts.fpr * 100);
		return;
	}
	snprintf(
		why, len,
		"2^31 keys, 16 GiB of IPv4 keys while building; the largest filter is %u blocks (%u MiB)",
		BW_MAX_BLOCKS, mib);
}

/*
 * The added names (unless a watch keeps them live), then --subdomains,
 * before the list is finished.
 */
static int load_all(const struct bw_build_req *req, struct bw_build *b,
		    const struct bw_list_opts *lo, struct bw_rec_source *src)
{
	size_t ndom;
	int err;

	/* Adds a watch keeps live: in the records, not in the blocks. */
	err = load_files(req->lists, req->nlists, lo,
			 adds_live(req) ? NULL : req->added, false, &b->exact,
			 src);
	if (!err && req->subdomains)
		bw_domains_subtree(&b->exact);
	if (err)
		return err;
	/* Duplicate names are counted apart from duplicate prefixes. */
	ndom = b->exact.ndom;
	bw_list_finish(&b->exact);
	b->sum.name_duplicates = ndom - b->exact.ndom;
	return 0;
}

/* The room to choose target lengths and size for: req's, adds kept live. */
static bool want_room(const struct bw_build_req *req, struct bw_live_room *r)
{
	const struct bw_entry *e;
	size_t i;

	bw_room_init(r);
	if (req->room)
		*r = *req->room;
	for (i = 0; adds_live(req) && req->added && i < req->added->n; i++) {
		e = &req->added->v[i];
		if (bw_entry_is_name(e))
			bw_room_add_name(r,
					 req->subdomains ||
						 (e->d.flags & BW_DOM_SUBTREE));
		else
			bw_room_add(r, &e->p);
	}
	return bw_room_any(r);
}

/* Lists and room: target lengths for both, the keys of the lists. */
static int prepare(const struct bw_build_req *req, struct bw_build *b,
		   struct bw_build_req *rq, struct bw_cidr_stats *st,
		   __u64 room[BW_FAMILIES][BW_CIDR_MAXW + 1])
{
	__u64 extra[BW_FAMILIES][BW_CIDR_MAXW + 1];
	struct bw_cidr_opts co = req->cidr;
	struct bw_live_room r;
	bool with_room = want_room(req, &r);
	char why[160];
	int f, err;

	key_cap(req, &co, why, sizeof(why));
	for (f = 0; with_room && f < BW_NAME_REGIONS; f++)
		rq->opts.name_room[f] = bw_room_for(r.names[f]);
	/*
	 * A watch's filter (it keeps adds live, or asks for room) has name
	 * regions whatever its lists hold, so that the first name handed to
	 * it goes in place too (a DNS block costs only DNS packets a look).
	 */
	for (f = 0; (adds_live(req) || req->room) && f < BW_NAME_REGIONS; f++)
		if (rq->opts.name_room[f] < BW_LIVE_NAME_ROOM)
			rq->opts.name_room[f] = BW_LIVE_NAME_ROOM;
	if (with_room) {
		bw_room_extra(&r, co.max_lengths, extra);
		for (f = 0; f < BW_FAMILIES; f++)
			co.extra[f] = extra[f];
	}
	err = bw_cidr_prepare(&b->exact, &co, &b->keys, st);
	if (err && err != -E2BIG)
		pr_warn("%s: cannot expand the prefixes: %s\n", req->label,
			bw_errno_hint(err));
	if (err || !with_room)
		return err;
	bw_room_sizes(st, room);
	for (f = 0; f < BW_FAMILIES; f++)
		rq->opts.room[f] = room[f];
	return 0;
}

int bw_build_plan(const struct bw_build_req *req, struct bw_build *b)
{
	__u64 room[BW_FAMILIES][BW_CIDR_MAXW + 1];
	struct bw_list_opts lo = { .skip_invalid = req->skip_invalid,
				   .mask_host_bits = req->mask_host_bits,
				   .domains = true,
				   .threads = req->threads };
	struct bw_build_req rq = *req;
	struct bw_rec_source *src = calloc(req->nlists ?: 1, sizeof(*src));
	struct bw_cidr_stats st;
	int err;

	memset(b, 0, sizeof(*b));
	bw_list_init(&b->keys);
	bw_list_init(&b->exact);
	bw_list_init(&b->allow_names);
	/* Without memory for it, the filter is built without provenance. */
	err = load_all(req, b, &lo, src);

	if (!err)
		err = prepare(req, b, &rq, &st, room);
	if (!err)
		err = take_names(req, b);
	if (!err) {
		warn_everything(req, &b->sum, &st);
		/* An allow entry anywhere: the data path must consult the map. */
		rq.opts.dns_flags &= (__u8)~BW_DNS_F_ALLOW;
		if (req->allow_names || b->allow_names.ndom)
			rq.opts.dns_flags |= BW_DNS_F_ALLOW;
		err = plan(&rq, &st, b);
	}
	if (!err)
		err = bw_build_records(req, src, &b->rec);
	if (!err)
		bw_build_record_sized(&b->plan, &b->rec);
	free(src);
	b->sum.duplicates = b->exact.duplicates - b->sum.name_duplicates;
	b->sum.skipped = b->exact.skipped;
	/*
	 * Verify mode: the exact trie holds the merged prefixes (as few
	 * entries as cover the lists exactly), not the expanded keys.
	 */
	if (!err && (req->opts.flags & BW_F_VERIFY))
		bw_cidr_merge(&b->exact, NULL);
	else
		bw_list_free(&b->exact);
	if (err)
		bw_build_free(b);
	return err;
}

__u32 bw_build_blocks(const struct bw_build *b)
{
	return b->plan.nblocks + bw_records_blocks(&b->rec);
}

__u32 bw_build_map_blocks(const struct bw_build *b)
{
	return bw_build_blocks(b) + bw_records_room(&b->rec);
}

void bw_build_fill(const struct bw_build *b, void *mem)
{
	bw_fill_filter(mem, &b->plan, &b->keys);
	/* Sized by bw_build_blocks: it fits. */
	bw_records_write(mem, bw_build_blocks(b), &b->rec);
}

void bw_build_figures_get(const struct bw_build_req *req,
			  const struct bw_build *b, struct bw_build_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->label = req->label;
	f->plan = b->plan;
	f->sum = b->sum;
	f->fpr = req->opts.fpr;
	f->dns_action = req->opts.dns_action;
	f->dns_ttl = req->opts.dns_ttl;
	f->subdomains = req->subdomains;
}

__u64 bw_build_figures_entries(const struct bw_build_figures *f)
{
	return f->image ? f->plan.info.entries : f->sum.entries;
}

bool bw_build_figures_empty(const struct bw_build_figures *f)
{
	return !f->sum.entries && !f->sum.names.exact && !f->sum.names.subtree;
}

int bw_load_allow(const char *label, const char *const *files, int n,
		  bool mask_host_bits, struct bw_list *l)
{
	return bw_load_allow_src(label, files, n, mask_host_bits, l, NULL);
}

int bw_load_allow_src(const char *label, const char *const *files, int n,
		      bool mask_host_bits, struct bw_list *l,
		      struct bw_rec_source *src)
{
	struct bw_list_opts lo = { .mask_host_bits = mask_host_bits,
				   .domains = true };
	int err;

	err = load_files(files, n, &lo, NULL, true, l, src);
	if (err) {
		pr_warn("%s: the allowlist is not usable; nothing changed\n",
			label);
		return err;
	}
	if (l->n4 + l->n6 > BW_ALLOW_MAX) {
		pr_warn("%s: the allowlist holds %'zu entries, more than the %'u it can hold\n",
			label, l->n4 + l->n6, BW_ALLOW_MAX);
		return -E2BIG;
	}
	return 0;
}
