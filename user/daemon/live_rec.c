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
#include "filter/records_gone.h"
#include "filter/records_log.h"
#include "filter/records_read.h"
#include "lists/list_parse.h"

void bw_adopted_init(struct bw_adopted *a)
{
	memset(a, 0, sizeof(*a));
	bw_entries_init(&a->e);
	bw_rec_index_init(&a->ix);
}

void bw_adopted_free(struct bw_adopted *a)
{
	bw_entries_free(&a->e);
	bw_rec_index_free(&a->ix);
	a->dropped = 0;
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
	a->dropped = 0;
	/* Indexed again: a sync of N records looks each up in O(1). */
	return bw_entries_index(&a->e);
}

/* The adopted entry of p, -1 when none (or dropped). */
static long adopted_at(const struct bw_adopted *a, const struct bw_prefix *p)
{
	long j = bw_entries_find(&a->e, bw_key_prefix(p));

	return j >= 0 && a->e.v[j].expires != BW_ADOPTED_DROPPED ? j : -1;
}

/*
 * Adopted entry j dropped in place, its index kept; compacted once half
 * are: O(1) amortised a drop.
 */
static void drop_adopted(struct bw_adopted *a, long j)
{
	a->e.v[j].expires = BW_ADOPTED_DROPPED;
	if (++a->dropped > a->e.n / 2)
		compact_adopted(a);
}

/* ---- what the records hold, from a read or from the index -------------- */

/* The records (or the index) as the sync goes by them. */
struct view {
	const struct bw_records *r;    /* read: looked up here, */
	const struct bw_rec_index *ix; /* or here */
	bool subdomains; /* --subdomains: every name is a subtree */
	bool strict;
	__u64 now;
};

/* Whether the records hold k added and not ended by now, its end in *exp. */
static bool live_in(const struct view *v, struct bw_entry_key k, __u64 *exp)
{
	long x;

	*exp = 0;
	if (v->r) {
		x = bw_records_find(v->r, k);
		if (x < 0)
			return false;
		*exp = v->r->added.v[x].expires;
	} else if (!bw_rec_index_held(v->ix, k, exp)) {
		return false;
	}
	return !*exp || *exp > v->now;
}

/*
 * The set's name (subtree as the set has it) as the records hold it:
 * under --subdomains the exact name and the subtree of one text are one
 * entry, live while either is, until the later end of the two (never:
 * the latest). Its end in *exp.
 */
static bool name_live(const struct view *v, const char *name, size_t len,
		      bool subtree, __u64 *exp)
{
	bool ha = live_in(
		v, bw_key_name(name, len, subtree ? BW_DOM_SUBTREE : 0), exp);
	__u64 b;

	if (!v->subdomains || !subtree ||
	    !live_in(v, bw_key_name(name, len, 0), &b))
		return ha;
	if (ha)
		*exp = !*exp || !b ? 0 : (*exp > b ? *exp : b);
	else
		*exp = b;
	return true;
}

/* ---- prefixes ----------------------------------------------------------- */

