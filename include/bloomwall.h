/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bloomwall.h - the contract between the XDP program and the CLI.
 *
 * Included by bpf/bloomwall.bpf.c (clang -target bpf) and by user/ (gcc).
 * Only <linux/types.h> types, no libc, no vmlinux.h: both compilers must
 * produce the same layout and the same hash bits, which tests/ pins with
 * vectors (tests/unit/test_hash.c, tests/datapath/test_vectors.c).
 *
 * Filter map layout (one BPF_MAP_TYPE_ARRAY, 64-byte values, BPF_F_MMAPABLE;
 * the program is loaded with it as its own `blocks` map, and a reload swaps
 * program and filter together on the interface):
 *
 *   block 0                 struct bw_hdr   what the data path reads per packet
 *   block 1                 struct bw_info  what only the CLI reads (counts)
 *   block 2 ...             regions of struct bw_block, one per target prefix
 *                           length per family, in header order
 *
 * Region r (r = family * BW_MAX_LENGTHS + i) covers blocks
 * [bw_region_start(hdr, r), hdr->region_end[r]); an unused region is empty.
 *
 * Addresses enter the hash as numbers in host byte order: an IPv4 address as
 * one __u32, an IPv6 address as two __u64 (hi = first 8 bytes). Masking a
 * prefix clears the host bits of those numbers.
 */
#ifndef __BLOOMWALL_H
#define __BLOOMWALL_H

#include <linux/types.h>

#define BW_MAGIC 0x4d4f4c42 /* "BLOM" read as a little-endian __u32 */
#define BW_VERSION 2

#define BW_BLOCK_BYTES 64
#define BW_BLOCK_BITS 512
#define BW_BLOCK_WORDS 8
/* Blocks before the first region: the header and the info block. */
#define BW_HDR_BLOCKS 2

/* Target prefix lengths per family; the data path tests each one present. */
#define BW_MAX_LENGTHS 4
#define BW_FAMILIES 2
#define BW_REGIONS (BW_FAMILIES * BW_MAX_LENGTHS)
/* Bits set per key inside its block: 8 or 16 (see bw_round_bits). */
#define BW_MAX_PROBES 16
/* Largest filter the CLI builds: 2^26 blocks = 4 GiB. */
#define BW_MAX_BLOCKS (1U << 26)

enum bw_family {
	BW_V4 = 0,
	BW_V6 = 1,
};

/* bw_hdr.flags */
#define BW_F_MATCH_SRC (1U << 0) /* test the source address */
#define BW_F_MATCH_DST (1U << 1) /* test the destination address */
#define BW_F_MONITOR (1U << 2)	 /* count hits, pass them: never drop */
#define BW_F_VERIFY (1U << 3)	 /* a hit drops only if the exact trie agrees */
#define BW_F_ALLOW (1U << 4)	 /* the allowlist has entries: consult it */

/*
 * Block 0. Fits one cache line: every packet reads it. Regions are laid out
 * back to back from BW_HDR_BLOCKS on, so only their ends are stored. Each
 * region has its own probe count, sized for its own share of the target
 * false-positive rate.
 */
struct bw_hdr {
	__u32 magic;
	__u16 version;
	__u16 flags;
	__u32 seed;
	__u8 nlengths[BW_FAMILIES];
	__u8 exact_slot; /* verify mode: slot of the exact trie to use */
	__u8 pad;
	/* Target prefix lengths, longest first; [family][i] for i < nlengths. */
	__u8 plen[BW_FAMILIES][BW_MAX_LENGTHS];
	/* Bits per key, 8 or 16, [family * BW_MAX_LENGTHS + i]. */
	__u8 probes[BW_REGIONS];
	/* Exclusive end block of each region, [family * BW_MAX_LENGTHS + i]. */
	__u32 region_end[BW_REGIONS];
};

/*
 * Block 1. Read and updated by the CLI only (status, add): the data path
 * never touches it, so it may grow without cost per packet.
 */
