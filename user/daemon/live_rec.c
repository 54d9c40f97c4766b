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
