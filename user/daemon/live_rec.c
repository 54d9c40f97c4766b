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
	free(a->p);
	free(a->expires);
	memset(a, 0, sizeof(*a));
}

/*
 * The adopted are kept sorted by prefix (a sync's pushes append, then
 * sort_adopted at its end; it looks up the sorted part only, each record
 * once), so that a sync of N records is n log n.
 */
static long find(const struct bw_adopted *a, const struct bw_prefix *p)
{
	size_t lo = 0, hi = a->sorted, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = bw_prefix_cmp(&a->p[mid], p);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct pair {
	struct bw_prefix p;
	__u64 expires;
};

static int cmp_pair(const void *x, const void *y)
{
	return bw_prefix_cmp(&((const struct pair *)x)->p,
			     &((const struct pair *)y)->p);
}

static int sort_adopted(struct bw_adopted *a)
{
	struct pair *v = malloc((a->n ?: 1) * sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < a->n; i++)
		v[i] = (struct pair){ a->p[i], a->expires[i] };
	qsort(v, a->n, sizeof(*v), cmp_pair);
	for (i = 0; i < a->n; i++) {
		a->p[i] = v[i].p;
		a->expires[i] = v[i].expires;
	}
	a->sorted = a->n;
	free(v);
	return 0;
}

/* Marks entry i dropped: compact_adopted takes the marked out. */
static void drop(struct bw_adopted *a, size_t i)
{
	a->expires[i] = BW_ADOPTED_DROPPED;
}

static void compact_adopted(struct bw_adopted *a)
{
	size_t i, j = 0;

	for (i = 0; i < a->n; i++) {
		if (a->expires[i] == BW_ADOPTED_DROPPED)
			continue;
		a->p[j] = a->p[i];
		a->expires[j++] = a->expires[i];
	}
	a->n = j;
	a->sorted = j;
}

static int push(struct bw_adopted *a, const struct bw_prefix *p, __u64 exp)
{
	size_t cap = a->cap ? a->cap * 2 : 16;
	struct bw_prefix *np;
	__u64 *ne;

	if (a->n == a->cap) {
		np = realloc(a->p, cap * sizeof(*np));
		if (np)
			a->p = np;
		ne = np ? realloc(a->expires, cap * sizeof(*ne)) : NULL;
		if (!ne)
			return -ENOMEM;
		a->expires = ne;
		a->cap = cap;
	}
	a->p[a->n] = *p;
	a->expires[a->n++] = exp;
	return 0;
}

/* The records' added entries by prefix (first of equal ones first). */
struct rec_index {
	const struct bw_records *r;
	size_t *ix;
};

static int index_records(struct rec_index *x, const struct bw_records *r)
{
	x->r = r;
	x->ix = bw_prefix_index(r->added, r->nadded);
	return x->ix ? 0 : -ENOMEM;
}

/* The records' entry p (the first if listed twice), or -1. */
static long rec_find(const struct rec_index *x, const struct bw_prefix *p)
{
	return bw_prefix_index_find(x->r->added, x->ix, x->r->nadded, p);
}

/* Whether the records hold p with this expiry (0: never), not ended. */
static bool held(const struct rec_index *x, const struct bw_prefix *p,
		 __u64 exp, __u64 now)
{
	long k = rec_find(x, p);

	return k >= 0 && x->r->added_expires[k] == exp && (!exp || exp > now);
}

static void gone(struct bw_adopted *a, struct bw_live *set, void *target,
		 const struct rec_index *x, __u64 now)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (held(x, &a->p[i], a->expires[i], now))
			continue;
		bw_live_del(set, target, &a->p[i]);
		drop(a, i);
	}
	compact_adopted(a);
}