struct bw_info {
	__u64 generation;     /* 1 for the first filter, +1 per swap */
	__u64 entries;	      /* keys set in the filter */
	__u64 source_entries; /* list entries before expansion */
	__u32 region_entries[BW_REGIONS];
	__u32 fpr_ppb; /* target false-positive rate, 1e-9 units */
	__u32 reserved;
};

struct bw_block {
	__u64 w[BW_BLOCK_WORDS];
};

/*
 * Per-CPU counters, one slot. Every packet counts once, in passed or a
 * dropped_*: packets = passed + dropped_v4 + dropped_v6 (the CLI shows the
 * sum; one store a packet fewer on the data path). not_ip, malformed,
 * monitored, allowed, false_pos and no_filter are parts of passed.
 */
struct bw_stats {
	__u64 passed;
	__u64 dropped_v4;
	__u64 dropped_v6;
	__u64 not_ip;	 /* ARP, LLDP, MPLS ...: no address to test */
	__u64 malformed; /* truncated or bad headers: passed, never dropped */
	__u64 monitored; /* hits passed because the filter is in monitor mode */
	__u64 allowed;	 /* hits passed because the allowlist matched */
	__u64 false_pos; /* hits the exact trie refused (verify mode) */
	__u64 no_filter; /* program loaded without a valid header: passed */
};

/*
 * Exact LPM tries (allowlist, verify mode) hold both families under one key:
 * IPv4 as the IPv4-mapped IPv6 address ::ffff:a.b.c.d, its prefix length
 * plus 96. addr is in network byte order, as the LPM trie compares bytes.
 */
struct bw_lpm_key {
	__u32 prefixlen;
	__u8 addr[16];
};

#define BW_LPM_V4_OFFSET 96
/* Allowlist capacity; the trie allocates per entry, not up front. */
#define BW_ALLOW_MAX (1U << 20)
/* Verify mode keeps two exact tries: the live one and the next one. */
#define BW_EXACT_SLOTS 2

/* Map names, the same in the BPF object, the pins and bpftool's listing. */
#define BW_MAP_FILTER_ID filter_id
#define BW_MAP_BLOCKS blocks
#define BW_MAP_STATS stats
#define BW_MAP_ALLOW allow
#define BW_MAP_EXACT exact
#define BW_PIN_ROOT "/sys/fs/bpf/bloomwall"

#define __bw_str(x) #x
#define bw_textify(x) __bw_str(x)

/* murmur3's fmix64: a bijection on 64 bits with full avalanche. */
static __always_inline __u64 bw_mix64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * Host bits cleared; plen 0 is the whole space, 32 the address. Branch-free
 * (a 64-bit shift covers 0 and 32 alike): it runs once per target length
 * per packet.
 */
static __always_inline __u32 bw_mask_v4(__u32 addr, __u32 plen)
{
	return addr & (__u32)(0xffffffff00000000ULL >> (plen & 63));
}

static __always_inline __u64 bw_mask64(__u64 word, __u32 plen)
{
	if (plen >= 64)
		return word;
	if (plen == 0)
		return 0;
	return word & ~(0xffffffffffffffffULL >> plen);
}

/*
 * Key hashes. The prefix length and family are part of the key, so 10.0.0.0/8
 * and 10.0.0.0/24 set different bits. The IPv4 key is injective before the
 * bijective mix: distinct IPv4 prefixes never share a hash.
 */
static __always_inline __u64 bw_hash_v4(__u32 addr, __u32 plen, __u32 seed)
{
	__u64 key = ((__u64)bw_mask_v4(addr, plen) << 8) | (plen & 0xff);

	return bw_mix64(key ^ ((__u64)seed << 40) ^ 0x4ULL << 60);
}

