// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query --why, the answer: the running filter's verdict for one target
 * explained from what the list scan found (why.c), the entries added at
 * run time, the allowlist, and, for a Bloom hit that nothing covers, the
 * false positive it is, with its region's estimated rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "bloom.h"
#include "log.h"
#include "lpm.h"
#include "output.h"
#include "running.h"
#include "why.h"

static const char *hit_note(const struct bw_why_hit *h, char *buf, size_t len)
{
	if (h->allow)
		snprintf(buf, len, " [allow entry for %s%s]",
			 h->subtree ? "the subtree of " : "", h->entry);
	else if (h->subtree)
		snprintf(buf, len, " [subtree of %s: suffix %s matched]",
			 h->entry, h->suffix);
	else if (h->entry[0] && strcmp(h->entry, h->text))
		snprintf(buf, len, " [covers it: %s]", h->entry);
	else
		buf[0] = '\0';
	return buf;
}

/* "  why: FILE:LINE: TEXT [...]"; JSON the array "entries". */
static size_t out_entries(const struct bw_why *w, int i)
{
	const struct bw_why_hit *h;
	const struct bw_why_list *l;
	char note[2 * BW_NAME_MAX + 64];
	size_t k, n = 0;
	bool changed;

	bw_out_open_array("entries");
	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		if (h->target != i)
			continue;
		l = &w->lists[h->list];
		changed = l->state == BW_PROV_CHANGED;
		bw_out_text("  why: %s:%llu: %s%s%s\n", l->path,
			    (unsigned long long)h->line, h->text,
			    hit_note(h, note, sizeof(note)),
			    changed ? " [list changed since the build: "
				      "line of the file as it is now]"
				    : "");
		bw_out_open_object(NULL);
		bw_out_string("file", NULL, l->path);
		bw_out_u64("line", NULL, h->line);
		bw_out_string("text", NULL, h->text);
		bw_out_string("entry", NULL, h->entry);
		bw_out_bool("list_changed", NULL, changed);
		if (w->t[i].is_name) {
			bw_out_string("match", NULL,
				      h->subtree ? "subtree" : "exact");
			bw_out_string("suffix", NULL,
				      h->subtree ? h->suffix : "");
			bw_out_bool("allow", NULL, h->allow);
		}
		bw_out_close_object();
		n++;
	}
	bw_out_close_array();
	return n;
}

/* The runtime adds that cover a: "  why: added at run time: P". */
static size_t out_added(const struct bw_records *rec, const struct bw_prefix *a)
{
	char buf[64];
	size_t k, n = 0;

	bw_out_open_array("added");
	for (k = 0; rec && k < rec->nadded; k++) {
		if (!bw_why_covers(&rec->added[k], a))
			continue;
		bw_prefix_str(&rec->added[k], buf, sizeof(buf));
		bw_out_string(NULL, "  why: added at run time: %s", buf);
		bw_out_text(
			" (bloomwall add; 'bloomwall remove' takes it out)\n");
		n++;
	}
	bw_out_close_array();
	return n;
}

/* The running allowlist's entries that cover a. */
static size_t out_allow(const struct bw_running *rn, const struct bw_prefix *a)
{
	struct bw_prefix e;
	struct bw_list l;
	char buf[64];
	size_t k, n = 0;

	bw_out_open_array("allowlist");
	bw_list_init(&l);
	if (!(rn->prog_hdr.flags & BW_F_ALLOW) ||
	    bw_allow_read(rn->maps.allow, &l))
		goto out;
	for (k = 0; a->family == BW_V4 && k < l.n4; k++) {
		e = (struct bw_prefix){ .family = BW_V4,
					.lo = bw_v4key_addr(l.v4[k]),
					.plen = (__u8)bw_v4key_plen(l.v4[k]) };
		if (!bw_why_covers(&e, a))
			continue;
		bw_prefix_str(&e, buf, sizeof(buf));
		bw_out_string(NULL, "  why: allowlisted: %s", buf);
		bw_out_text(" in the running allowlist (never dropped)\n");
		n++;
	}
	for (k = 0; a->family == BW_V6 && k < l.n6; k++) {
		e = (struct bw_prefix){ .family = BW_V6,
					.hi = l.v6[k].hi,
					.lo = l.v6[k].lo,
					.plen = (__u8)l.v6[k].plen };
		if (!bw_why_covers(&e, a))
			continue;
		bw_prefix_str(&e, buf, sizeof(buf));
		bw_out_string(NULL, "  why: allowlisted: %s", buf);
		bw_out_text(" in the running allowlist (never dropped)\n");
		n++;
	}
out:
	bw_list_free(&l);
	bw_out_close_array();
	return n;
}

