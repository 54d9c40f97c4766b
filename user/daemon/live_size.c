// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Sizing the watch's rebuilds for its live entries (live_size.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/duration.h"
#include "daemon/live_size.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "filter/bloom.h"
#include "filter/rate.h"

void bw_wsize_init(struct bw_wsize *z)
{
	memset(z, 0, sizeof(*z));
	bw_live_init(&z->pending);
	bw_live_init(&z->staged);
	bw_live_init(&z->tried);
	bw_live_init(&z->busy);
}

void bw_wsize_free(struct bw_wsize *z)
{
	bw_live_free(&z->pending);
	bw_live_free(&z->staged);
	bw_live_free(&z->tried);
	bw_live_free(&z->busy);
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
	drop(&z->busy, p);
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
	int n;

	bw_room_init(r);
	r->host_targets = z->host_targets;
	bw_live_each(set, count_in, r);
	bw_live_each(&z->pending, count_in, r);
	bw_live_each(&z->staged, count_in, r);
	bw_live_each(&z->busy, count_in, r);
	for (n = 0; n < BW_NAME_REGIONS; n++)
		r->names[n] += z->busy_names[n];
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
	/* Sized for too: asked again, they are kept again. */
	if (own) {
		bw_live_free(&z->busy);
		bw_live_init(&z->busy);
		memset(z->busy_names, 0, sizeof(z->busy_names));
	}
}

/*
 * Whether the running filter, with set's live keys and the keys of the
 * entries of s not live (NULL: none), is past limit times its target
 * rate by the model; why says which part and how far.
 */
static bool past(const struct bw_live *set, const struct bw_filter_map *map,
		 const struct bw_entries *s, const bool *had, bool subdomains,
		 double limit, char *why, size_t len)
{
	const struct bw_entry *e;
	struct bw_rate_more m;
	struct bw_add_plan ap;
	double rate, target;
	size_t i;
	int part;

	if (map->fd < 0 || !map->mem || !set->have_hdr)
		return false;
	bw_room_live_keys(set, map->mem, &m);
	for (i = 0; s && i < s->n; i++) {
		e = &s->v[i];
		if (had[i])
			continue;
		if (bw_entry_is_name(e))
			m.names[subdomains || (e->d.flags & BW_DOM_SUBTREE)
					? BW_NAME_SUBTREE
					: BW_NAME_EXACT]++;
		else if (!bw_add_plan(map->mem, &e->p, &ap))
			m.keys[ap.region] += ap.nkeys;
	}
	part = bw_rate_past(map->mem, &m, limit, &rate, &target);
	if (part < 0)
		return false;
	snprintf(
		why, len,
		"live entries: the filter's %s%s past its target false-positive rate (about %.3g%% where it is sized for %.3g%%)",
		bw_rate_part_name(part), s ? " would be" : "", rate * 100,
		target * 100);
	return true;
}

/* Whether map is an image's filter, read once per filter. */
static bool is_image(struct bw_wsize *z, const struct bw_filter_map *map)
{
	struct bw_records r;

	if (z->image_map != map->id) {
		z->image_map = map->id;
		z->image = !bw_records_read(map->mem, map->nblocks, &r) &&
			   r.have_image;
		bw_records_free(&r);
	}
	return z->image;
}

int bw_wsize_full(struct bw_wsize *z, const struct bw_live *set,
		  const struct bw_filter_map *map, const struct bw_entries *s,
		  const bool *had, bool subdomains, char *why, size_t len)
{
	const struct bw_entry *e;
	const char *name;
	bool sub;
	size_t i;

	/* Its rebuild loads the image again, no room: the CLI refuses. */
	if (is_image(z, map))
		return past(set, map, s, had, subdomains, 1.0, why, len)
			       ? -EXDEV
			       : 0;
	if (!past(set, map, s, had, subdomains, BW_WSIZE_RATE_LIMIT, why, len))
		return 0;
	/* Kept once each, however often the client asks again. */
	for (i = 0; i < s->n && bw_live_count(&z->busy) < BW_WLIVE_PENDING_MAX;
	     i++) {
		e = &s->v[i];
		if (had[i])
			continue;
		if (!bw_entry_is_name(e)) {
			if (!bw_live_has(&z->busy, &e->p, NULL))
				bw_live_add(&z->busy, NULL, &e->p, 0);
			continue;
		}
		name = bw_entry_name(s, e);
		sub = subdomains || (e->d.flags & BW_DOM_SUBTREE);
		if (!bw_live_has_name(&z->busy, name, e->d.len, sub, NULL) &&
		    !bw_live_add_name(&z->busy, NULL, name, e->d.len, sub, 0))
			z->busy_names[sub ? BW_NAME_SUBTREE : BW_NAME_EXACT]++;
	}
	return 1;
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
	/* An image's filter grows only by a larger image. */
	if (!due && map->fd >= 0 && !is_image(z, map))
		due = past(set, map, NULL, NULL, false, 1.0, why, len);
	if (due)
		z->grow_at = now + BW_WSIZE_RETRY;
	return due;
}