static int add(struct bw_adopted *a, struct bw_live *set, void *target,
	       const struct bw_prefix *p, __u64 exp, bool strict)
{
	char text[64];
	int err = bw_live_add(set, target, p, exp);

	if (!err) {
		err = push(a, p, exp);
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
	const struct bw_records *r;
	size_t *ix;	 /* the records' names in bw_name_cmp order */
	bool subdomains; /* --subdomains: every name is a subtree */
	__u64 now;
	struct bw_live *set;
	struct gone_name *gone; /* to delete after the walk */
	size_t ngone;
};

/* The set's form of records name i: a subtree under --subdomains. */
static bool rec_subtree(const struct names_ctx *c, size_t i)
{
	return c->subdomains || (c->r->names.dom[i].flags & BW_DOM_SUBTREE);
}

/* The records' name i against the set's entry. */
static int cmp_rec(const struct names_ctx *c, size_t i, const char *name,
		   size_t len, bool subtree)
{
	const struct bw_list *l = &c->r->names;

	return bw_name_cmp(rec_subtree(c, i), l->dom[i].len,
			   bw_domain_name(l, &l->dom[i]), subtree, len, name);
}

static int cmp_names_ix(const void *x, const void *y, void *arg)
{
	const struct names_ctx *c = arg;
	const struct bw_list *l = &c->r->names;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int d = cmp_rec(c, i, bw_domain_name(l, &l->dom[j]), l->dom[j].len,
			rec_subtree(c, j));

	return d ?: (i > j) - (i < j);
}

static int index_names(struct names_ctx *c)
{
	size_t i, n = c->r->names.ndom;

	c->ix = malloc((n ?: 1) * sizeof(*c->ix));
	if (!c->ix)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		c->ix[i] = i;
	qsort_r(c->ix, n, sizeof(*c->ix), cmp_names_ix, c);
	return 0;
}

/* Records name of the set's entry, -1 when none (first one wins). */
static long rec_name(const struct names_ctx *c, const char *name, size_t len,
		     bool subtree)
{
	size_t lo = 0, hi = c->r->names.ndom, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_rec(c, c->ix[mid], name, len, subtree) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->r->names.ndom && !cmp_rec(c, c->ix[lo], name, len, subtree))
		return (long)c->ix[lo];
	return -1;
}

/* Each live name the records no longer hold (or hold ended) noted. */
static int name_held(void *ctx, const char *name, size_t len, bool subtree,
		     __u32 refs, __u64 expires)
{
	struct names_ctx *c = ctx;
	long k = rec_name(c, name, len, subtree);
	__u64 exp = k >= 0 ? c->r->names_expires[k] : 0;
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

static int name_add(struct names_ctx *c, void *target, size_t i, __u64 exp,
		    bool strict)
{
	const struct bw_domain *d = &c->r->names.dom[i];
	const char *name = bw_domain_name(&c->r->names, d);
	bool sub = rec_subtree(c, i);
	int err;

	if (bw_live_has_name(c->set, name, d->len, sub, NULL))
		return 0;
	err = bw_live_add_name(c->set, target, name, d->len, sub, exp);
	if (!err || err == -ENOMEM)
		return err;
	if (!strict)
		return 0;
	pr_warn("the name %s%.*s added at run time has no name region in the new filter to be kept live in: built in instead\n",
		sub ? "*." : "", (int)d->len, name);
	return err;
}

/* The set's names made the records' (those not ended by now). */
static int names_sync(struct bw_live *set, const struct bw_records *r,
		      void *target, bool strict, __u64 now, __u64 *next)
{
	struct names_ctx c = { .r = r, .now = now, .set = set };
	size_t i;
	int err;

	c.subdomains = r->have_dns && (r->dns.opts & BW_REC_DNS_SUBDOMAINS);
	err = index_names(&c) ?: names_gone(&c, target);
	for (i = 0; !err && i < r->names.ndom; i++) {
		__u64 exp = r->names_expires[i];

		if (exp && exp <= now)
			continue;
		if (exp && (!*next || exp < *next))
			*next = exp;
		err = name_add(&c, target, i, exp, strict);
	}
	free(c.ix);
	return err;
}

int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next)
{
	struct rec_index x = {};
	struct bw_records r;
	size_t i;
	int err = 0;

	*next = 0;
	bw_records_init(&r);
	if (bw_records_read(mem, nblocks, &r))
		return 0;
	err = index_records(&x, &r) ?: sort_adopted(a);
	if (!err)
		gone(a, set, target, &x, now);
	for (i = 0; !err && i < r.nadded; i++) {
		__u64 exp = r.added_expires[i];

		if (exp && exp <= now)
			continue;
		if (exp && (!*next || exp < *next))
			*next = exp;
		/* An entry listed twice (hostile) is taken once. */
		if (rec_find(&x, &r.added[i]) != (long)i)
			continue;
		if (find(a, &r.added[i]) < 0)
			err = add(a, set, target, &r.added[i], exp, strict);
	}
	if (!err)
		err = sort_adopted(a);
	if (!err)
		err = names_sync(set, &r, target, strict, now, next);
	free(x.ix);
	bw_records_free(&r);
	return err;
}

void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!bw_live_has(set, &a->p[i], NULL))
			drop(a, i);
	compact_adopted(a);
}
