/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * judge.h - the judgment of one address against the filter, shared by the
 * XDP program (ingress) and the TC program (egress, egress.h): the same
 * blocks of the same map, the same allowlist and exact trie, the same
 * header constants. What a verdict is counted as is each hook's own.
 */
#ifndef __BW_JUDGE_H
#define __BW_JUDGE_H

#include "maps.h"
#include "parse.h"
#include "who.h"

/* What happened to a packet; count_verdict() maps it to action + counter. */
enum bw_verdict {
	BW_VERDICT_PASS = 1, /* tested, not listed */
	BW_VERDICT_NOT_IP,
	BW_VERDICT_MALFORMED,
	BW_VERDICT_NO_FILTER,
	BW_VERDICT_MONITOR,
	BW_VERDICT_ALLOWED,   /* a hit, but the allowlist matched */
	BW_VERDICT_FALSE_POS, /* a hit, but the exact trie refused it */
	BW_VERDICT_DROP,
};

/*
 * 1 if hash h hits in the region: one block, its probes. A corrupt header
 * must not turn into dropping everything: a region that points past the
 * map finds no block, and one without blocks is a miss. The loader
 * refuses a header whose regions in use have 0 probes (which every key
 * would pass) or too many (bw_hdr_check), and gives the regions not in
 * use no blocks: this program reads that checked copy (.rodata), so it
 * tests neither per packet.
 */
static __always_inline int test_region(const struct bw_hdr *hdr, __u32 r,
				       const struct bw_region_consts *rc,
				       __u64 h)
{
	const struct bw_block *blk;
	__u32 idx;

	if (!rc->nblocks)
		return 0;
	idx = rc->start + bw_block_index(h, rc->nblocks);
	blk = bpf_map_lookup_elem(&BW_MAP_BLOCKS, &idx);
	return blk && bw_block_test(blk, h, hdr->probes[r]);
}

/*
 * 1 if the address at `at` (ip_addr_at()) hits at any target length of
 * its family; the first hit ends the search. Inlined with the family as a
 * constant and unrolled: each region index is a constant, so the header is
 * read at fixed offsets. The address is read from the packet for each
 * length: kept across a block lookup (a helper call) it would be spilled
 * and reloaded on its way into the first hash, a stack round trip on the
 * path to the block. The first region needs no test of the family's
 * number of lengths: with none it has no blocks.
 */
static __always_inline int lookup_addr(const struct bw_hdr *hdr, __u32 family,
				       const void *at)
{
	const struct bw_region_consts *rc;
	__u64 h, hi, lo;
	__u32 i, r;

#pragma unroll
	for (i = 0; i < BW_MAX_LENGTHS; i++) {
		if (i && i >= hdr->nlengths[family])
			return 0;
		r = family * BW_MAX_LENGTHS + i;
		rc = consts_of(r);
		ip_addr_words(at, family == BW_V6, &hi, &lo);
		if (family == BW_V4)
			h = bw_hash_v4_rc((__u32)lo, rc);
		else
			h = bw_hash_v6_rc(hi, lo, rc);
		if (test_region(hdr, r, rc, h))
			return 1;
	}
	return 0;
}

/*
 * The confirmation step for a Bloom hit, off the unlisted path: an LPM
 * lookup costs many times a Bloom test, so only hits pay for one. An
 * allowlisted address is never dropped; in verify mode the exact trie must
 * confirm the hit. A missing exact trie (a reload racing with this packet)
 * confirms nothing: better one listed packet through than one clean packet
 * dropped.
 */
static __always_inline enum bw_verdict confirm_hit(const struct bw_hdr *hdr,
						   __u32 family, const void *at)
{
	struct bw_lpm_key key;
	__u32 slot = hdr->exact_slot;
	__u64 hi, lo;
	void *trie;

	/* The common case: no allowlist, no verify mode, no key to build. */
	if (!(hdr->flags & (BW_F_ALLOW | BW_F_VERIFY)))
		return BW_VERDICT_DROP;
	ip_addr_words(at, family == BW_V6, &hi, &lo);
	bw_lpm_key_set(&key, family, hi, lo, family == BW_V4 ? 32 : 128);
	/* The CLI keeps BW_F_ALLOW in step with the trie: skip an empty one. */
	if ((hdr->flags & BW_F_ALLOW) &&
	    bpf_map_lookup_elem(&BW_MAP_ALLOW, &key))
		return BW_VERDICT_ALLOWED;
	if (!(hdr->flags & BW_F_VERIFY))
		return BW_VERDICT_DROP;
	trie = bpf_map_lookup_elem(&BW_MAP_EXACT, &slot);
	if (!trie || !bpf_map_lookup_elem(trie, &key))
		return BW_VERDICT_FALSE_POS;
	return BW_VERDICT_DROP;
}

