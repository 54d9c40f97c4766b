// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Expiries of entries added at run time, shown (expiry_view.h).
 */
#include <stdio.h>
#include <time.h>

#include "base/duration.h"
#include "base/log.h"
#include "base/output.h"
#include "filter/records_edit.h"
#include "filter/why.h"
#include "lists/list_domain.h"
#include "lists/list_parse.h"
#include "out/expiry_view.h"

const char *bw_expiry_text(__u64 expires, __u64 now, char *buf, size_t len)
{
	time_t t = (time_t)expires;
	char at[40], d[32];
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(at, sizeof(at), "%llu", (unsigned long long)expires);
	if (expires > now)
		snprintf(buf, len, "%s (in %s)", at,
			 bw_duration_str(expires - now, d, sizeof(d)));
	else
		snprintf(buf, len, "%s (%s ago)", at,
			 bw_duration_str(now - expires, d, sizeof(d)));
	return buf;
}

void bw_expiry_json(__u64 expires, __u64 now)
{
	if (!expires) {
		bw_out_null("expires", NULL);
		bw_out_null("expires_in", NULL);
		return;
	}
	bw_out_u64("expires", NULL, expires);
	bw_out_int("expires_in", NULL, (long long)expires - (long long)now);
}

void bw_expiry_say_add(__u64 expires, __u64 now, bool unexpired)
{
	char t[96];

	bw_expiry_json(expires, now);
	if (expires)
		bw_out_text(", expires %s",
			    bw_expiry_text(expires, now, t, sizeof(t)));
	else if (unexpired)
		bw_out_text(", no longer expires");
	bw_out_text("\n");
}

/* Text only: "INDENTowner NAME until TIME", a line each of o's claims. */
static void owner_lines(const struct bw_owned *o, __u64 now, const char *indent)
{
	char t[96];
	__u32 j;

	for (j = 0; j < o->n; j++)
		bw_out_text("%sowner %s until %s\n", indent,
			    o->v[j].name[0] ? o->v[j].name
					    : "(add without --owner)",
			    o->v[j].expires ? bw_expiry_text(o->v[j].expires,
							     now, t, sizeof(t))
					    : "never");
}

/*
 * The owners of added entry i of r (filter/owners.h), if it has claims:
 * JSON "owners": [{"owner", "expires", "expires_in"}] ("owner" null: the
 * anonymous one); text (when text), a line each after the entry's
 * (owner_lines).
 */
static void out_owners(const struct bw_records *r, size_t i, __u64 now,
		       const char *indent, bool text)
{
	const struct bw_owned *o =
		bw_owners_get(&r->owners, bw_entries_key(&r->added, i));
	const struct bw_claim *c;
	__u32 j;

	if (!o)
		return;
	bw_out_open_array("owners");
	for (j = 0; j < o->n; j++) {
		c = &o->v[j];
		bw_out_open_object(NULL);
		if (c->name[0])
			bw_out_string("owner", NULL, c->name);
		else
			bw_out_null("owner", NULL);
		bw_expiry_json(c->expires, now);
		bw_out_close_object();
	}
	bw_out_close_array();
	if (text)
		owner_lines(o, now, indent);
}

/* One expiring entry: "      ENTRY   TIME (in 2m58s)"; JSON an object. */
static void out_row(const struct bw_records *r, size_t i, const char *e,
		    __u64 now, bool text)
{
	__u64 expires = r->added.v[i].expires;
	char t[96];

	bw_out_open_object(NULL);
	bw_out_string("entry", NULL, e);
	bw_expiry_json(expires, now);
	if (text)
		bw_out_text("      %-*s %s\n", BW_OUT_KEY_WIDTH - 2, e,
			    bw_expiry_text(expires, now, t, sizeof(t)));
	out_owners(r, i, now, "        ", text);
	bw_out_close_object();
}

/* The expiring entries, in order: the first BW_EXPIRY_ROWS in text. */
static size_t out_rows(const struct bw_records *r, __u64 now)
{
	const struct bw_entries *a = &r->added;
	char e[BW_NAME_MAX + 3];
	size_t i, shown = 0;

	for (i = 0; i < a->n; i++) {
		if (!a->v[i].expires)
			continue;
		out_row(r, i, bw_entries_str(a, i, e, sizeof(e)), now,
			shown++ < BW_EXPIRY_ROWS);
	}
	return shown;
}

/*
 * Past entries: out of the filter when the watch says it took them out,
 * taken out within a second when a watch runs, else in until a reload.
 */
static void out_past(int pid, bool taken, size_t past)
{
	bw_out_u64("past", NULL, past);
	if (pid > 0)
		bw_out_int("watch_pid", NULL, pid);
	else
		bw_out_null("watch_pid", NULL);
	bw_out_bool("taken_out", NULL, past && taken);
	if (!past)
		return;
	if (pid > 0 && taken)
		bw_out_kv(
			"past expiry",
			"%zu %s past %s expiry: the watch (pid %d) took %s out of the filter; the records keep %s until the next rebuild",
			past, bw_plural(past, "entry", "entries"),
			bw_plural(past, "its", "their"), pid,
			bw_plural(past, "it", "them"),
			bw_plural(past, "it", "them"));
	else if (pid > 0)
		bw_out_kv(
			"past expiry",
			"%zu %s past %s expiry: the watch (pid %d) takes %s out",
			past, bw_plural(past, "entry", "entries"),
			bw_plural(past, "its", "their"), pid,
			bw_plural(past, "it", "them"));
	else
		bw_out_kv(
			"past expiry",
			"%zu %s past %s expiry %s still in the filter: no watch runs to take %s out (bloomwall reload drops %s)",
			past, bw_plural(past, "entry", "entries"),
			bw_plural(past, "its", "their"),
			bw_plural(past, "is", "are"),
			bw_plural(past, "it", "them"),
			bw_plural(past, "it", "them"));
}

