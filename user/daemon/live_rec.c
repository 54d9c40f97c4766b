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
#include "lists/list_parse.h"

void bw_adopted_free(struct bw_adopted *a)
{
	free(a->p);
	free(a->expires);
	memset(a, 0, sizeof(*a));
}

static long find(const struct bw_adopted *a, const struct bw_prefix *p)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (bw_prefix_same(&a->p[i], p))
			return (long)i;
	return -1;
}

static void drop(struct bw_adopted *a, size_t i)
{
	a->p[i] = a->p[a->n - 1];
	a->expires[i] = a->expires[a->n - 1];
	a->n--;
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

/* Whether the records hold p with this expiry (0: never), not ended. */
static bool held(const struct bw_records *r, const struct bw_prefix *p,
		 __u64 exp, __u64 now)
{
	long k = bw_records_find(r, p);

	return k >= 0 && r->added_expires[k] == exp && (!exp || exp > now);
}

static void gone(struct bw_adopted *a, struct bw_live *set, void *target,
		 const struct bw_records *r, __u64 now)
{
	size_t i = 0;

	while (i < a->n) {
		if (held(r, &a->p[i], a->expires[i], now)) {
			i++;
			continue;
		}
		bw_live_del(set, target, &a->p[i]);
		drop(a, i);
	}
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

/* Records name of the set's entry, -1 when none (first one wins). */
static long rec_name(const struct names_ctx *c, const char *name, size_t len,
		     bool subtree)
{
	const struct bw_list *l = &c->r->names;
	size_t i;

	for (i = 0; i < l->ndom; i++)
		if (l->dom[i].len == len && rec_subtree(c, i) == subtree &&
		    !memcmp(bw_domain_name(l, &l->dom[i]), name, len))
			return (long)i;
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
	err = names_gone(&c, target);
	for (i = 0; !err && i < r->names.ndom; i++) {
		__u64 exp = r->names_expires[i];

		if (exp && exp <= now)
			continue;
		if (exp && (!*next || exp < *next))
			*next = exp;
		err = name_add(&c, target, i, exp, strict);
	}
	return err;
}

int bw_adopted_sync(struct bw_adopted *a, struct bw_live *set, const void *mem,
		    __u32 nblocks, void *target, bool strict, __u64 now,
		    __u64 *next)
{
	struct bw_records r;
	size_t i;
	int err = 0;

	*next = 0;
	bw_records_init(&r);
	if (bw_records_read(mem, nblocks, &r))
		return 0;
	gone(a, set, target, &r, now);
	for (i = 0; !err && i < r.nadded; i++) {
		__u64 exp = r.added_expires[i];

		if (exp && exp <= now)
			continue;
		if (exp && (!*next || exp < *next))
			*next = exp;
		if (find(a, &r.added[i]) < 0)
			err = add(a, set, target, &r.added[i], exp, strict);
	}
	if (!err)
		err = names_sync(set, &r, target, strict, now, next);
	bw_records_free(&r);
	return err;
}

void bw_adopted_prune(struct bw_adopted *a, const struct bw_live *set)
{
	size_t i = 0;

	while (i < a->n) {
		if (bw_live_has(set, &a->p[i], NULL)) {
			i++;
			continue;
		}
		drop(a, i);
	}
}
