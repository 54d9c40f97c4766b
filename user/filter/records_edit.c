// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's records changed in memory (records.h): the entries and names
 * added at run time, the lists and allowlist files it was built from.
 * records.c reads and writes the area.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filter/records.h"
#include "filter/records_edit.h"

int bw_records_add(struct bw_records *r, struct bw_entry_key k)
{
	if (bw_records_find(r, k) >= 0)
		return 0;
	return bw_entries_push(&r->added, k, 0) ?: 1;
}

int bw_records_add_until(struct bw_records *r, struct bw_entry_key k,
			 __u64 expires)
{
	long i = bw_records_find(r, k);

	if (i >= 0) {
		r->added.v[i].expires = expires;
		return 0;
	}
	return bw_entries_push(&r->added, k, expires) ?: 1;
}

void bw_records_drop(struct bw_records *r, size_t i)
{
	bw_owners_clear(&r->owners, bw_entries_key(&r->added, i));
	bw_entries_drop(&r->added, i);
}

long bw_records_drop_all(struct bw_records *r, const struct bw_entries *out)
{
	bool *drop = calloc(r->added.n ?: 1, sizeof(*drop));
	size_t j;
	long i;

	if (!drop || bw_entries_index(&r->added)) {
		free(drop);
		return -ENOMEM;
	}
	for (j = 0; j < out->n; j++) {
		i = bw_records_find(r, bw_entries_key(out, j));
		if (i >= 0)
			drop[i] = true;
		/* Taken out whatever owns it. */
		bw_owners_clear(&r->owners, bw_entries_key(out, j));
	}
	i = (long)bw_entries_filter(&r->added, drop);
	free(drop);
	return i;
}

int bw_records_add_all(struct bw_records *r, const struct bw_entries *in)
{
	size_t i;

	if (bw_entries_index(&r->added))
		return -ENOMEM;
	for (i = 0; i < in->n; i++)
		if (bw_records_add_until(r, bw_entries_key(in, i),
					 in->v[i].expires) < 0)
			return -ENOMEM;
	return 0;
}

/* k as the records hold it, for the owners' rules. */
static struct bw_owned_entry held(const struct bw_records *r,
				  struct bw_entry_key k, long *at)
{
	struct bw_owned_entry e = { 0 };

	*at = bw_records_find(r, k);
	if (*at < 0)
		return e;
	e.expires = r->added.v[*at].expires;
	e.held = true;
	e.cur = bw_owners_get(&r->owners, k);
	return e;
}

int bw_records_add_owned(struct bw_records *r, struct bw_entry_key k,
			 const char *owner, __u64 expires)
{
	struct bw_owned set = { 0 };
	struct bw_owned_entry e;
	__u64 end = expires;
	long at;
	int err;

	/* A name, or an entry no owner claims, as without owners. */
	if (k.kind == BW_ENTRY_NAME ||
	    ((!owner || !*owner) && !bw_owners_get(&r->owners, k)))
		return bw_records_add_until(r, k, expires);
	e = held(r, k, &at);
	err = bw_owned_add(&e, owner, expires, &set, &end)
		      ?: bw_owners_put(&r->owners, k, &set);
	bw_owned_free(&set);
	return err ?: bw_records_add_until(r, k, end);
}

int bw_records_remove_owned(struct bw_records *r, struct bw_entry_key k,
			    const char *owner, __u64 now, __u64 *end)
{
	struct bw_owned set = { 0 };
	struct bw_owned_entry e;
	long at;
	int left;

	if (k.kind == BW_ENTRY_NAME)
		return BW_OWNED_NOT;
	e = held(r, k, &at);
	left = bw_owned_remove(&e, owner, now, &set, end);
	if (left == BW_OWNED_GONE)
		bw_records_drop(r, (size_t)at);
	else if (left == BW_OWNED_KEPT)
		left = bw_owners_put(&r->owners, k, &set)
			       ?: bw_records_add_until(r, k, *end) < 0 ? -ENOMEM
								       : left;
	bw_owned_free(&set);
	return left;
}

int bw_records_add_by(struct bw_records *r, const struct bw_entries *in,
		      const char *owner)
{
	size_t i;

	if (bw_entries_index(&r->added))
		return -ENOMEM;
	for (i = 0; i < in->n; i++)
		if (bw_records_add_owned(r, bw_entries_key(in, i), owner,
					 in->v[i].expires) < 0)
			return -ENOMEM;
	return 0;
}

