// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The hash and block code of include/bw_hash.h against the pinned vectors
 * of tests/vectors.h, plus the properties the design relies on. The size
 * facts of the layout are _Static_asserts in include/bw_layout.h.
 */
#include <arpa/inet.h>
#include <stdlib.h>

#include "bw_hash.h"
#include "test_helpers.h"
#include "vectors.h"

/* Hash of a vector's address, computed from bw_hash.h alone. */
static int vector_hash(const struct bw_vector *v, __u64 *hash)
{
	unsigned char b[16];
	__u64 hi = 0, lo = 0;
	__u32 addr;
	int i;

	if (v->family == BW_V4) {
		if (inet_pton(AF_INET, v->addr, b) != 1)
			return -EINVAL;
		memcpy(&addr, b, sizeof(addr));
		*hash = bw_hash_v4(ntohl(addr), v->plen, v->seed);
		return 0;
	}
	if (inet_pton(AF_INET6, v->addr, b) != 1)
		return -EINVAL;
	for (i = 0; i < 8; i++) {
		hi = hi << 8 | b[i];
		lo = lo << 8 | b[8 + i];
	}
	*hash = bw_hash_v6(hi, lo, v->plen, v->seed);
	return 0;
}

/* Probe j of a key as a bit number in its block: word * 64 + bit. */
static unsigned int probe_number(__u64 hash, unsigned int j)
{
	unsigned int w = j % BW_ROUND_PROBES;
	__u64 bits = bw_round_bits(hash, j / BW_ROUND_PROBES);

	return w * 64 + bw_round_bit(bits, w);
}

BW_TEST(test_hash_vectors)
{
	const struct bw_vector *v;
	__u64 hash;
	char name[96];
	unsigned int i, j;

	ASSERT_GE(BW_NVECTORS, 16, "vector count");
	for (i = 0; i < BW_NVECTORS; i++) {
		v = &bw_vectors[i];
		snprintf(name, sizeof(name), "vector %u %s/%u seed %#x", i,
			 v->addr, v->plen, v->seed);
		if (!ASSERT_OK(vector_hash(v, &hash), name))
			continue;
		ASSERT_EQ_U64(hash, v->hash, name);
		ASSERT_EQ(bw_block_index(hash, v->nblocks), v->block, name);
		for (j = 0; j < BW_MAX_PROBES; j++)
			ASSERT_EQ(probe_number(hash, j), v->bits[j], name);
	}
}

