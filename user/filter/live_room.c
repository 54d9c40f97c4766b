// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Room for live entries in a filter a watch builds (live_room.h). */
#include <errno.h>
#include <string.h>

#include "base/table.h"
#include "filter/bloom.h"
#include "filter/live_room.h"
#include "filter/records.h"
#include "filter/records_read.h"

void bw_room_init(struct bw_live_room *r)
{
	memset(r, 0, sizeof(*r));
}

void bw_room_add(struct bw_live_room *r, const struct bw_prefix *p)
{
	if (p->family >= BW_FAMILIES || p->plen > BW_CIDR_WIDTH(p->family))
		return;
	r->count[p->family][p->plen]++;
}

bool bw_room_any(const struct bw_live_room *r)
{
	unsigned int f, j;

	if (r->host_targets || r->names[BW_NAME_EXACT] ||
	    r->names[BW_NAME_SUBTREE])
		return true;
	for (f = 0; f < BW_FAMILIES; f++)
		for (j = 0; j <= BW_CIDR_WIDTH(f); j++)
			if (r->count[f][j])
				return true;
	return false;
}

void bw_room_extra(const struct bw_live_room *r,
		   const unsigned int *max_lengths,
		   __u64 extra[BW_FAMILIES][BW_CIDR_MAXW + 1])
{
	unsigned int f, w;

	memcpy(extra, r->count, sizeof(r->count));
	for (f = 0; f < BW_FAMILIES; f++) {
		w = BW_CIDR_WIDTH(f);
		/* One host key: the host length is always a target then. */
		if (r->host_targets && !extra[f][w] && max_lengths[f] != 1)
			extra[f][w] = 1;
	}
}

void bw_room_sizes(const struct bw_cidr_stats *st,
		   __u64 room[BW_FAMILIES][BW_CIDR_MAXW + 1])
{
	const struct bw_cidr_family_stats *fs;
	unsigned int f, i;

	memset(room, 0, sizeof(__u64) * BW_FAMILIES * (BW_CIDR_MAXW + 1));
	for (f = 0; f < BW_FAMILIES; f++) {
		fs = &st->fam[f];
		for (i = 0; i < fs->nlengths; i++)
			room[f][fs->plen[i]] = bw_room_for(fs->extra_keys[i]);
	}
}

int bw_room_sized(const void *mem, __u32 nblocks, __u32 *sized)
{
	struct bw_records r;
	int err = bw_records_read(mem, nblocks, &r);

	if (err)
		return err;
	err = r.have_sized ? 0 : -ENOENT;
	if (!err)
		memcpy(sized, r.sized.region_entries,
		       sizeof(r.sized.region_entries));
	bw_records_free(&r);
	return err;
}

/* The region block idx is in, or -1. */
static int region_of(const struct bw_hdr *h, __u32 idx)
{
	int r;

	for (r = 0; r < BW_REGIONS; r++)
		if (idx < h->region_end[r])
			return r;
	return -1;
}

/* The name region block idx is in (mem's), or -1. */
static int name_region_of(const void *mem, __u32 idx)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	int n;

	for (n = 0; dns && n < BW_NAME_REGIONS; n++)
		if (idx >= bw_name_region_start(mem, dns, (__u32)n) &&
		    idx < dns->region_end[n])
			return n;
	return -1;
}

void bw_room_live_keys(const struct bw_live *l, const void *mem,
		       struct bw_rate_more *m)
{
	struct bw_live_slot *s;
	size_t i = 0;
	int r;

	memset(m, 0, sizeof(*m));
	if (!l->have_hdr)
		return;
	while ((s = bw_table_next(&l->blocks.t, &i))) {
		r = region_of(&l->hdr, s->idx);
		if (r >= 0)
			m->keys[r] += s->b->nkeys;
		else if (mem && (r = name_region_of(mem, s->idx)) >= 0)
			m->names[r] += s->b->nkeys;
	}
}

int bw_room_outgrown(const struct bw_live *l, const struct bw_info *info,
		     const __u32 *sized, __u64 *keys)
{
	struct bw_rate_more m;
	int r;

	bw_room_live_keys(l, NULL, &m);
	memcpy(keys, m.keys, sizeof(m.keys));
	if (!l->have_hdr)
		return -1;
	for (r = 0; r < BW_REGIONS; r++)
		if (keys[r] && info->region_entries[r] + keys[r] > sized[r])
			return r;
	return -1;
}
