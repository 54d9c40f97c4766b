// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Sizing the watch's rebuilds for its live entries (live_size.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/duration.h"
#include "daemon/live_size.h"

void bw_wsize_init(struct bw_wsize *z)
{
	memset(z, 0, sizeof(*z));
	bw_live_init(&z->pending);
	bw_live_init(&z->staged);
	bw_live_init(&z->tried);
}

void bw_wsize_free(struct bw_wsize *z)
{
	bw_live_free(&z->pending);
	bw_live_free(&z->staged);
	bw_live_free(&z->tried);
}

void bw_wsize_refused(struct bw_wsize *z, const struct bw_prefix *p)
{
	z->refused++;
	if (bw_live_has(&z->tried, p, NULL) ||
	    bw_live_has(&z->staged, p, NULL) ||
	    bw_live_has(&z->pending, p, NULL) ||
	    z->pending.ent.n >= BW_WLIVE_PENDING_MAX)
		return;
	if (!bw_live_add(&z->pending, NULL, p, 0))
		z->refused_at = bw_mono();
}

size_t bw_wsize_pending(const struct bw_wsize *z)
{
	return z->pending.ent.n + z->staged.ent.n;
}

/* Takes p out of s, whatever its count. */
static void drop(struct bw_live *s, const struct bw_prefix *p)
{
	while (!bw_live_del(s, NULL, p))
		;
}

void bw_wsize_placed(struct bw_wsize *z, const struct bw_prefix *p)
{
	drop(&z->pending, p);
	drop(&z->tried, p);
}

static int count_in(void *ctx, const struct bw_prefix *p, __u32 refs,
		    __u64 expires)
{
	(void)refs;
	(void)expires;
	bw_room_add(ctx, p);
	return 0;
}

void bw_wsize_room(const struct bw_wsize *z, const struct bw_live *set,
		   struct bw_live_room *r)
{
	bw_room_init(r);
	r->host_targets = z->host_targets;
	bw_live_each(set, count_in, r);
	bw_live_each(&z->pending, count_in, r);
	bw_live_each(&z->staged, count_in, r);
}

static int move_to(void *ctx, const struct bw_prefix *p, __u32 refs,
		   __u64 expires)
{
	(void)refs;
	(void)expires;
	return bw_live_has(ctx, p, NULL) ? 0 : bw_live_add(ctx, NULL, p, 0);
}

/* Every entry of from into to; from empty after. */
static void move_all(struct bw_live *from, struct bw_live *to)
{
	bw_live_each(from, move_to, to);
	bw_live_free(from);
	bw_live_init(from);
}

void bw_wsize_begin(struct bw_wsize *z)
{
	move_all(&z->pending, &z->staged);
}

void bw_wsize_end(struct bw_wsize *z, bool own)
{
	/* Sized for: refused once more, they stay refused (counted). */
	move_all(&z->staged, own ? &z->tried : &z->pending);
}

/* The watch's own filter's BW_REC_SIZED, read once per filter. */
static bool own_sized(struct bw_wsize *z, const struct bw_filter_map *map,
		      bool own)
{
	if (map->fd < 0 || !own)
		return false;
	if (z->sized_map != map->id) {
		z->sized_map = map->id;
		z->have_sized =
			!bw_room_sized(map->mem, map->nblocks, z->sized);
	}
	return z->have_sized;
}

static bool grown(struct bw_wsize *z, const struct bw_live *set,
		  const struct bw_filter_map *map, bool own, char *why,
		  size_t len)
{
	const struct bw_info *info;
	__u64 keys[BW_REGIONS], room;
	__u32 allowed[BW_REGIONS];
	int r, f;

	if (!own_sized(z, map, own) ||
	    (z->grow_map == map->id && set->nkeys < 2 * z->grow_keys))
		return false;
	info = (const void *)((const char *)map->mem + BW_BLOCK_BYTES);
	/*
	 * A few adds past the room cost little: handed over one at a time
	 * (fail2ban's bans), each would otherwise rebuild. A sixteenth more
	 * keys (at least BW_WSIZE_SLACK) raises a region's rate by about half
	 * (0.1% to 0.15%), under the twice its target that rebuilds for the
	 * rate.
	 */
	for (r = 0; r < BW_REGIONS; r++)
		allowed[r] = z->sized[r] + (z->sized[r] / 16 > BW_WSIZE_SLACK
						    ? z->sized[r] / 16
						    : BW_WSIZE_SLACK);
	r = bw_room_outgrown(set, info, allowed, keys);
	if (r < 0)
		return false;
	f = r / BW_MAX_LENGTHS;
	room = z->sized[r] > info->region_entries[r]
		       ? z->sized[r] - info->region_entries[r]
		       : 0;
	snprintf(why, len,
		 "live entries: %llu keys at %s /%u, past the room for %llu",
		 (unsigned long long)keys[r], f == BW_V4 ? "IPv4" : "IPv6",
		 set->hdr.plen[f][r % BW_MAX_LENGTHS],
		 (unsigned long long)room);
	z->grow_map = map->id;
	z->grow_keys = set->nkeys;
	return true;
}

bool bw_wsize_outgrown(struct bw_wsize *z, const struct bw_live *set,
		       const struct bw_filter_map *map, bool own, double now,
		       char *why, size_t len)
{
	bool due = false;

	if (now < z->grow_at)
		return false;
	if (z->pending.ent.n &&
	    now >= z->refused_at + BW_WLIVE_REFUSED_SETTLE) {
		snprintf(
			why, len,
			"live entries: %zu refused for want of a target length",
			z->pending.ent.n);
		due = true;
	}
	if (!due)
		due = grown(z, set, map, own, why, len);
	if (due)
		z->grow_at = now + BW_WSIZE_RETRY;
	return due;
}
