// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's records in memory (records.h): set up, freed, the added
 * entries compared; records_read.c reads an area, records_write.c writes
 * one, records_edit.c changes them.
 */
#include <stdlib.h>
#include <string.h>

#include "filter/records.h"

__u64 bw_records_visits;

void bw_records_init(struct bw_records *r)
{
	memset(r, 0, sizeof(*r));
	bw_entries_init(&r->added);
	bw_entries_init(&r->gone);
	bw_owners_init(&r->owners);
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
	bw_entries_free(&r->added);
	bw_entries_free(&r->gone);
	bw_owners_free(&r->owners);
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

/* The entry of kind at or after *i in s, *i moved past it; NULL: none. */
static const struct bw_entry *next_of(const struct bw_entries *s, size_t *i,
				      __u8 kind)
{
	while (*i < s->n && s->v[*i].kind != kind)
		++*i;
	return *i < s->n ? &s->v[(*i)++] : NULL;
}

bool bw_records_same_added(const struct bw_records *a,
			   const struct bw_records *b)
{
	const struct bw_entries *x = &a->added, *y = &b->added;
	const struct bw_entry *e, *f;
	struct bw_entry_key k;
	size_t i, j;
	__u8 kind;

	if (x->n != y->n)
		return false;
	for (kind = BW_ENTRY_PREFIX; kind <= BW_ENTRY_NAME; kind++) {
		i = j = 0;
		do {
			e = next_of(x, &i, kind);
			f = next_of(y, &j, kind);
			if (!e || !f)
				break;
			k = bw_entries_key(x, i - 1);
			if (e->expires != f->expires ||
			    !bw_entries_is(y, j - 1, &k))
				return false;
		} while (e && f);
		if (e || f)
			return false;
	}
	return bw_owners_same(&a->owners, &b->owners);
}