static __always_inline __u64 bw_hash_v6(__u64 hi, __u64 lo, __u32 plen,
					__u32 seed)
{
	__u64 mhi = bw_mask64(hi, plen);
	__u64 mlo = plen > 64 ? bw_mask64(lo, plen - 64) : 0;
	__u64 h;

	h = bw_mix64(((__u64)seed << 8 | (plen & 0xff)) ^ 0x6ULL << 60);
	h = bw_mix64(h ^ mhi);
	return bw_mix64(h ^ mlo);
}

/*
 * Block of a key inside a region of nblocks blocks: multiply-high range
 * reduction of the hash's top 32 bits (a 32x32->64 multiply, which -target
 * bpf lowers natively; no modulo).
 */
static __always_inline __u32 bw_block_index(__u64 hash, __u32 nblocks)
{
	return (__u32)(((hash >> 32) * (__u64)nblocks) >> 32);
}

static __always_inline __u32 bw_region_start(const struct bw_hdr *hdr,
					     __u32 region)
{
	return region ? hdr->region_end[region - 1] : BW_HDR_BLOCKS;
}

/*
 * What a region's hash and block index need from the header, worked out
 * once: the CLI computes these when it loads the program (they live in its
 * .rodata, never in the filter map), so a packet does not rebuild them from
 * the seed and the prefix length. bw_hash_*_rc() equal bw_hash_*() exactly;
 * tests/unit pins that.
 */
struct bw_region_consts {
	__u64 salt;    /* v4: the key's low bits; v6: the hash's first round */
	__u64 mask_hi; /* v4: the address mask; v6: mask of the first 8 bytes */
	__u64 mask_lo; /* v6: mask of the last 8 bytes */
	__u32 start;   /* first block of the region */
	__u32 nblocks; /* 0: the region is empty */
};

static __always_inline void bw_region_consts_init(const struct bw_hdr *hdr,
						  __u32 region,
						  struct bw_region_consts *rc)
{
	__u32 family = region / BW_MAX_LENGTHS;
	__u32 plen = hdr->plen[family][region % BW_MAX_LENGTHS];
	__u32 start = bw_region_start(hdr, region);

	rc->start = start;
	rc->nblocks = hdr->region_end[region] > start
			      ? hdr->region_end[region] - start
			      : 0;
	if (family == BW_V4) {
		/* The masked address sits above bit 8: | plen is ^ plen. */
		rc->salt =
			(plen & 0xff) ^ ((__u64)hdr->seed << 40) ^ 0x4ULL << 60;
		rc->mask_hi = bw_mask_v4(0xffffffff, plen);
		rc->mask_lo = 0;
		return;
	}
	rc->salt = bw_mix64(((__u64)hdr->seed << 8 | (plen & 0xff)) ^
			    0x6ULL << 60);
	rc->mask_hi = bw_mask64(~0ULL, plen);
	rc->mask_lo = plen > 64 ? bw_mask64(~0ULL, plen - 64) : 0;
}

static __always_inline __u64 bw_hash_v4_rc(__u32 addr,
					   const struct bw_region_consts *rc)
{
	return bw_mix64(((__u64)(addr & (__u32)rc->mask_hi) << 8) ^ rc->salt);
}

static __always_inline __u64 bw_hash_v6_rc(__u64 hi, __u64 lo,
					   const struct bw_region_consts *rc)
{
	__u64 h = bw_mix64(rc->salt ^ (hi & rc->mask_hi));

	return bw_mix64(h ^ (lo & rc->mask_lo));
}

/*
 * Probes come in rounds of eight: round r sets one bit in each of the
 * block's eight words, at the 6-bit fields of bw_round_bits(hash, r), top
 * field first (word 0). The eight bits of a round are independent of each
 * other, so a lookup computes them all at once, with no chain of dependent
 * steps between the block's arrival and the verdict. A key has one or two
 * rounds (8 or 16 probes), sized per region.
 */
#define BW_ROUND_PROBES 8
#define BW_MAX_ROUNDS 2
#define BW_ROUND_MUL 0x9e3779b97f4a7c15ULL