/* How far the lists could be searched. */
enum { SEARCHED_AS_BUILT, SEARCHED_AS_NOW, NOT_ALL_SEARCHED };

/* Lists not read as they were built: said once per target. */
static int out_lists(const struct bw_why *w)
{
	const struct bw_why_list *l;
	int k, doubt = SEARCHED_AS_BUILT;

	bw_out_open_array("lists");
	for (k = 0; k < w->nlists; k++) {
		l = &w->lists[k];
		bw_out_open_object(NULL);
		bw_out_string("path", NULL, l->path);
		bw_out_string("state", NULL, bw_prov_state_name(l->state));
		bw_out_close_object();
		if (l->state == BW_PROV_UNCHANGED)
			continue;
		if (l->state == BW_PROV_CHANGED ||
		    l->state == BW_PROV_UNKNOWN) {
			if (doubt == SEARCHED_AS_BUILT)
				doubt = SEARCHED_AS_NOW;
		} else {
			doubt = NOT_ALL_SEARCHED;
		}
		if (l->state == BW_PROV_CHANGED)
			bw_out_text(
				"  note: %s changed since the build: answered from the file as it is now\n",
				l->path);
		else if (l->state == BW_PROV_UNKNOWN)
			bw_out_text(
				"  note: %s: the filter does not record what it was (an older bloomwall built it): answered from the file as it is now\n",
				l->path);
		else if (l->state == BW_PROV_STDIN)
			bw_out_text(
				"  note: a list was read from standard input: it cannot be read again, not searched\n");
		else
			bw_out_text("  note: %s is %s now: not searched\n",
				    l->path, bw_prov_state_name(l->state));
	}
	bw_out_close_array();
	return doubt;
}

/*
 * A filter that records no lists: a hit cannot be told from a false
 * positive.
 */
static void out_no_lists(void)
{
	bw_out_null("false_positive", NULL);
	bw_out_text(
		"  why: the filter records no lists (an older bloomwall built it, or its records are unreadable): a listed entry cannot be told from a false positive; 'bloomwall reload' records them\n");
}

/*
 * The verdict on a hit that no entry covers, in the region where says
 * (its estimated rate fpr, per: what the rate is of): undecided while a
 * list could not be searched (an entry there cannot be ruled out), else a
 * false positive. Returns whether it was called one.
 */
static bool out_fp_claim(int doubt, const char *where, const char *per,
			 double fpr)
{
	if (doubt == NOT_ALL_SEARCHED) {
		bw_out_null("false_positive", NULL);
		bw_out_text(
			"  why: no entry in the lists searched: listed in one not searched, or a false positive of the Bloom filter (%s, estimated rate %.2g %%%s)\n",
			where, fpr * 100, per);
		return false;
	}
	bw_out_bool("false_positive", NULL, true);
	bw_out_text(
		"  why: false positive of the Bloom filter (%s, estimated rate %.2g %%%s): no list entry covers it\n",
		where, fpr * 100, per);
	return true;
}

/* A Bloom hit that no entry covers. */
static void out_false_positive(const struct bw_running *rn, int region,
			       int doubt, bool allowed, const char *arg)
{
	const struct bw_hdr *hdr = &rn->prog_hdr;
	unsigned int plen =
		hdr->plen[region / BW_MAX_LENGTHS][region % BW_MAX_LENGTHS];
	char where[32];
	__u64 set, total;
	double fpr;

	bw_region_fill(rn->filter.mem, region, &set, &total, &fpr);
	bw_out_u64("region_prefix", NULL, plen);
	bw_out_double("estimated_fpr", NULL, fpr);
	snprintf(where, sizeof(where), "region /%u", plen);
	if (!out_fp_claim(doubt, where, "", fpr))
		return;
	if (doubt == SEARCHED_AS_NOW)
		bw_out_text(
			"  note: a list was searched as it is now, not as it was built: an entry since removed from it would look the same\n");
	if (allowed)
		return;
	if (hdr->flags & BW_F_VERIFY)
		bw_out_text(
			"  hint: verify mode's exact trie refuses it: it is not dropped\n");
	else
		bw_out_text(
			"  hint: to never drop it: 'bloomwall allow %s %s', or reload with --verify (an exact trie confirms every hit)\n",
			rn->iface, arg);
}

