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

#include "filter/bloom_names.h"
#include "filter/bloom.h"
#include "base/log.h"
#include "base/output.h"
#include "filter/why.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "lists/names.h"
#include "net/src_cache.h"
#include "out/expiry_view.h"
#include "out/query_view.h"
#include "out/why_out.h"

static const char *hit_note(const struct bw_why_hit *h, bool in_allow_file,
			    char *buf, size_t len)
{
	if (h->allow && !in_allow_file)
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

/*
 * "  why: FILE:LINE: TEXT [...]" for the block lists' lines (JSON the
 * array "entries"), or with allow_files "  why: allowlisted: FILE:LINE:
 * TEXT [...]" for the allowlist files' (JSON "allow_entries").
 */
static size_t out_entries(const struct bw_why *w, int i, bool allow_files)
{
	const struct bw_why_hit *h;
	const struct bw_why_list *l;
	char note[2 * BW_NAME_MAX + 64], url[2048];
	size_t k, n = 0;
	bool changed, by_url;

	bw_out_open_array(allow_files ? "allow_entries" : "entries");
	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		l = &w->lists[h->list];
		if (h->target != i || l->allow != allow_files)
			continue;
		changed = l->state == BW_PROV_CHANGED;
		/* A list given by URL is named by it, its copy's line. */
		by_url = bw_src_url_of(l->path, url, sizeof(url));
		if (by_url)
			bw_out_text(
				"  why: %s line %llu (its copy %s): %s%s%s\n",
				url, (unsigned long long)h->line, l->path,
				h->text,
				hit_note(h, allow_files, note, sizeof(note)),
				changed ? " [changed since the build: the copy as it is now]"
					: "");
		else
			bw_out_text(
				"  why: %s%s:%llu: %s%s%s\n",
				allow_files ? "allowlisted: " : "", l->path,
				(unsigned long long)h->line, h->text,
				hit_note(h, allow_files, note, sizeof(note)),
				!changed ? ""
				: allow_files
					? " [allow file changed since the build: "
					  "line of the file as it is now]"
					: " [list changed since the build: "
					  "line of the file as it is now]");
		bw_out_open_object(NULL);
		bw_out_string("file", NULL, l->path);
		if (by_url)
			bw_out_string("url", NULL, url);
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

/* Whether every allowlist file the filter records is as it was built. */
static bool allow_files_as_built(const struct bw_why *w)
{
	int k;

	for (k = 0; k < w->nlists; k++)
		if (w->lists[k].allow && w->lists[k].state != BW_PROV_UNCHANGED)
			return false;
	return true;
}

/* Whether an allowlist file's line of target i is the entry e. */
static bool named_by_file(const struct bw_why *w, int i,
			  const struct bw_prefix *e)
{
	const struct bw_why_hit *h;
	size_t k;

	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		if (h->target == i && w->lists[h->list].allow &&
		    h->prefix.family == e->family &&
		    h->prefix.plen == e->plen && h->prefix.hi == e->hi &&
		    h->prefix.lo == e->lo)
			return true;
	}
	return false;
}

/* The running allowlist's entries that cover a, into c (at most max). */
static size_t allow_covering(const struct bw_query_result *qr,
			     const struct bw_prefix *a, struct bw_prefix *c,
			     size_t max)
{
	size_t k, n = 0;

	for (k = 0; k < qr->nallow && n < max; k++)
		if (bw_why_covers(&qr->allow[k], a))
			c[n++] = qr->allow[k];
	return n;
}

/*
 * The running allowlist's entries that cover a: named by the allowlist
 * files' lines that hold them, the others as entries allowed at run time
 * (or, when an allowlist file changed, by such a file as it was).
 */
static size_t out_allow(const struct bw_why *w, int i,
			const struct bw_query_result *qr,
			const struct bw_prefix *a)
{
	/* One per prefix length at most: a host is under 129 prefixes. */
	struct bw_prefix c[129];
	size_t k, n = allow_covering(qr, a, c, 129);
	bool as_built = allow_files_as_built(w);
	char buf[64];

	out_entries(w, i, true);
	bw_out_open_array("allowlist");
	for (k = 0; k < n; k++) {
		bw_prefix_str(&c[k], buf, sizeof(buf));
		bw_out_string(NULL, NULL, buf);
	}
	bw_out_close_array();
	bw_out_open_array("runtime_allow");
	for (k = 0; k < n; k++) {
		if (named_by_file(w, i, &c[k]))
			continue;
		bw_prefix_str(&c[k], buf, sizeof(buf));
		bw_out_string(NULL, "  why: allowlisted at run time: %s", buf);
		bw_out_text(
			as_built
				? " (bloomwall allow; 'bloomwall unallow' takes it out)\n"
				: " (bloomwall allow, or an allow file as it was at the build)\n");
	}
	bw_out_close_array();
	return n;
}

/* The block lists the scan read (the allowlist files follow them). */
static int block_lists(const struct bw_why *w)
{
	int k, n = 0;

	for (k = 0; k < w->nlists; k++)
		n += !w->lists[k].allow;
	return n;
}

/* An allowlist file not as it was built: said, with no doubt cast. */
static void out_allow_note(const struct bw_why_list *l)
{
	if (l->state == BW_PROV_CHANGED)
		bw_out_text(
			"  note: allow file %s changed since the build: answered from the file as it is now\n",
			l->path);
	else
		bw_out_text("  note: allow file %s is %s now: not searched\n",
			    l->path, bw_prov_state_name(l->state));
}

/* Whether a line of the lists or allowlist files is the allow entry. */
static bool name_allow_named(const struct bw_why *w, int i, const char *e,
			     bool subtree)
{
	const struct bw_why_hit *h;
	size_t k;

	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		if (h->target == i && h->allow && h->subtree == subtree &&
		    !strcmp(h->entry, e))
			return true;
	}
	return false;
}

