// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The reports of attach, reload and load, detach, allow, add (op_report.h).
 */
#include <linux/if_link.h>

#include "base/log.h"
#include "base/output.h"
#include "kernel/hook.h"
#include "out/build_report.h"
#include "out/expiry_view.h"
#include "out/op_report.h"

static void report_swap(const char *iface, const struct bw_reload_result *res)
{
	bw_out_open_object("swap");
	bw_out_text("%s: ", iface);
	bw_out_u64("generation", "swapped in generation %llu (replaces ",
		   res->generation);
	/* Generation 0: the running filter could not be read. */
	if (res->replaces)
		bw_out_u64("replaces", "%llu", res->replaces);
	else
		bw_out_null("replaces", "the unreadable filter");
	bw_out_bool("verify", NULL, res->verify);
	bw_out_text(")%s\n", res->verify ? ", verify mode" : "");
	bw_out_close_object();
}

static void report_allowlist(const char *iface,
			     const struct bw_reload_result *res)
{
	bw_out_open_object("allow");
	bw_out_text("%s: allowlist replaced: ", iface);
	bw_out_u64("entries", "%'llu ", res->allow_entries);
	bw_out_text("%s", bw_plural(res->allow_entries, "entry", "entries"));
	bw_out_u64("added", " (%'llu added, ", res->allow_added);
	bw_out_u64("removed", "%'llu removed)\n", res->allow_removed);
	bw_out_close_object();
}

/* "IFACE: 3 entries added at run time kept"; JSON added_kept, forgotten. */
static void report_kept(const char *iface, const struct bw_reload_result *res)
{
	bw_out_u64("added_kept", NULL, res->kept);
	bw_out_u64("added_forgotten", NULL, res->left_out);
	bw_out_u64("added_expired", NULL, res->expired);
	if (res->kept)
		bw_out_text(
			"%s: %'zu %s added at run time kept ('bloomwall remove %s ADDR|NAME...' takes one out)\n",
			iface, res->kept,
			bw_plural(res->kept, "entry", "entries"), iface);
	if (res->left_out)
		bw_out_text("%s: %'zu %s added at run time left out\n", iface,
			    res->left_out,
			    bw_plural(res->left_out, "entry", "entries"));
	if (res->expired)
		bw_out_text(
			"%s: %'zu %s added at run time past %s expiry dropped\n",
			iface, res->expired,
			bw_plural(res->expired, "entry", "entries"),
			res->expired == 1 ? "its" : "their");
}

void bw_reload_report(const char *iface, const struct bw_reload_result *res)
{
	int i;

	for (i = 0; i < res->nbuilds; i++)
		bw_build_report(&res->build[i]);
	if (!res->swapped)
		return;
	report_swap(iface, res);
	if (res->allow_replaced)
		report_allowlist(iface, res);
	report_kept(iface, res);
}

/* How the program went onto the hook: the JSON key, and text or NULL. */
static const char *attach_how(const struct bw_attach_figures *f,
			      const char **key)
{
	switch (f->how) {
	case BW_ATTACH_LINK:
		*key = "link";
		return NULL;
	case BW_ATTACH_DISPATCHER:
		*key = "dispatcher";
		return "through the libxdp dispatcher";
	case BW_ATTACH_PLAIN_SKIPPED:
		*key = "plain";
		return "plain attach: LIBXDP_SKIP_DISPATCHER is set";
	default:
		*key = "plain";
		return "plain attach: libxdp dispatcher unavailable";
	}
}

static void report_attached(const char *iface,
			    const struct bw_attach_figures *f)
{
	const char *how, *key;

	if (f->allow) {
		bw_out_open_object("allow");
		bw_out_text("%s: allowlist: ", iface);
		bw_out_u64("entries", "%'llu ", f->allow_entries);
		bw_out_text("%s\n",
			    bw_plural(f->allow_entries, "entry", "entries"));
		bw_out_close_object();
	}
	how = attach_how(f, &key);
	bw_out_open_object("attach");
	bw_out_text("%s: ", iface);
	bw_out_string("mode", "attached in %s mode ",
		      bw_attached_mode_name(f->attach_mode));
	bw_out_string("how", NULL, key);
	if (how)
		bw_out_text("(%s), ", how);
	else
		bw_out_string("libxdp_error",
			      "(bpf_link of bloomwall's own; libxdp: %s), ",
			      f->libxdp_error);
	bw_out_u64("program_id", "program id %llu\n", f->program_id);
	bw_out_close_object();
}

