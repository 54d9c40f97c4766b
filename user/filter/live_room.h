/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Room for live entries (live.h) in a filter a watch builds: the live
 * prefixes choose target lengths with the lists' entries (as if they were
 * list entries, but their bits are not set by the build: the rebuild's
 * hook sets them), and every region they land in is sized for its list
 * keys plus room for max(2 x L, L + BW_ROOM_MIN) live keys, L the live
 * keys that land in it. A watch with a decision source also always has a
 * host-length target per family (/32, /128): a single address always fits.
 *
 * Why that room: a rebuild costs a build and a swap; with room for twice
 * what is live, the live keys must double before the next one (at most
 * one rebuild per doubling: log2 of the growth in all), and with
 * BW_ROOM_MIN a watch with few decisions does not rebuild for every few
 * thousand more. Memory stays bounded by what is live: at most about
 * three times the live keys' bits at the target rate, plus BW_ROOM_MIN
 * keys (about 7.4 KiB at 0.1 %) a region.
 *
 * No bpf(): plain counts and the filter's memory.
 */
#ifndef __BW_LIVE_ROOM_H
#define __BW_LIVE_ROOM_H

#include <stdbool.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/live.h"
#include "filter/rate.h"
#include "lists/cidr.h"
#include "lists/cidr_choose.h"

/* Room for at least this many live keys in a region that has any. */
#define BW_ROOM_MIN 4096
/* Names a watch's filter has room for in each name region, at least. */
#define BW_LIVE_NAME_ROOM 1024

struct bw_live_room {
	/* Live prefixes per family by prefix length. */
	__u64 count[BW_FAMILIES][BW_CIDR_MAXW + 1];
	bool host_targets; /* a /32 and a /128 target whatever is live */
	/* Live names per name region (enum bw_name_region). */
	__u64 names[BW_NAME_REGIONS];
};

void bw_room_init(struct bw_live_room *r);

/* One live prefix more (its length counts; the address does not). */
void bw_room_add(struct bw_live_room *r, const struct bw_prefix *p);

/* One live name more, in the exact or the subtree region. */
static inline void bw_room_add_name(struct bw_live_room *r, bool subtree)
{
	r->names[subtree ? BW_NAME_SUBTREE : BW_NAME_EXACT]++;
}

/* Whether r asks for anything. */
bool bw_room_any(const struct bw_live_room *r);

/*
 * The counts the target lengths are chosen with (bw_cidr_opts.extra);
 * max_lengths: the build's per family (0: BW_MAX_LENGTHS). A family held
 * to one target length gets no host target it did not ask for: its lists'
 * short prefixes would expand to it.
 */
void bw_room_extra(const struct bw_live_room *r,
		   const unsigned int *max_lengths,
		   __u64 extra[BW_FAMILIES][BW_CIDR_MAXW + 1]);

/*
 * The keys each target length of st (chosen with bw_room_extra's counts)
 * gets room for, by length (bw_build_opts.room).
 */
void bw_room_sizes(const struct bw_cidr_stats *st,
		   __u64 room[BW_FAMILIES][BW_CIDR_MAXW + 1]);

/* Room for l live keys in one region. */
static inline __u64 bw_room_for(__u64 l)
{
	return l ? (l > BW_ROOM_MIN ? 2 * l : l + BW_ROOM_MIN) : 0;
}

/*
 * What each address region of the filter (mem, nblocks) was sized for
 * (BW_REC_SIZED) into sized[BW_REGIONS]: 0, or -ENOENT (no such record),
 * -errno.
 */
int bw_room_sized(const void *mem, __u32 nblocks, __u32 *sized);

/*
 * The live keys of l by the region they land in: the address regions of
 * its layout (m->keys), and the name regions of mem, the filter it is
 * laid out on (m->names; NULL: none counted).
 */
void bw_room_live_keys(const struct bw_live *l, const void *mem,
		       struct bw_rate_more *m);

/*
 * The live keys of l by the address region of its layout they land in
 * (keys[BW_REGIONS]), and the room each region has for them now: sized
 * (bw_room_sized) less the region's list keys (info). Returns the first
 * region whose live keys are past its room, or -1.
 */
int bw_room_outgrown(const struct bw_live *l, const struct bw_info *info,
		     const __u32 *sized, __u64 *keys);

#endif /* __BW_LIVE_ROOM_H */