/*
 * The bits of a round. The block index came from the hash's top bits; a
 * multiply by an odd constant spreads every bit of the hash over the top of
 * the product, so keys that share a block still get independent fields.
 */
static __always_inline __u64 bw_round_bits(__u64 hash, __u32 round)
{
	__u64 x = hash * BW_ROUND_MUL;

	if (round)
		x = (x ^ x >> 29) * BW_ROUND_MUL;
	return x;
}

/* Bit position of the probe in word w (0..7) of a round. */
static __always_inline __u32 bw_round_bit(__u64 bits, __u32 w)
{
	return (__u32)(bits >> (58 - 6 * w)) & 63;
}

/* Word w of the block shifted so that its probe's bit is bit 0. */
static __always_inline __u64 bw_probe_word(const struct bw_block *blk,
					   __u64 bits, __u32 w)
{
	return blk->w[w] >> bw_round_bit(bits, w);
}

/*
 * Words tested together before the first branch: for an unlisted key the
 * branch is then taken one time in sixteen, and mispredicted as rarely.
 */
#define BW_PROBES_AHEAD 4

/*
 * True when all probes of the key with this hash are set in its block:
 * probes is 8 or 16 (one or two rounds); other counts are no valid filter.
 */
static __always_inline int bw_block_test(const struct bw_block *blk, __u64 hash,
					 __u32 probes)
{
	__u64 bits = bw_round_bits(hash, 0), acc = 1;
	__u32 w;

	for (w = 0; w < BW_PROBES_AHEAD; w++)
		acc &= bw_probe_word(blk, bits, w);
	if (!(acc & 1))
		return 0;
	for (w = BW_PROBES_AHEAD; w < BW_BLOCK_WORDS; w++)
		acc &= bw_probe_word(blk, bits, w);
	if (probes > BW_ROUND_PROBES) {
		/*
		 * Read the words again: keeping round 0's words for this
		 * rare round made clang spill them on every lookup.
		 */
		__asm__ __volatile__("" ::: "memory");
		bits = bw_round_bits(hash, 1);
		for (w = 0; w < BW_BLOCK_WORDS; w++)
			acc &= bw_probe_word(blk, bits, w);
	}
	return acc & 1;
}

/* Sets the probes of the key with this hash (probes: 8 or 16). */
static __always_inline void bw_block_set(struct bw_block *blk, __u64 hash,
					 __u32 probes)
{
	__u32 r, w;

	for (r = 0; r * BW_ROUND_PROBES < probes && r < BW_MAX_ROUNDS; r++) {
		__u64 bits = bw_round_bits(hash, r);

		for (w = 0; w < BW_BLOCK_WORDS; w++)
			blk->w[w] |= 1ULL << bw_round_bit(bits, w);
	}
}

static __always_inline __u64 bw_cpu_to_be64(__u64 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}

/*
 * LPM key of an address (host-order numbers as above) at prefix length plen
 * of its family. The trie ignores bits past prefixlen, so host bits need not
 * be cleared for a lookup; the CLI clears them for inserts.
 */
static __always_inline void bw_lpm_key_set(struct bw_lpm_key *k, __u32 family,
					   __u64 hi, __u64 lo, __u32 plen)
{
	__u64 w[2];

	if (family == BW_V4) {
		w[0] = 0;
		w[1] = 0xffff00000000ULL | (lo & 0xffffffffULL);
		k->prefixlen = plen + BW_LPM_V4_OFFSET;
	} else {
		w[0] = hi;
		w[1] = lo;
		k->prefixlen = plen;
	}
	w[0] = bw_cpu_to_be64(w[0]);
	w[1] = bw_cpu_to_be64(w[1]);
	__builtin_memcpy(k->addr, w, sizeof(w));
}

/* Bounds check shared by both sides before a header is trusted. */
static __always_inline int bw_hdr_valid(const struct bw_hdr *hdr)
{
	return hdr->magic == BW_MAGIC && hdr->version == BW_VERSION;
}

#endif /* __BLOOMWALL_H */