/* The latest expiry at or before now of r's entries and names, 0: none. */
static __u64 last_past(const struct bw_records *r, __u64 now)
{
	__u64 last = 0, e;
	size_t i;

	for (i = 0; i < r->added.n; i++) {
		e = r->added.v[i].expires;
		if (e <= now && e > last)
			last = e;
	}
	return last;
}

void bw_expiry_out_status(const struct bw_records *r, int watch_pid,
			  __u64 watch_next)
{
	size_t n = bw_records_expiring(r, BW_ENTRY_ANY);
	__u64 now = bw_expiry_now(), next = bw_records_next_expiry(r);
	size_t shown;
	char t[96];

	bw_out_open_object("expiring");
	bw_out_u64("entries", NULL, n);
	bw_out_u64("names", NULL, bw_records_expiring(r, BW_ENTRY_NAME));
	if (n)
		bw_out_kv("expiring entries", "%zu (next %s)", n,
			  bw_expiry_text(next, now, t, sizeof(t)));
	else
		bw_out_kv("expiring entries", "none");
	if (next)
		bw_out_u64("next", NULL, next);
	else
		bw_out_null("next", NULL);
	bw_out_open_array("list");
	shown = out_rows(r, now);
	bw_out_close_array();
	if (shown > BW_EXPIRY_ROWS)
		bw_out_text("      ... and %zu more (--json lists them all)\n",
			    shown - BW_EXPIRY_ROWS);
	/* Nothing left in the watch ends at or before the last past one. */
	out_past(watch_pid,
		 watch_next != BW_EXPIRY_UNKNOWN &&
			 (!watch_next || watch_next > last_past(r, now)),
		 bw_records_expired(r, BW_ENTRY_ANY, now));
	bw_out_close_object();
}

/* Whether added entry i covers a: a prefix an address, a name a name. */
static bool covers(const struct bw_entries *s, size_t i,
		   const struct bw_entry_key *a)
{
	const struct bw_entry *e = &s->v[i];

	if (e->kind != a->kind)
		return false;
	if (!bw_entry_is_name(e))
		return bw_why_covers(&e->p, &a->p);
	return bw_why_name_covers(bw_entry_name(s, e), e->d.len,
				  e->d.flags & BW_DOM_SUBTREE, a->name, a->len);
}

void bw_expiry_out_covering(const struct bw_records *rec, struct bw_entry_key a,
			    bool text)
{
	const struct bw_entries *s = rec ? &rec->added : NULL;
	__u64 now = bw_expiry_now();
	char e[BW_NAME_MAX + 3], t[96];
	bool open = false;
	size_t i;

	for (i = 0; s && i < s->n; i++) {
		if (!s->v[i].expires || !covers(s, i, &a))
			continue;
		if (!open)
			bw_out_open_array("expires");
		open = true;
		bw_entries_str(s, i, e, sizeof(e));
		bw_out_open_object(NULL);
		bw_out_string("entry", NULL, e);
		bw_expiry_json(s->v[i].expires, now);
		if (text)
			bw_out_text("  expires: %s (added at run time) %s\n", e,
				    bw_expiry_text(s->v[i].expires, now, t,
						   sizeof(t)));
		bw_out_close_object();
	}
	if (open)
		bw_out_close_array();
}

size_t bw_expiry_why_added(const struct bw_records *rec, struct bw_entry_key a)
{
	const struct bw_entries *s = rec ? &rec->added : NULL;
	char buf[BW_NAME_MAX + 3], t[96];
	size_t k, n = 0;

	const struct bw_owned *o;

	bw_out_open_array("added");
	for (k = 0; s && k < s->n; k++) {
		if (!covers(s, k, &a))
			continue;
		bw_entries_str(s, k, buf, sizeof(buf));
		bw_out_string(NULL, "  why: added at run time: %s", buf);
		o = bw_owners_get(&rec->owners, bw_entries_key(s, k));
		if (o && s->v[k].expires)
			bw_out_text(
				" (bloomwall add --owner), %u owners, the latest end %s\n",
				o->n,
				bw_expiry_text(s->v[k].expires, bw_expiry_now(),
					       t, sizeof(t)));
		else if (o)
			bw_out_text(
				" (bloomwall add --owner), %u owners, one of them never ends\n",
				o->n);
		else if (s->v[k].expires)
			bw_out_text(" (bloomwall add --timeout), expires %s\n",
				    bw_expiry_text(s->v[k].expires,
						   bw_expiry_now(), t,
						   sizeof(t)));
		else
			bw_out_text(
				" (bloomwall add; 'bloomwall remove' takes it out)\n");
		if (o)
			owner_lines(o, bw_expiry_now(), "    ");
		n++;
	}
	bw_out_close_array();
	/* JSON: each one's owners, "owned": [{"entry", "owners"}]. */
	bw_out_open_array("owned");
	for (k = 0; s && k < s->n; k++) {
		if (!covers(s, k, &a) ||
		    !bw_owners_get(&rec->owners, bw_entries_key(s, k)))
			continue;
		bw_out_open_object(NULL);
		bw_out_string("entry", NULL,
			      bw_entries_str(s, k, buf, sizeof(buf)));
		out_owners(rec, k, bw_expiry_now(), "", false);
		bw_out_close_object();
	}
	bw_out_close_array();
	bw_expiry_out_covering(rec, a, false);
	return n;
}