/*
 * The name allowlist's entry the name meets, when no line of a list or an
 * allowlist file holds it: allowed at run time (bloomwall allow NAME).
 */
static void out_runtime_allow_name(const struct bw_why *w, int i,
				   const struct bw_query_arg *q)
{
	const struct bw_why_target *t = &w->t[i];
	bool sub = q->allow_sub;
	const char *suf;

	bw_out_open_array("runtime_allow");
	if (q->name_allowed) {
		suf = bw_name_suffix(t->name, t->name_len, q->allow_labels);
		if (!name_allow_named(w, i, suf, sub)) {
			bw_out_string(NULL, NULL, suf);
			bw_out_text(
				"  why: allowlisted at run time: %s%s (bloomwall allow%s)\n",
				sub ? "*." : "", suf,
				allow_files_as_built(w)
					? "; 'bloomwall unallow' takes it out"
					: ", or an allow file as it was at the build");
		}
	}
	bw_out_close_array();
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
		bw_out_bool("allow", NULL, l->allow);
		bw_out_close_object();
		if (l->state == BW_PROV_UNCHANGED)
			continue;
		/* An allowlist file holds no entry a false positive could be. */
		if (l->allow) {
			out_allow_note(l);
			continue;
		}
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
static void out_false_positive(const struct bw_query_result *qr, int region,
			       int doubt, bool allowed, const char *arg)
{
	const struct bw_hdr *hdr = &qr->prog_hdr;
	unsigned int plen =
		hdr->plen[region / BW_MAX_LENGTHS][region % BW_MAX_LENGTHS];
	char where[32];
	__u64 set, total;
	double fpr;

	bw_region_fill(qr->mem, region, &set, &total, &fpr);
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
			qr->iface, arg);
}

/*
 * A name the name regions hit but nothing covers: a false positive, with
 * the rate of the region that hit (the exact one, or the subtree one).
 */
static void out_name_false_positive(const struct bw_query_result *qr,
				    const struct bw_name_hit *h, int doubt,
				    const char *name)
{
	const char *kind = h->region == BW_NAME_EXACT ? "exact" : "subtree";
	char where[32];
	__u64 set, total;
	double fpr;

	bw_name_region_fill(qr->mem, h->region, &set, &total, &fpr);
	bw_out_string("region", NULL, kind);
	bw_out_double("estimated_fpr", NULL, fpr);
	snprintf(where, sizeof(where), "%s names", kind);
	if (!out_fp_claim(doubt, where, " a key", fpr))
		return;
	bw_out_text("  hint: to never block it: 'bloomwall allow %s %s'\n",
		    qr->iface, name);
}

static void out_name(const struct bw_query_result *qr,
		     const struct bw_query_arg *q, int i)
{
	const struct bw_why *w = &qr->why;
	const struct bw_why_target *t = &w->t[i];
	struct bw_name_hit h = { 0 };
	size_t listed, added;
	int hit, doubt;

	hit = bw_name_lookup(qr->mem, t->name, t->name_len, &h) == 1;
	bw_out_open_object("why");
	listed = out_entries(w, i, false);
	added = bw_expiry_why_added(&qr->rec,
				    bw_key_name(t->name, t->name_len, 0));
	out_entries(w, i, true);
	out_runtime_allow_name(w, i, q);
	doubt = out_lists(w);
	if (hit && !listed && !added && !block_lists(w)) {
		out_no_lists();
	} else if (hit && !listed && !added) {
		out_name_false_positive(qr, &h, doubt, t->name);
	} else {
		bw_out_bool("false_positive", NULL, false);
		if (!listed && !added)
			bw_out_text("  why: no list entry covers it\n");
	}
	bw_out_close_object();
}

void bw_why_out(const struct bw_query_result *qr, const struct bw_query_arg *q,
		int i)
{
	const struct bw_why *w = &qr->why;
	const struct bw_prefix *a = &w->t[i].addr;
	size_t listed, added, allowed;
	int region = 0, hit, doubt;
	char arg[64];

	if (w->t[i].is_name) {
		out_name(qr, q, i);
		return;
	}
	hit = bw_filter_lookup(qr->mem, a, &region);
	bw_out_open_object("why");
	if (hit)
		bw_query_out_hooks(qr, q);
	listed = out_entries(w, i, false);
	added = bw_expiry_why_added(&qr->rec, bw_key_prefix(a));
	allowed = out_allow(w, i, qr, a);
	doubt = out_lists(w);
	if (hit && !listed && !added && !block_lists(w)) {
		out_no_lists();
	} else if (hit && !listed && !added) {
		bw_prefix_str(a, arg, sizeof(arg));
		out_false_positive(qr, region, doubt, allowed, arg);
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
