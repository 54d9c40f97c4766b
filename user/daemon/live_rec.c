// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The CLI's adds as live entries (live_rec.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "daemon/live_rec.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "lists/list_parse.h"

void bw_adopted_free(struct bw_adopted *a)
{
	bw_entries_free(&a->e);
}

/* Takes the adopted whose expiry is BW_ADOPTED_DROPPED out. */
static int compact_adopted(struct bw_adopted *a)
{
	bool *out = calloc(a->e.n ?: 1, sizeof(*out));
	size_t i;

	if (!out)
		return -ENOMEM;
	for (i = 0; i < a->e.n; i++)
		out[i] = a->e.v[i].expires == BW_ADOPTED_DROPPED;
	bw_entries_filter(&a->e, out);
	free(out);
	/* Indexed again: a sync of N records looks each up in O(1). */
	return bw_entries_index(&a->e);
}

/* Whether the records hold p with this expiry (0: never), not ended. */
static bool held(const struct bw_records *r, const struct bw_prefix *p,
		 __u64 exp, __u64 now)
{
	long k = bw_records_find(r, bw_key_prefix(p));

	return k >= 0 && r->added.v[k].expires == exp && (!exp || exp > now);
}

static int gone(struct bw_adopted *a, struct bw_live *set, void *target,
		const struct bw_records *r, __u64 now)
{
	struct bw_entry *e;
	size_t i;

	for (i = 0; i < a->e.n; i++) {
		e = &a->e.v[i];
		if (held(r, &e->p, e->expires, now))
			continue;
		bw_live_del(set, target, &e->p);
		e->expires = BW_ADOPTED_DROPPED;
	}
	return compact_adopted(a);
}

static int add(struct bw_adopted *a, struct bw_live *set, void *target,
	       const struct bw_prefix *p, __u64 exp, bool strict)
{
	char text[64];
	int err = bw_live_add(set, target, p, exp);

	if (!err) {
		err = bw_entries_push(&a->e, bw_key_prefix(p), exp);
		if (err)
			bw_live_del(set, target, p);
		return err;
	}
	if (!strict || err == -ENOMEM)
		return err == -ENOMEM ? err : 0;
	bw_prefix_str(p, text, sizeof(text));
	pr_warn("the entry %s added at run time has no target length in the new filter to be kept live in: built in instead\n",
		text);
	return err;
}

/* ---- names: the set's names are the adopted ones ------------------------ */

/* A live name the records no longer hold: copied, the table changes. */
struct gone_name {
	char name[256];
	__u8 len;
	bool subtree;
};

struct names_ctx {
	const struct bw_records *r; /* indexed */
	bool subdomains;	    /* --subdomains: every name is a subtree */
	__u64 now;
	struct bw_live *set;
	struct gone_name *gone; /* to delete after the walk */
	size_t ngone;
};

/* The set's form of records name e: a subtree under --subdomains. */
static bool rec_subtree(const struct names_ctx *c, const struct bw_entry *e)
{
	return c->subdomains || (e->d.flags & BW_DOM_SUBTREE);
}

/*
 * Records name of the set's entry, -1 when none; under --subdomains the
 * exact name and the subtree are the same entry, the first one wins.
 */
static long rec_name(const struct names_ctx *c, const char *name, size_t len,
		     bool subtree)
{
	long k = bw_records_find(
		     c->r,
		     bw_key_name(name, len, subtree ? BW_DOM_SUBTREE : 0)),
	     x;

	if (!c->subdomains || !subtree)
		return k;
	x = bw_records_find(c->r, bw_key_name(name, len, 0));
	return x >= 0 && (k < 0 || x < k) ? x : k;
}

/* Each live name the records no longer hold (or hold ended) noted. */
static int name_held(void *ctx, const char *name, size_t len, bool subtree,
		     __u32 refs, __u64 expires)
{
	struct names_ctx *c = ctx;
	long k = rec_name(c, name, len, subtree);
	__u64 exp = k >= 0 ? c->r->added.v[k].expires : 0;
	struct gone_name *g;

	(void)refs;
	if (k >= 0 && (!exp || exp > c->now)) {
		/* A new timeout, or none: the entry stays, its end moves. */
		if (exp != expires)
			bw_live_name_expiry(c->set, name, len, subtree, exp);
		return 0;
	}
	g = &c->gone[c->ngone++];
	memcpy(g->name, name, len);
	g->len = (__u8)len;
	g->subtree = subtree;
	return 0;
}

static int names_gone(struct names_ctx *c, void *target)
{
	size_t i;

	if (!c->set->names.n)
		return 0;
	c->gone = calloc(c->set->names.n, sizeof(*c->gone));
	if (!c->gone)
		return -ENOMEM;
	bw_live_each_name(c->set, name_held, c);
	for (i = 0; i < c->ngone; i++)
		bw_live_del_name(c->set, target, c->gone[i].name,
				 c->gone[i].len, c->gone[i].subtree);
	free(c->gone);
	return 0;
}

static int name_add(struct names_ctx *c, void *target, const struct bw_entry *e,
		    bool strict)
{
	const char *name = bw_entry_name(&c->r->added, e);
	bool sub = rec_subtree(c, e);
	int err;

	if (bw_live_has_name(c->set, name, e->d.len, sub, NULL))
		return 0;
	err = bw_live_add_name(c->set, target, name, e->d.len, sub, e->expires);
	if (!err || err == -ENOMEM)
		return err;
	if (!strict)
		return 0;
	pr_warn("the name %s%.*s added at run time has no name region in the new filter to be kept live in: built in instead\n",
		sub ? "*." : "", (int)e->d.len, name);
	return err;
}

/*
 * Added prefix i of r (entry e) into the set unless adopted already; one
 * listed twice (hostile) is taken once.
 */
static int prefix_add(struct bw_adopted *a, struct bw_live *set, void *target,
		      const struct bw_records *r, size_t i, bool strict)
{
	const struct bw_entry *e = &r->added.v[i];

	if (bw_records_find(r, bw_key_prefix(&e->p)) != (long)i ||
	    bw_entries_find(&a->e, bw_key_prefix(&e->p)) >= 0)
		return 0;
	return add(a, set, target, &e->p, e->expires, strict);
}

int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next)
{
	struct names_ctx c = { .now = now, .set = set };
	const struct bw_entry *e;
	struct bw_records r;
	size_t i;
	int err;

	*next = 0;
	bw_records_init(&r);
	if (bw_records_read(mem, nblocks, &r))
		return 0;
	c.r = &r;
	c.subdomains = r.have_dns && (r.dns.opts & BW_REC_DNS_SUBDOMAINS);
	/* Indexed: a sync of N records is O(N). */
	err = bw_entries_index(&r.added) ?: bw_entries_index(&a->e);
	if (!err)
		err = gone(a, set, target, &r, now) ?: names_gone(&c, target);
	for (i = 0; !err && i < r.added.n; i++) {
		e = &r.added.v[i];
		if (e->expires && e->expires <= now)
			continue;
		if (e->expires && (!*next || e->expires < *next))
			*next = e->expires;
		err = bw_entry_is_name(e)
			      ? name_add(&c, target, e, strict)
			      : prefix_add(a, set, target, &r, i, strict);
	}
	bw_records_free(&r);
	return err;
}

void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set)
{
	size_t i;

	for (i = 0; i < a->e.n; i++)
		if (!bw_live_has(set, &a->e.v[i].p, NULL))
			a->e.v[i].expires = BW_ADOPTED_DROPPED;
	compact_adopted(a);
}