/* The vectors must cover what they claim to: both families, both seeds. */
BW_TEST(test_hash_vectors_coverage)
{
	bool v4 = false, v6 = false, seed0 = false, seed1 = false;
	bool p0 = false, p32 = false, p64 = false, p128 = false;
	unsigned int i;

	for (i = 0; i < BW_NVECTORS; i++) {
		v4 |= bw_vectors[i].family == BW_V4;
		v6 |= bw_vectors[i].family == BW_V6;
		seed0 |= bw_vectors[i].seed == 0;
		seed1 |= bw_vectors[i].seed != 0;
		p0 |= bw_vectors[i].plen == 0;
		p32 |= bw_vectors[i].plen == 32;
		p64 |= bw_vectors[i].plen == 64;
		p128 |= bw_vectors[i].plen == 128;
	}
	ASSERT_TRUE(v4 && v6, "both families");
	ASSERT_TRUE(seed0 && seed1, "zero and nonzero seeds");
	ASSERT_TRUE(p0 && p32 && p64 && p128, "prefix lengths 0/32/64/128");
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static size_t sort_unique(__u64 *v, size_t n)
{
	size_t i, out = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (!out || v[i] != v[out - 1])
			v[out++] = v[i];
	return out;
}

/*
 * Distinct IPv4 prefixes never share a hash: the key is injective and the
 * mix a bijection. Sample random prefixes, keep the distinct ones, and
 * check their hashes are as many.
 */
BW_TEST(test_hash_v4_distinct)
{
	const size_t n = 1 << 18;
	__u64 *keys, s = 1;
	size_t i, nkeys;
	__u32 plen;

	keys = calloc(n, sizeof(*keys));
	if (!ASSERT_OK_PTR(keys, "calloc"))
		return;
	for (i = 0; i < n; i++) {
		plen = 8 + i % 25;
		keys[i] = (__u64)bw_mask_v4((__u32)bw_test_splitmix64(&s), plen)
				  << 8 |
			  plen;
	}
	nkeys = sort_unique(keys, n);
	ASSERT_GE(nkeys, n / 2, "sample mostly distinct");
	for (i = 0; i < nkeys; i++)
		keys[i] = bw_hash_v4(keys[i] >> 8, keys[i] & 0xff, 0x1234);
	ASSERT_EQ(sort_unique(keys, nkeys), nkeys, "distinct hashes");
	free(keys);
}

BW_TEST(test_hash_masks_host_bits)
{
	__u64 hi = 0x20010db800010002ULL, lo = 0x0003000400050006ULL;

	ASSERT_EQ_U64(bw_hash_v4(0x0a010203, 8, 0),
		      bw_hash_v4(0x0a000000, 8, 0), "10.1.2.3/8 == 10.0.0.0/8");
	ASSERT_EQ_U64(bw_hash_v4(0xc0a80163, 24, 7),
		      bw_hash_v4(0xc0a80100, 24, 7), "/24 host bits");
	ASSERT_EQ_U64(bw_hash_v4(0xffffffff, 0, 7), bw_hash_v4(0, 0, 7), "/0");
	ASSERT_NEQ(bw_hash_v4(0x0a000000, 8, 0), bw_hash_v4(0x0a000000, 16, 0),
		   "plen is part of the key");
	ASSERT_NEQ(bw_hash_v4(0x0a000000, 8, 0), bw_hash_v4(0x0a000000, 8, 1),
		   "seed is part of the key");
	ASSERT_EQ_U64(bw_hash_v6(hi, lo, 64, 3), bw_hash_v6(hi, 0, 64, 3),
		      "v6 /64 ignores the low word");
	ASSERT_EQ_U64(bw_hash_v6(hi, lo, 32, 3),
		      bw_hash_v6(hi & 0xffffffff00000000ULL, 0, 32, 3),
		      "v6 /32 masks the high word");
	ASSERT_EQ_U64(bw_hash_v6(hi, lo, 96, 3),
		      bw_hash_v6(hi, lo & 0xffffffff00000000ULL, 96, 3),
		      "v6 /96 masks the low word");
	ASSERT_NEQ(bw_hash_v6(hi, lo, 128, 3), bw_hash_v6(hi, lo ^ 1, 128, 3),
		   "v6 /128 uses every bit");
	ASSERT_NEQ(bw_hash_v6(0, 0, 0, 0), bw_hash_v4(0, 0, 0),
		   "families differ");
}

/*
 * The data path hashes with constants the CLI derives per region when it
 * loads the program: they must give the very same hash as bw_hash_v4/v6,
 * which the builder uses, or listed keys would be missed.
 */
BW_TEST(test_hash_region_consts)
{
	struct bw_region_consts rc;
	struct bw_hdr hdr = {};
	__u64 s = 7, hi, lo;
	unsigned int i, plen, bad4 = 0, bad6 = 0, badblk = 0;

	for (i = 0; i < 200000; i++) {
		hdr.seed = (__u32)bw_test_splitmix64(&s);
		hi = bw_test_splitmix64(&s);
		lo = bw_test_splitmix64(&s);
		plen = (unsigned int)(bw_test_splitmix64(&s) % 33);
		hdr.plen[BW_V4][i % BW_MAX_LENGTHS] = plen;
		hdr.region_end[i % BW_MAX_LENGTHS] = 0;
		bw_region_consts_init(&hdr, i % BW_MAX_LENGTHS, &rc);
		bad4 += bw_hash_v4_rc((__u32)lo, &rc) !=
			bw_hash_v4((__u32)lo, plen, hdr.seed);
		plen = (unsigned int)(bw_test_splitmix64(&s) % 129);
		hdr.plen[BW_V6][i % BW_MAX_LENGTHS] = plen;
		bw_region_consts_init(&hdr, BW_MAX_LENGTHS + i % BW_MAX_LENGTHS,
				      &rc);
		bad6 += bw_hash_v6_rc(hi, lo, &rc) !=
			bw_hash_v6(hi, lo, plen, hdr.seed);
	}
	ASSERT_EQ(bad4, 0, "IPv4: region constants give another hash");
	ASSERT_EQ(bad6, 0, "IPv6: region constants give another hash");
	/*
	 * start and size are the region's, empty regions have 0 blocks, and
	 * so have those past the family's lengths, whatever their ends say.
	 */
	memset(&hdr, 0, sizeof(hdr));
	hdr.nlengths[BW_V4] = 3;
	hdr.region_end[0] = BW_HDR_BLOCKS + 10;
	hdr.region_end[1] = BW_HDR_BLOCKS + 10;
	hdr.region_end[2] = BW_HDR_BLOCKS + 25;
	hdr.region_end[3] = BW_HDR_BLOCKS + 30;
	for (i = 0; i < 3; i++) {
		bw_region_consts_init(&hdr, i, &rc);
		badblk += rc.start != bw_region_start(&hdr, i) ||
			  rc.nblocks != hdr.region_end[i] - rc.start;
	}
	ASSERT_EQ(badblk, 0, "region start and size");
	bw_region_consts_init(&hdr, 1, &rc);
	ASSERT_EQ(rc.nblocks, 0, "an empty region has no blocks");
	bw_region_consts_init(&hdr, 3, &rc);
	ASSERT_EQ(rc.nblocks, 0, "a region past the lengths has no blocks");
}

BW_TEST(test_hash_ranges)
{
	static const __u32 sizes[] = { 1, 2, 3, 1000, 65537, BW_MAX_BLOCKS };
	__u64 s = 42, h;
	__u32 blk, bad_blk = 0;
	unsigned int i, j;

	for (i = 0; i < 100000; i++) {
		h = bw_test_splitmix64(&s);
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			blk = bw_block_index(h, sizes[j]);
			bad_blk += blk >= sizes[j];
		}
	}
	ASSERT_EQ(bad_blk, 0, "block >= nblocks");
	ASSERT_EQ(bw_block_index(~0ULL, 1000), 999, "top hash, last block");
	ASSERT_EQ(bw_block_index(0, 1000), 0, "zero hash, first block");
}