void bw_attach_report(const char *iface, const struct bw_attach_result *res)
{
	if (res->built)
		bw_build_report(&res->build);
	if (res->attached)
		report_attached(iface, &res->attach);
}

void bw_detach_report(const char *iface, const struct bw_detach_result *res)
{
	if (!res->pins_removed)
		return;
	bw_out_bool("interface_gone", NULL, res->interface_gone);
	bw_out_bool("pins_removed", NULL, true);
	if (res->detached)
		bw_out_text("%s: bloomwall detached, pins removed\n", iface);
	else if (res->interface_gone)
		bw_out_text(
			"%s: the interface is gone; removed the pins it left behind\n",
			iface);
	else
		bw_out_text(
			"%s: bloomwall was not attached; removed the pins left behind\n",
			iface);
}

/* "ADDR  allowed"; JSON {address or name, result}. */
static void say_entry(const char *key, const char *entry, const char *result,
		      const char *text)
{
	bw_out_open_object(NULL);
	bw_out_string(key, "%s  ", entry);
	bw_out_string("result", NULL, result);
	bw_out_text("%s\n", text);
	bw_out_close_object();
}

/* The entries of these kinds (enum bw_entry_kind), in the order given. */
static void say_entries(const struct bw_allow_req *rq, char *const *given,
			const struct bw_allow_result *res, int kinds)
{
	const struct bw_entries *s = rq->entries;
	const char *key;
	size_t i;
	bool c;

	for (i = 0; i < s->n; i++) {
		if (!(s->v[i].kind & kinds))
			continue;
		key = bw_entry_is_name(&s->v[i]) ? "name" : "address";
		c = res->changed[i];
		if (rq->on)
			say_entry(key, given[i], c ? "allowed" : "already",
				  c ? "allowed" : "already allowed");
		else
			say_entry(key, given[i], c ? "removed" : "absent",
				  c ? "removed" : "not in the allowlist");
	}
}

/* JSON: an array for each kind the command has ("addresses", "names"). */
static void say_arrays(const struct bw_allow_req *rq, char *const *given,
		       const struct bw_allow_result *res, int err)
{
	size_t names = bw_entries_count(rq->entries, BW_ENTRY_NAME);

	if (names < rq->entries->n) {
		bw_out_open_array("addresses");
		if (!err)
			say_entries(rq, given, res, BW_ENTRY_PREFIX);
		bw_out_close_array();
	}
	if (names) {
		bw_out_open_array("names");
		if (!err)
			say_entries(rq, given, res, BW_ENTRY_NAME);
		bw_out_close_array();
	}
}

void bw_allow_report(const struct bw_allow_req *rq, char *const *given,
		     const struct bw_allow_result *res, int err)
{
	const char *what = rq->on ? "added" : "removed";
	size_t n = rq->entries->n;
	size_t names = bw_entries_count(rq->entries, BW_ENTRY_NAME);

	if (bw_out_is_json())
		say_arrays(rq, given, res, err);
	else if (!err)
		say_entries(rq, given, res, BW_ENTRY_ANY);
	if (err)
		return;
	bw_out_text("%s: ", rq->iface);
	bw_out_int(what, "%lld of ", res->changed_n);
	bw_out_int("total", "%lld ", (long long)n);
	bw_out_text("%s (", what);
	if (names < n) {
		bw_out_int("allowlist_entries", "allowlist now %'lld ",
			   res->entries);
		bw_out_text("%s", bw_plural(res->entries, "entry", "entries"));
	}
	if (names && names < n)
		bw_out_text(", ");
	if (names) {
		/* A command of names only: the key scripts read before. */
		if (names == n)
			bw_out_int("allowlist_entries", NULL, res->names);
		bw_out_int("name_allowlist_entries",
			   "name allowlist now %'lld ", res->names);
		bw_out_text("%s", bw_plural(res->names, "entry", "entries"));
	}
	bw_out_text(")\n");
}

/*
 * Entry i: "ADDR  added" (or why not; an address with the keys its prefix
 * took); JSON {address or name, result, (keys, new_keys, prefix),
 * expires, expires_in}.
 */