/* The names added at run time that cover target t. */
static size_t out_added_name(const struct bw_records *rec,
			     const struct bw_why_target *t)
{
	const struct bw_list *l = rec ? &rec->names : NULL;
	const struct bw_domain *d;
	char buf[BW_NAME_MAX + 3];
	size_t k, n = 0;

	bw_out_open_array("added");
	for (k = 0; l && k < l->ndom; k++) {
		d = &l->dom[k];
		if (!bw_why_name_covers(bw_domain_name(l, d), d->len,
					d->flags & BW_DOM_SUBTREE, t->name,
					t->name_len))
			continue;
		snprintf(buf, sizeof(buf), "%s%.*s",
			 d->flags & BW_DOM_SUBTREE ? "*." : "", (int)d->len,
			 bw_domain_name(l, d));
		bw_out_string(NULL, "  why: added at run time: %s", buf);
		bw_out_text(
			" (bloomwall add; 'bloomwall remove' takes it out)\n");
		n++;
	}
	bw_out_close_array();
	return n;
}

/*
 * A name the name regions hit but nothing covers: a false positive, with
 * the rate of the region that hit (the exact one, or the subtree one).
 */
static void out_name_false_positive(const struct bw_running *rn,
				    const struct bw_name_hit *h, int doubt,
				    const char *name)
{
	const char *kind = h->region == BW_NAME_EXACT ? "exact" : "subtree";
	char where[32];
	__u64 set, total;
	double fpr;

	bw_name_region_fill(rn->filter.mem, h->region, &set, &total, &fpr);
	bw_out_string("region", NULL, kind);
	bw_out_double("estimated_fpr", NULL, fpr);
	snprintf(where, sizeof(where), "%s names", kind);
	if (!out_fp_claim(doubt, where, " a key", fpr))
		return;
	bw_out_text("  hint: to never block it: 'bloomwall allow %s %s'\n",
		    rn->iface, name);
}

static void out_name(const struct bw_why *w, int i, const struct bw_running *rn,
		     const struct bw_records *rec)
{
	const struct bw_why_target *t = &w->t[i];
	struct bw_name_hit h = { 0 };
	size_t listed, added;
	int hit, doubt;

	hit = bw_name_lookup(rn->filter.mem, t->name, t->name_len, &h) == 1;
	bw_out_open_object("why");
	listed = out_entries(w, i);
	added = out_added_name(rec, t);
	doubt = out_lists(w);
	if (hit && !listed && !added && !w->nlists) {
		out_no_lists();
	} else if (hit && !listed && !added) {
		out_name_false_positive(rn, &h, doubt, t->name);
	} else {
		bw_out_bool("false_positive", NULL, false);
		if (!listed && !added)
			bw_out_text("  why: no list entry covers it\n");
	}
	bw_out_close_object();
}

void bw_why_out(const struct bw_why *w, int i, const struct bw_running *rn,
		const struct bw_records *rec)
{
	const struct bw_prefix *a = &w->t[i].addr;
	size_t listed, added, allowed;
	int region = 0, hit, doubt;
	char arg[64];

	if (w->t[i].is_name) {
		out_name(w, i, rn, rec);
		return;
	}
	hit = bw_filter_lookup(rn->filter.mem, a, &region);
	bw_out_open_object("why");
	listed = out_entries(w, i);
	added = out_added(rec, a);
	allowed = out_allow(rn, a);
	doubt = out_lists(w);
	if (hit && !listed && !added && !w->nlists) {
		out_no_lists();
	} else if (hit && !listed && !added) {
		bw_prefix_str(a, arg, sizeof(arg));
		out_false_positive(rn, region, doubt, allowed, arg);
	} else {
		bw_out_bool("false_positive", NULL, false);
	}
	if (!hit && (listed || added))
		bw_out_text(
			"  why: listed, but not in the running filter: %s\n",
			doubt != SEARCHED_AS_BUILT
				? "the list changed since the build ('bloomwall reload' applies it)"
				: "the filter does not hold it (report this: a Bloom filter has no false negatives)");
	else if (!hit)
		bw_out_text("  why: no list entry covers it\n");
	bw_out_close_object();
}

int bw_why_prepare(struct bw_why *w, struct bw_records *rec,
		   const struct bw_running *rn, char **args, int n)
{
	struct bw_why_target *t = calloc(n ?: 1, sizeof(*t));
	char err[BW_ERRLEN];
	int i, ret = 0;

	memset(w, 0, sizeof(*w));
	bw_records_init(rec);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = bw_why_target(args[i], &t[i], err, sizeof(err));
		if (ret)
			pr_warn("bloomwall query: %s\n", err);
	}
	if (!ret)
		ret = bw_running_records(rn, rec);
	if (!ret)
		ret = bw_why_scan(w, t, n, (const char *const *)rec->lists,
				  rec->src, rec->nlists);
	if (ret == -ENOMEM)
		pr_warn("%s: out of memory while reading the lists for --why\n",
			rn->iface);
	free(t);
	return ret;
}