/*
 * Field w of a round as bw_hash.h documents it, written independently of
 * bw_round_bit: the 6-bit fields of the round's bits from the top down,
 * word 0 taking the top six bits.
 */
static unsigned int doc_field(__u64 bits, unsigned int w)
{
	return (unsigned int)((bits << (6 * w)) >> 58);
}

/*
 * The probes of a round are the documented fields, and they are spread
 * evenly: over many hashes every bit of every word is probed about as
 * often as every other, in both rounds, and round 1 does not repeat round
 * 0. A field cut short, shifted or overlapping its neighbour, or a second
 * round tied to the first, would leave bits never probed or probed twice
 * as often, which raises the false-positive rate without a false negative
 * anywhere: no other test would see it.
 */
BW_TEST(test_hash_probe_fields)
{
	enum { N = 1 << 17, EXPECT = N / 64 };
	static unsigned int hits[BW_MAX_ROUNDS][BW_BLOCK_WORDS][64];
	unsigned int i, r, w, b, lo = ~0U, hi = 0, bad_field = 0, same = 0;
	unsigned int bit[BW_MAX_ROUNDS];
	__u64 s = 99, h, bits;

	memset(hits, 0, sizeof(hits));
	for (i = 0; i < N; i++) {
		h = bw_test_splitmix64(&s);
		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			for (r = 0; r < BW_MAX_ROUNDS; r++) {
				bits = bw_round_bits(h, r);
				bit[r] = bw_round_bit(bits, w);
				bad_field += bit[r] != doc_field(bits, w);
				hits[r][w][bit[r] & 63]++;
			}
			same += bit[0] == bit[1];
		}
	}
	ASSERT_EQ(bad_field, 0, "probe bit != its documented 6-bit field");
	for (r = 0; r < BW_MAX_ROUNDS; r++)
		for (w = 0; w < BW_BLOCK_WORDS; w++)
			for (b = 0; b < 64; b++) {
				lo = hits[r][w][b] < lo ? hits[r][w][b] : lo;
				hi = hits[r][w][b] > hi ? hits[r][w][b] : hi;
			}
	/* About 2,048 each, give or take 45: the bounds are 11 of those away. */
	ASSERT_GE(lo, EXPECT * 3 / 4, "least probed bit of a word");
	ASSERT_LE(hi, EXPECT * 5 / 4, "most probed bit of a word");
	/* Rounds agree in a word one time in 64 by chance. */
	ASSERT_LE(same, N * BW_BLOCK_WORDS / 64 * 5 / 4,
		  "round 1 repeats round 0");
	ASSERT_GE(same, N * BW_BLOCK_WORDS / 64 * 3 / 4,
		  "round 1 avoids round 0");
}

/*
 * bw_block_set and bw_block_test agree for any hash: a key set is found,
 * with the bits it set being exactly its documented probes (one a word a
 * round), and clearing any one of them loses it.
 */