static void say_added(const struct bw_add_req *rq,
		      const struct bw_add_result *res, size_t i)
{
	const struct bw_entry *e = &rq->entries->v[i];
	const struct bw_add_plan *ap =
		bw_entry_is_name(e) ? NULL : &res->plan[i];
	__u32 fresh = res->fresh[i];

	bw_out_open_object(NULL);
	bw_out_string(ap ? "address" : "name", "%s  ", rq->given[i]);
	/* An entry kept before, not a key whose bits were set by chance. */
	bw_out_string("result", NULL, res->had[i] ? "already" : "added");
	if (ap) {
		bw_out_u64("keys", NULL, ap->nkeys);
		bw_out_u64("new_keys", NULL, fresh);
		bw_out_u64("prefix", NULL, ap->tlen);
	}
	if (res->had[i])
		bw_out_text("already in the filter");
	else if (!ap || ap->nkeys == 1)
		bw_out_text("added");
	else
		bw_out_text("added (%u of its %u keys at /%u were new)", fresh,
			    ap->nkeys, ap->tlen);
	bw_expiry_say_add(e->expires, rq->now, res->unexpired[i]);
	bw_out_close_object();
}

void bw_add_report(const struct bw_add_req *rq, const struct bw_add_result *res)
{
	bool names = bw_add_by_name(rq);
	long long added = 0;
	size_t i;

	bw_out_open_array(names ? "names" : "addresses");
	for (i = 0; i < rq->entries->n; i++) {
		say_added(rq, res, i);
		added += !res->had[i];
	}
	bw_out_close_array();
	bw_out_text("%s: ", rq->iface);
	bw_out_int("added", "%lld of ", added);
	bw_out_int("total",
		   names ? "%lld names added to filter "
			 : "%lld added to filter ",
		   (long long)rq->entries->n);
	bw_out_u64("generation",
		   names ? "generation %llu\n" : "generation %llu",
		   res->generation);
	if (!names)
		bw_out_u64("entries", " (now %'llu entries)\n", res->entries);
	bw_out_u64("added_kept", NULL, res->kept);
	/* Past twice its target, the operator should rebuild. */
	if (res->worst <= 2 * res->target)
		return;
	if (names)
		pr_warn("%s: the name regions are now past their target false-positive rate (about %.3g%% where they were sized for %.3g%%): rebuild with 'bloomwall reload' to size them for the names\n",
			rq->iface, res->worst * 100, res->target * 100);
	else
		pr_warn("%s: the filter is now past its target false-positive rate (about %.3g%% where it was sized for %.3g%%): rebuild it with 'bloomwall reload' and the entries in a LIST\n",
			rq->iface, res->worst * 100, res->target * 100);
}

/*
 * The entries' lines (and records) in the order given, each added or
 * already an add (had, else how), then the summary's start: "IFACE: N
 * of ".
 */
static void say_adds(const struct bw_add_req *rq, const bool *had,
		     const enum bw_handover_how *how, const bool *unexpired)
{
	const struct bw_entries *s = rq->entries;
	long long added = 0;
	bool already;
	size_t i;

	bw_out_open_array(bw_add_by_name(rq) ? "names" : "addresses");
	for (i = 0; i < s->n; i++) {
		already = had ? had[i] : how[i] == BW_HOW_ALREADY;
		bw_out_open_object(NULL);
		bw_out_string(bw_entry_is_name(&s->v[i]) ? "name" : "address",
			      "%s  ", rq->given[i]);
		bw_out_string("result", NULL, already ? "already" : "added");
		bw_out_text("%s", already ? "already in the filter" : "added");
		bw_expiry_say_add(s->v[i].expires, rq->now,
				  unexpired && unexpired[i]);
		bw_out_close_object();
		added += !already;
	}
	bw_out_close_array();
	bw_out_text("%s: ", rq->iface);
	bw_out_int("added", "%lld of ", added);
}

void bw_add_grown_report(const struct bw_add_req *rq, const bool *had,
			 const bool *unexpired,
			 const struct bw_reload_result *rr)
{
	bool names = bw_add_by_name(rq);

	say_adds(rq, had, NULL, unexpired);
	bw_out_int("total",
		   names ? "%lld names added to filter "
			 : "%lld added to filter ",
		   (long long)rq->entries->n);
	bw_out_u64("generation", "generation %llu, ", rr->generation);
	bw_out_bool("grown", "grown with room for the adds\n", true);
}

void bw_add_handed_report(const struct bw_add_req *rq,
			  const enum bw_handover_how *how)
{
	bool names = bw_add_by_name(rq);

	say_adds(rq, NULL, how, NULL);
	bw_out_int("total",
		   names ? "%lld names added in place by the watch"
			 : "%lld added in place by the watch",
		   (long long)rq->entries->n);
	bw_out_bool("in_place", " (no swap)\n", true);
}