static int add(struct bw_adopted *a, struct bw_live *set, void *target,
	       const struct bw_prefix *p, __u64 exp, bool strict)
{
	char text[64];
	int err = bw_live_add(set, target, p, exp);
	long j;

	if (!err) {
		/* A dropped one again: its place, its index kept. */
		j = bw_entries_find(&a->e, bw_key_prefix(p));
		if (j >= 0) {
			a->e.v[j].expires = exp;
			a->dropped--;
			return 0;
		}
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

/* The adopted that the records no longer hold with their expiry, out. */
static int gone(struct bw_adopted *a, struct bw_live *set, void *target,
		const struct view *v)
{
	struct bw_entry *e;
	__u64 exp;
	size_t i;

	for (i = 0; i < a->e.n; i++) {
		e = &a->e.v[i];
		if (e->expires == BW_ADOPTED_DROPPED ||
		    (live_in(v, bw_key_prefix(&e->p), &exp) &&
		     exp == e->expires))
			continue;
		bw_live_del(set, target, &e->p);
		e->expires = BW_ADOPTED_DROPPED;
	}
	return compact_adopted(a);
}

/* Prefix p adopted as the records hold it: added, again, or out. */
static int prefix_sync(struct bw_adopted *a, struct bw_live *set, void *target,
		       const struct view *v, const struct bw_prefix *p)
{
	long j = adopted_at(a, p);
	__u64 exp;
	bool live = live_in(v, bw_key_prefix(p), &exp);

	if (j >= 0 && live && a->e.v[j].expires == exp)
		return 0;
	if (j >= 0) {
		bw_live_del(set, target, p);
		drop_adopted(a, j);
	}
	return live ? add(a, set, target, p, exp, v->strict) : 0;
}

/* ---- names: the set's names are the adopted ones ------------------------ */

/* A live name the records no longer hold: copied, the table changes. */
struct gone_name {
	char name[256];
	__u8 len;
	bool subtree;
};

struct names_ctx {
	const struct view *v;
	struct bw_live *set;
	struct gone_name *gone; /* to delete after the walk */
	size_t ngone;
};

/* Each live name the records no longer hold (or hold ended) noted. */
static int name_held(void *ctx, const char *name, size_t len, bool subtree,
		     __u32 refs, __u64 expires)
{
	struct names_ctx *c = ctx;
	struct gone_name *g;
	__u64 exp;

	(void)refs;
	if (name_live(c->v, name, len, subtree, &exp)) {
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

/* The set's name as the records hold it: added, its end moved, or out. */
static int name_sync(const struct view *v, struct bw_live *set, void *target,
		     const char *name, size_t len, bool subtree)
{
	__u64 exp, cur;
	bool live = name_live(v, name, len, subtree, &exp);
	int err;

	if (bw_live_has_name(set, name, len, subtree, &cur)) {
		if (!live)
			bw_live_del_name(set, target, name, len, subtree);
		else if (cur != exp)
			bw_live_name_expiry(set, name, len, subtree, exp);
		return 0;
	}
	if (!live)
		return 0;
	err = bw_live_add_name(set, target, name, len, subtree, exp);
	if (!err || err == -ENOMEM)
		return err;
	if (!v->strict)
		return 0;
	pr_warn("the name %s%.*s added at run time has no name region in the new filter to be kept live in: built in instead\n",
		subtree ? "*." : "", (int)len, name);
	return err;
}

/* Entry i of s (a name) synced, as the set has it. */
static int entry_name_sync(const struct view *v, struct bw_live *set,
			   void *target, const struct bw_entries *s, size_t i)
{
	const struct bw_entry *e = &s->v[i];

	return name_sync(v, set, target, bw_entry_name(s, e), e->d.len,
			 v->subdomains || (e->d.flags & BW_DOM_SUBTREE));
}

/*
 * Added prefix i of r (entry e) into the set unless adopted already; one
 * listed twice (hostile) is taken once.
 */
static int prefix_add(struct bw_adopted *a, struct bw_live *set, void *target,
		      const struct view *v, size_t i)
{
	const struct bw_entry *e = &v->r->added.v[i];

	if (bw_records_find(v->r, bw_key_prefix(&e->p)) != (long)i ||
	    adopted_at(a, &e->p) >= 0)
		return 0;
	return add(a, set, target, &e->p, e->expires, v->strict);
}

int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next)
{
	struct view v = { .strict = strict, .now = now };
	struct names_ctx c = { .v = &v, .set = set };
	const struct bw_entry *e;
	struct bw_records r;
	__u32 marks;
	size_t i;
	int err;

	*next = 0;
	bw_records_init(&r);
	/* Before the records: a mark made after this leaves it stale. */
	marks = bw_records_marks(mem, nblocks);
	if (bw_records_read(mem, nblocks, &r)) {
		bw_rec_index_forget(&a->ix);
		return 0;
	}
	v.r = &r;
	v.subdomains = r.have_dns && (r.dns.opts & BW_REC_DNS_SUBDOMAINS);
	/* Indexed: a sync of N records is O(N). */
	err = bw_entries_index(&r.added) ?: bw_entries_index(&a->e);
	if (!err)
		err = gone(a, set, target, &v) ?: names_gone(&c, target);
	for (i = 0; !err && i < r.added.n; i++) {
		e = &r.added.v[i];
		if (e->expires && e->expires <= now)
			continue;
		if (e->expires && (!*next || e->expires < *next))
			*next = e->expires;
		err = bw_entry_is_name(e)
			      ? entry_name_sync(&v, set, target, &r.added, i)
			      : prefix_add(a, set, target, &v, i);
	}
	/* The next changes of this watch's own go by the index. */
	if (bw_rec_index_build(&a->ix, mem, nblocks, &r, marks))
		bw_rec_index_forget(&a->ix);
	bw_records_free(&r);
	return err;
}

/* ---- the watch's own changes, through the index -------------------------- */

int bw_adopted_append(struct bw_adopted *a, void *mem, __u32 nblocks,
		      const struct bw_entries *s, const struct bw_owners *own)
{
	int err = bw_rec_index_add(&a->ix, mem, nblocks, s, own);

	/* Claims are planned from a current index alone (live_ask.c). */
	if (err != -ESTALE || (own && bw_owners_count(own)))
		return err;
	bw_rec_index_forget(&a->ix);
	return bw_records_log_add(mem, nblocks, s);
}

long bw_adopted_mark(struct bw_adopted *a, void *mem, __u32 nblocks,
		     const struct bw_entries *s, bool *found)
{
	long k = bw_rec_index_mark(&a->ix, mem, nblocks, s, found);

	if (k != -ESTALE)
		return k;
	bw_rec_index_forget(&a->ix);
	return bw_records_mark_gone_all(mem, nblocks, s, found);
}

int bw_adopted_apply(struct bw_adopted *a, struct bw_live *set, void *target,
		     const struct bw_entries *s, __u64 now)
{
	struct view v = { .ix = &a->ix,
			  .subdomains = a->ix.subdomains,
			  .now = now };
	size_t i;
	int err = 0;

	if (!a->ix.valid)
		return -ESTALE;
	for (i = 0; !err && i < s->n; i++)
		err = bw_entry_is_name(&s->v[i])
			      ? entry_name_sync(&v, set, target, s, i)
			      : prefix_sync(a, set, target, &v, &s->v[i].p);
	return err;
}

bool bw_adopted_moved(const struct bw_adopted *a, const void *mem,
		      __u32 nblocks)
{
	return a->ix.valid && !bw_rec_index_current(&a->ix, mem, nblocks);
}

int bw_adopted_subdomains(const struct bw_adopted *a, const void *mem,
			  __u32 nblocks, bool *subdomains)
{
	struct bw_records r;

	if (a->ix.valid && a->ix.mem == mem) {
		*subdomains = a->ix.subdomains;
		return 0;
	}
	if (bw_records_read(mem, nblocks, &r))
		return -EINVAL;
	*subdomains = r.have_dns && (r.dns.opts & BW_REC_DNS_SUBDOMAINS);
	bw_records_free(&r);
	return 0;
}

int bw_adopted_log_room(const struct bw_adopted *a, const void *mem,
			__u32 nblocks, __u64 *room, __u64 *left)
{
	if (bw_rec_index_current(&a->ix, mem, nblocks) &&
	    !bw_records_log_room_at(mem, nblocks, a->ix.end, room, left))
		return 0;
	return bw_records_log_room(mem, nblocks, room, left);
}

void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set)
{
	size_t i;

	for (i = 0; i < a->e.n; i++)
		if (!bw_live_has(set, &a->e.v[i].p, NULL))
			a->e.v[i].expires = BW_ADOPTED_DROPPED;
	compact_adopted(a);
}
