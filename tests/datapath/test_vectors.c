// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pinned vectors of tests/vectors.h through the BPF program: for each
 * one, a filter made by hand holds exactly the vector's probe bits in the
 * vector's block of a one-region filter. The packet is dropped only if the
 * program, compiled by clang for BPF, finds that block and those bits, so
 * BPF and userspace (tests/unit/test_hash.c) are proven to agree.
 */
#include <stdio.h>
#include <string.h>

#include "datapath.h"
#include "test_helpers.h"
#include "vectors.h"

#define VEC_PROBES BW_ROUND_PROBES

static struct bw_block *block_at(struct bw_filter_map *m, __u32 idx)
{
	return (struct bw_block *)((char *)m->mem +
				   (size_t)idx * BW_BLOCK_BYTES);
}

static void set_bit(struct bw_block *b, __u32 bit, bool on)
{
	if (on)
		b->w[bit / 64] |= 1ULL << (bit % 64);
	else
		b->w[bit / 64] &= ~(1ULL << (bit % 64));
}

/*
 * Header of a filter with one region for the vector's family and length.
 * The region claims nblocks, but the map holds only the blocks up to the
 * vector's block and its neighbour: a 2^26-block region costs 4 GiB, and
 * the program treats blocks past the map as misses, which this does not
 * rely on (every probed block exists).
 */
static void vec_header(struct bw_hdr *hdr, const struct bw_vector *v,
		       __u8 probes)
{
	int r = v->family * BW_MAX_LENGTHS, i;

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = BW_MAGIC;
	hdr->version = BW_VERSION;
	hdr->flags = BW_F_MATCH_SRC;
	hdr->seed = v->seed;
	hdr->nlengths[v->family] = 1;
	hdr->plen[v->family][0] = v->plen;
	hdr->probes[r] = probes;
	for (i = 0; i < BW_REGIONS; i++)
		hdr->region_end[i] =
			i < r ? BW_HDR_BLOCKS : BW_HDR_BLOCKS + v->nblocks;
}

/* The header for probes, and the program loaded for it. */
static bool vec_load(struct bw_dp *dp, struct bw_filter_map *m,
		     const struct bw_vector *v, __u8 probes)
{
	vec_header(m->mem, v, probes);
	return ASSERT_OK(bw_dp_commit(dp, m), "commit");
}

/* Sets (or clears) the vector's first `probes` bits in block idx. */
static void vec_bits(struct bw_filter_map *m, __u32 idx,
		     const struct bw_vector *v, int probes, bool on)
{
	int i;

	for (i = 0; i < probes; i++)
		set_bit(block_at(m, idx), v->bits[i], on);
}

/*
 * The vector's 8 bits drop; each one cleared passes; with 16 probes the
 * second round's bits are needed too.
 */
static void check_bits(struct bw_dp *dp, const struct bw_vector *v,
		       struct bw_filter_map *m, const void *pkt, size_t len)
{
	enum bw_outcome drop =
		v->family == BW_V6 ? BW_OUT_DROP_V6 : BW_OUT_DROP_V4;
	__u32 idx = BW_HDR_BLOCKS + v->block;
	char desc[160];
	int i;

	vec_bits(m, idx, v, VEC_PROBES, true);
	snprintf(desc, sizeof(desc), "%s/%u seed %#x: 8 vector bits set",
		 v->addr, v->plen, v->seed);
	bw_dp_expect(dp, desc, pkt, len, drop);
	for (i = 0; i < VEC_PROBES; i++) {
		set_bit(block_at(m, idx), v->bits[i], false);
		snprintf(desc, sizeof(desc), "%s/%u: probe %d (bit %u) clear",
			 v->addr, v->plen, i, v->bits[i]);
		bw_dp_expect(dp, desc, pkt, len, BW_OUT_PASS);
		set_bit(block_at(m, idx), v->bits[i], true);
	}
	/* Two rounds: round 0's bits alone are not enough. */
	if (!vec_load(dp, m, v, BW_MAX_PROBES))
		return;
	snprintf(desc, sizeof(desc), "%s/%u: 16 probes, only round 0 set",
		 v->addr, v->plen);
	bw_dp_expect(dp, desc, pkt, len, BW_OUT_PASS);
	vec_bits(m, idx, v, BW_MAX_PROBES, true);
	snprintf(desc, sizeof(desc), "%s/%u: 16 probes, all set", v->addr,
		 v->plen);
	bw_dp_expect(dp, desc, pkt, len, drop);
	vec_bits(m, idx, v, BW_MAX_PROBES, false);
	vec_load(dp, m, v, VEC_PROBES);
}

/* The same bits one block off: the block index must be exact. */
static void check_neighbours(struct bw_dp *dp, const struct bw_vector *v,
			     struct bw_filter_map *m, const void *pkt,
			     size_t len)
{
	__u32 idx = BW_HDR_BLOCKS + v->block;
	char desc[160];

	if (v->block + 1 < v->nblocks)
		vec_bits(m, idx + 1, v, VEC_PROBES, true);
	if (v->block > 0)
		vec_bits(m, idx - 1, v, VEC_PROBES, true);
	snprintf(desc, sizeof(desc), "%s/%u: bits only in neighbour blocks",
		 v->addr, v->plen);
	bw_dp_expect(dp, desc, pkt, len, BW_OUT_PASS);
}

static void check_vector(struct bw_dp *dp, const struct bw_vector *v,
			 struct bw_filter_map *m)
{
	struct bw_pkt_spec s = { .src = v->addr, .payload = 16 };
	__u8 buf[BW_PKT_MAX];
	size_t len;

	len = bw_pkt_build(&s, buf);
	check_bits(dp, v, m, buf, len);
	check_neighbours(dp, v, m, buf, len);
}

BW_TEST(test_vectors_bpf)
{
	struct bw_dp dp = {};
	size_t i;

	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < BW_NVECTORS; i++) {
		const struct bw_vector *v = &bw_vectors[i];
		struct bw_filter_map m = BW_FILTER_MAP_INIT;
		__u32 nblocks = BW_HDR_BLOCKS + v->block + 2;

		if (nblocks > BW_HDR_BLOCKS + v->nblocks)
			nblocks = BW_HDR_BLOCKS + v->nblocks;
		if (!ASSERT_OK(bw_filter_create(nblocks, &m), "filter create"))
			continue;
		/* Header first, then commit: the program never sees it empty. */
		vec_header(m.mem, v, VEC_PROBES);
		if (ASSERT_OK(bw_dp_commit(&dp, &m), "commit"))
			check_vector(&dp, v, &m);
		bw_filter_close(&m);
	}
out:
	bw_dp_close(&dp);
}
