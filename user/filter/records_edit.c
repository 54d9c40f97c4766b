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

int bw_records_add(struct bw_records *r, const struct bw_prefix *p)
{
	int err;

	if (bw_records_find(r, p) >= 0)
		return 0;
	err = bw_records_push_added(r, p);
	return err ?: 1;
}

int bw_records_add_until(struct bw_records *r, const struct bw_prefix *p,
			 __u64 expires)
{
	long i = bw_records_find(r, p);
	int err;

	if (i >= 0) {
		r->added_expires[i] = expires;
		return 0;
	}
	err = bw_records_push_added(r, p);
	if (err)
		return err;
	r->added_expires[r->nadded - 1] = expires;
	return 1;
}

void bw_records_drop(struct bw_records *r, size_t i)
{
	if (i >= r->nadded)
		return;
	memmove(&r->added[i], &r->added[i + 1],
		(r->nadded - i - 1) * sizeof(r->added[0]));
	memmove(&r->added_expires[i], &r->added_expires[i + 1],
		(r->nadded - i - 1) * sizeof(r->added_expires[0]));
	r->nadded--;
}

size_t bw_records_expiring(const struct bw_records *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nadded; i++)
		n += r->added_expires[i] != 0;
	return n;
}

size_t bw_records_expired(const struct bw_records *r, __u64 now)
{
	size_t i, n = 0;

	for (i = 0; i < r->nadded; i++)
		n += r->added_expires[i] && r->added_expires[i] <= now;
	return n;
}

size_t bw_records_names_expiring(const struct bw_records *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->names.ndom; i++)
		n += r->names_expires[i] != 0;
	return n;
}

size_t bw_records_names_expired(const struct bw_records *r, __u64 now)
{
	size_t i, n = 0;

	for (i = 0; i < r->names.ndom; i++)
		n += r->names_expires[i] && r->names_expires[i] <= now;
	return n;
}

/* The arena keeps the dropped names' bytes, as bw_records_drop_name. */
static size_t drop_expired_names(struct bw_records *r, __u64 now)
{
	__u64 *e = r->names_expires;
	size_t i, j = 0;

	for (i = 0; i < r->names.ndom; i++) {
		if (e[i] && e[i] <= now)
			continue;
		r->names.dom[j] = r->names.dom[i];
		e[j++] = e[i];
	}
	i = r->names.ndom - j;
	r->names.ndom = j;
	return i;
}

size_t bw_records_drop_expired(struct bw_records *r, __u64 now)
{
	size_t i, j = 0;

	for (i = 0; i < r->nadded; i++) {
		if (r->added_expires[i] && r->added_expires[i] <= now)
			continue;
		r->added[j] = r->added[i];
		r->added_expires[j++] = r->added_expires[i];
	}
	i = r->nadded - j;
	r->nadded = j;
	return i + drop_expired_names(r, now);
}

__u64 bw_records_next_expiry(const struct bw_records *r)
{
	__u64 next = 0;
	size_t i;

	for (i = 0; i < r->nadded; i++)
		if (r->added_expires[i] &&
		    (!next || r->added_expires[i] < next))
			next = r->added_expires[i];
	return next;
}

__u64 bw_records_names_next_expiry(const struct bw_records *r)
{
	__u64 next = 0;
	size_t i;

	for (i = 0; i < r->names.ndom; i++)
		if (r->names_expires[i] &&
		    (!next || r->names_expires[i] < next))
			next = r->names_expires[i];
	return next;
}

__u64 bw_expiry_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec;
}

/* The arena keeps the name's bytes: a few bytes, freed with the records. */
void bw_records_drop_name(struct bw_records *r, size_t i)
{
	if (i >= r->names.ndom)
		return;
	memmove(&r->names.dom[i], &r->names.dom[i + 1],
		(r->names.ndom - i - 1) * sizeof(r->names.dom[0]));
	memmove(&r->names_expires[i], &r->names_expires[i + 1],
		(r->names.ndom - i - 1) * sizeof(r->names_expires[0]));
	r->names.ndom--;
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
