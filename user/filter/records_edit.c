// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's records changed in memory (records.h): the entries and names
 * added at run time, the lists and allowlist files it was built from.
 * records.c reads and writes the area.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void bw_records_drop(struct bw_records *r, size_t i)
{
	if (i >= r->nadded)
		return;
	memmove(&r->added[i], &r->added[i + 1],
		(r->nadded - i - 1) * sizeof(r->added[0]));
	r->nadded--;
}

/* The arena keeps the name's bytes: a few bytes, freed with the records. */
void bw_records_drop_name(struct bw_records *r, size_t i)
{
	if (i >= r->names.ndom)
		return;
	memmove(&r->names.dom[i], &r->names.dom[i + 1],
		(r->names.ndom - i - 1) * sizeof(r->names.dom[0]));
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