long bw_records_remove_by(struct bw_records *r, const struct bw_entries *out,
			  const char *owner, __u64 now)
{
	long gone = 0;
	size_t i;
	__u64 end;
	int left;

	if (bw_entries_index(&r->added))
		return -ENOMEM;
	for (i = 0; i < out->n; i++) {
		left = bw_records_remove_owned(r, bw_entries_key(out, i), owner,
					       now, &end);
		if (left < 0)
			return left;
		gone += left == BW_OWNED_GONE;
	}
	return gone;
}

size_t bw_records_expiring(const struct bw_records *r, int kinds)
{
	size_t i, n = 0;

	for (i = 0; i < r->added.n; i++)
		n += (r->added.v[i].kind & kinds) && r->added.v[i].expires;
	return n;
}

size_t bw_records_expired(const struct bw_records *r, int kinds, __u64 now)
{
	const struct bw_entry *e;
	size_t i, n = 0;

	for (i = 0; i < r->added.n; i++) {
		e = &r->added.v[i];
		n += (e->kind & kinds) && e->expires && e->expires <= now;
	}
	return n;
}

size_t bw_records_drop_expired(struct bw_records *r, __u64 now)
{
	struct bw_entries *s = &r->added;
	size_t i, j = 0;

	for (i = 0; i < s->n; i++) {
		if (!s->v[i].expires || s->v[i].expires > now)
			s->v[j++] = s->v[i];
		else
			bw_owners_clear(&r->owners, bw_entries_key(s, i));
	}
	i = s->n - j;
	s->n = j;
	/* The arena keeps the dropped names' bytes, freed with the records. */
	if (i)
		bw_entries_unindex(s);
	return i;
}

__u64 bw_records_next_expiry(const struct bw_records *r)
{
	__u64 next = 0, e;
	size_t i;

	for (i = 0; i < r->added.n; i++) {
		e = r->added.v[i].expires;
		if (e && (!next || e < next))
			next = e;
	}
	return next;
}

__u64 bw_expiry_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec;
}

int bw_records_set_lists(struct bw_records *r, const char *const *lists, int n)
{
	char **l = calloc(n ?: 1, sizeof(*l));
	struct bw_rec_src *src = calloc(n ?: 1, sizeof(*src));
	int i;

	if (!l || !src) {
		free(l);
		free(src);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		l[i] = strndup(lists[i], BW_REC_PATH_MAX);
		if (!l[i])
			break;
	}
	if (i < n) {
		while (i--)
			free(l[i]);
		free(l);
		free(src);
		return -ENOMEM;
	}
	for (i = 0; i < r->nlists; i++)
		free(r->lists[i]);
	free(r->lists);
	free(r->src);
	r->lists = l;
	r->src = src;
	r->nlists = n;
	return 0;
}

void bw_records_set_source(struct bw_records *r, int i,
			   const struct bw_rec_source *s)
{
	if (i < 0 || i >= r->nlists)
		return;
	r->src[i].known = true;
	r->src[i].s = *s;
}

int bw_records_set_allow(struct bw_records *r, const char *const *paths,
			 const struct bw_rec_source *src, int n)
{
	char **l = calloc(n ?: 1, sizeof(*l));
	struct bw_rec_src *s = calloc(n ?: 1, sizeof(*s));
	int i;

	for (i = 0; l && s && i < n; i++) {
		l[i] = strndup(paths[i], BW_REC_PATH_MAX);
		if (!l[i])
			break;
		s[i].known = true;
		s[i].s = src[i];
	}
	if (!l || !s || i < n) {
		while (l && i--)
			free(l[i]);
		free(l);
		free(s);
		return -ENOMEM;
	}
	for (i = 0; i < r->nallow; i++)
		free(r->allow[i]);
	free(r->allow);
	free(r->allow_src);
	r->allow = l;
	r->allow_src = s;
	r->nallow = n;
	return 0;
}

int bw_records_copy_allow(struct bw_records *dst, const struct bw_records *src)
{
	struct bw_rec_source *s = calloc(src->nallow ?: 1, sizeof(*s));
	int i, err;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < src->nallow; i++)
		s[i] = src->allow_src[i].s;
	err = bw_records_set_allow(dst, (const char *const *)src->allow, s,
				   src->nallow);
	free(s);
	return err;
}