BW_TEST(test_block_set_then_test)
{
	unsigned int i, j, w, probes, bad_test = 0, bad_bits = 0;
	unsigned int bad_clear = 0, bad_word = 0;
	struct bw_block blk, want;
	__u64 s = 5, h, bits;

	for (i = 0; i < 20000; i++) {
		h = bw_test_splitmix64(&s);
		probes = i & 1 ? 16 : 8;
		memset(&blk, 0, sizeof(blk));
		memset(&want, 0, sizeof(want));
		bw_block_set(&blk, h, probes);
		for (j = 0; j < probes; j++) {
			bits = bw_round_bits(h, j / BW_ROUND_PROBES);
			w = j % BW_ROUND_PROBES;
			want.w[w] |= 1ULL << doc_field(bits, w);
		}
		bad_bits += memcmp(&blk, &want, sizeof(blk)) != 0;
		bad_test += !bw_block_test(&blk, h, probes);
		for (w = 0; w < BW_BLOCK_WORDS; w++) {
			j = __builtin_popcountll(blk.w[w]);
			bad_word += j < 1 || j > probes / BW_ROUND_PROBES;
		}
		/* Clear one of the key's bits, chosen by the hash. */
		w = h % BW_BLOCK_WORDS;
		blk.w[w] &= blk.w[w] - 1;
		bad_clear += bw_block_test(&blk, h, probes);
	}
	ASSERT_EQ(bad_bits, 0, "bw_block_set sets other bits than the probes");
	ASSERT_EQ(bad_word, 0, "a word without its one bit per round");
	ASSERT_EQ(bad_test, 0, "bw_block_test misses a key just set");
	ASSERT_EQ(bad_clear, 0, "bw_block_test finds a key with a bit cleared");
}

static void set_probe(struct bw_block *blk, unsigned int bit, int on)
{
	if (on)
		blk->w[bit / 64] |= 1ULL << (bit % 64);
	else
		blk->w[bit / 64] &= ~(1ULL << (bit % 64));
}

BW_TEST(test_block_test)
{
	struct bw_block blk = {}, set = {};
	__u64 hash = 0x0123456789abcdefULL;
	unsigned int bit[BW_MAX_PROBES], i;
	char name[64];

	for (i = 0; i < BW_MAX_PROBES; i++)
		bit[i] = probe_number(hash, i);
	ASSERT_FALSE(bw_block_test(&blk, hash, 8), "empty block");
	for (i = 0; i < BW_ROUND_PROBES; i++)
		set_probe(&blk, bit[i], 1);
	ASSERT_TRUE(bw_block_test(&blk, hash, 8), "8 of 8 set");
	ASSERT_FALSE(bw_block_test(&blk, hash, 16), "8 of 16 set");
	/* Every probe counts, the ones tested ahead and the ones after. */
	for (i = 0; i < BW_ROUND_PROBES; i++) {
		set_probe(&blk, bit[i], 0);
		snprintf(name, sizeof(name), "probe %u (bit %u) clear", i,
			 bit[i]);
		ASSERT_FALSE(bw_block_test(&blk, hash, 8), name);
		set_probe(&blk, bit[i], 1);
	}
	for (i = BW_ROUND_PROBES; i < BW_MAX_PROBES; i++)
		set_probe(&blk, bit[i], 1);
	ASSERT_TRUE(bw_block_test(&blk, hash, 16), "16 of 16 set");
	for (i = BW_ROUND_PROBES; i < BW_MAX_PROBES; i++) {
		set_probe(&blk, bit[i], 0);
		snprintf(name, sizeof(name), "round 1 probe %u clear", i);
		ASSERT_FALSE(bw_block_test(&blk, hash, 16), name);
		ASSERT_TRUE(bw_block_test(&blk, hash, 8), "round 0 only");
		set_probe(&blk, bit[i], 1);
	}
	/* bw_block_set sets exactly these bits, and only them. */
	bw_block_set(&set, hash, 16);
	ASSERT_TRUE(!memcmp(&set, &blk, sizeof(set)), "bw_block_set, 16");
	memset(&set, 0, sizeof(set));
	bw_block_set(&set, hash, 8);
	for (i = 0; i < BW_BLOCK_WORDS; i++)
		ASSERT_EQ(__builtin_popcountll(set.w[i]), 1, "one bit a word");
	memset(&blk, 0xff, sizeof(blk));
	ASSERT_TRUE(bw_block_test(&blk, hash, BW_MAX_PROBES), "full block");
}
