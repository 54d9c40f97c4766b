// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's records in memory (records.h): the added entries and names
 * as the reader and the editors push and find them; records_read.c reads
 * an area, records_write.c writes one, records_edit.c changes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/records.h"

void bw_records_init(struct bw_records *r)
{
	memset(r, 0, sizeof(*r));
	bw_list_init(&r->names);
	bw_list_init(&r->gone_names);
}

void bw_records_free(struct bw_records *r)
{
	int i;

	for (i = 0; i < r->nlists; i++)
		free(r->lists[i]);
	free(r->lists);
	free(r->src);
	for (i = 0; i < r->nallow; i++)
		free(r->allow[i]);
	free(r->allow);
	free(r->allow_src);
	free(r->added);
	free(r->added_expires);
	free(r->gone);
	bw_list_free(&r->names);
	free(r->names_expires);
	bw_list_free(&r->gone_names);
	free(r->other);
	bw_records_init(r);
}

__u32 bw_records_start(const void *mem)
{
	const struct bw_hdr *hdr = mem;
	const struct bw_dns_hdr *dns = NULL;

	if (hdr->flags & BW_F_DNS)
		dns = (const void *)((const char *)mem +
				     (size_t)bw_dns_block(hdr) *
					     BW_BLOCK_BYTES);
	return bw_regions_end(hdr, dns);
}

/* ---- prefixes ------------------------------------------------------------ */

int bw_records_push_added(struct bw_records *r, const struct bw_prefix *p)
{
	struct bw_prefix *n;
	__u64 *e;
	size_t cap;

	if (r->nadded == r->cap) {
		cap = r->cap ? 2 * r->cap : 16;
		n = realloc(r->added, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->added = n;
		e = realloc(r->added_expires, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->added_expires = e;
		r->cap = cap;
	}
	r->added_expires[r->nadded] = 0;
	r->added[r->nadded++] = *p;
	return 0;
}

long bw_records_find(const struct bw_records *r, const struct bw_prefix *p)
{
	size_t i;

	for (i = 0; i < r->nadded; i++)
		if (bw_prefix_same(&r->added[i], p))
			return (long)i;
	return -1;
}

static bool same_names(const struct bw_records *ra, const struct bw_records *rb)
{
	const struct bw_list *a = &ra->names, *b = &rb->names;
	size_t i;

	if (a->ndom != b->ndom)
		return false;
	for (i = 0; i < a->ndom; i++)
		if (a->dom[i].len != b->dom[i].len ||
		    a->dom[i].flags != b->dom[i].flags ||
		    ra->names_expires[i] != rb->names_expires[i] ||
		    memcmp(bw_domain_name(a, &a->dom[i]),
			   bw_domain_name(b, &b->dom[i]), a->dom[i].len))
			return false;
	return true;
}

bool bw_records_same_added(const struct bw_records *a,
			   const struct bw_records *b)
{
	size_t i;

	if (a->nadded != b->nadded)
		return false;
	for (i = 0; i < a->nadded; i++)
		if (!bw_prefix_same(&a->added[i], &b->added[i]) ||
		    a->added_expires[i] != b->added_expires[i])
			return false;
	return same_names(a, b);
}

/* ---- names --------------------------------------------------------------- */

/* Room in names_expires for one more name. */
static int grow_expires(struct bw_records *r)
{
	size_t cap = r->names_cap ? r->names_cap : 16;
	__u64 *e;

	if (r->names.ndom < r->names_cap)
		return 0;
	while (cap <= r->names.ndom)
		cap *= 2;
	e = realloc(r->names_expires, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->names_expires = e;
	r->names_cap = cap;
	return 0;
}

int bw_records_push_name(struct bw_records *r, const char *name, size_t len,
			 __u8 flags)
{
	if (grow_expires(r) || bw_domain_push(&r->names, name, len, flags))
		return -ENOMEM;
	r->names_expires[r->names.ndom - 1] = 0;
	return 0;
}

long bw_records_find_name(const struct bw_records *r, const char *name,
			  size_t len, __u8 flags)
{
	const struct bw_domain *d;
	size_t i;

	for (i = 0; i < r->names.ndom; i++) {
		d = &r->names.dom[i];
		if (d->len == len && d->flags == flags &&
		    !memcmp(bw_domain_name(&r->names, d), name, len))
			return (long)i;
	}
	return -1;
}

int bw_records_add_name(struct bw_records *r, const char *name, size_t len,
			__u8 flags)
{
	if (bw_records_find_name(r, name, len, flags) >= 0)
		return 0;
	return bw_records_push_name(r, name, len, flags) ?: 1;
}

int bw_records_add_name_until(struct bw_records *r, const char *name,
			      size_t len, __u8 flags, __u64 expires)
{
	long i = bw_records_find_name(r, name, len, flags);
	int err;

	if (i >= 0) {
		r->names_expires[i] = expires;
		return 0;
	}
	err = bw_records_push_name(r, name, len, flags);
	if (err)
		return err;
	r->names_expires[r->names.ndom - 1] = expires;
	return 1;
}