/*
 * Verdict for the address at `at` (ip_addr_at()): not listed, or what its
 * confirmation says.
 */
static __always_inline enum bw_verdict judge_addr(const struct bw_hdr *hdr,
						  __u32 family, const void *at)
{
	if (!lookup_addr(hdr, family, at))
		return BW_VERDICT_PASS;
	return confirm_hit(hdr, family, at);
}

/*
 * Which addresses the header asks for: source, destination or both; flags
 * with neither bit mean source. A packet is dropped if any tested address
 * is confirmed listed; otherwise the most telling verdict is kept (an
 * allowlisted or refused hit over a plain miss), for the counters. A
 * packet stopped for its destination counts its source in ingress_who.
 */
static __always_inline enum bw_verdict
lookup_packet(const struct bw_hdr *hdr, __u32 family, const void *l3)
{
	__u16 match = hdr->flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST);
	const int v6 = family == BW_V6;
	enum bw_verdict v = BW_VERDICT_PASS, d;
	struct bw_addr src;

	if (!match)
		match = BW_F_MATCH_SRC;
	if (match & BW_F_MATCH_SRC) {
		v = judge_addr(hdr, family, ip_addr_at(l3, v6, 0));
		if (v == BW_VERDICT_DROP)
			return v;
	}
	if (match & BW_F_MATCH_DST) {
		d = judge_addr(hdr, family, ip_addr_at(l3, v6, 1));
		if (d != BW_VERDICT_PASS) {
			/* Who tried: a drop (or monitored hit) for dst alone. */
			if (d == BW_VERDICT_DROP) {
				ip_src(l3, v6, &src);
				who_dst(family, src.hi, src.lo);
			}
			return d;
		}
	}
	return v;
}

/* The header's action for a confirmed hit: drop, or count and pass. */
static __always_inline enum bw_verdict apply_action(const struct bw_hdr *hdr,
						    enum bw_verdict v)
{
	if (v == BW_VERDICT_DROP && (hdr->flags & BW_F_MONITOR))
		return BW_VERDICT_MONITOR;
	return v;
}

/*
 * A hook's per-CPU counters (stats_map's slot 0), looked up as the
 * program starts: the lookup is a chain of dependent loads, and there it
 * runs beside the parse and the hash rather than after the verdict.
 */
static __always_inline void *counters_of(void *stats_map)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(stats_map, &key);
}

/*
 * Counts verdict v in s (this CPU's struct bw_stats, or NULL) and returns
 * the XDP action for it. Plain increments are safe on this CPU's copy.
 */
static __always_inline int count_verdict(struct bw_stats *s, enum bw_verdict v,
					 __u32 family)
{
	if (!s)
		return v == BW_VERDICT_DROP ? XDP_DROP : XDP_PASS;
	if (v == BW_VERDICT_DROP) {
		if (family == BW_V6)
			s->dropped_v6++;
		else
			s->dropped_v4++;
		return XDP_DROP;
	}
	s->passed++;
	/* The common case, unlisted, needs no more counters. */
	if (v == BW_VERDICT_PASS)
		return XDP_PASS;
	if (v == BW_VERDICT_NOT_IP)
		s->not_ip++;
	else if (v == BW_VERDICT_MALFORMED)
		s->malformed++;
	else if (v == BW_VERDICT_NO_FILTER)
		s->no_filter++;
	else if (v == BW_VERDICT_MONITOR)
		s->monitored++;
	else if (v == BW_VERDICT_ALLOWED)
		s->allowed++;
	else if (v == BW_VERDICT_FALSE_POS)
		s->false_pos++;
	return XDP_PASS;
}

#endif /* __BW_JUDGE_H */
