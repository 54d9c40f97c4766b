/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bw_hash.h - the hash and block code shared by the XDP program and the
 * CLI: key hashes, a key's block and probe bits, the block test and set,
 * and the two helpers both sides apply to bw_layout.h's structs (LPM key,
 * header check).
 *
 * Compiled by clang -target bpf and by gcc, as static inline functions on
 * <linux/types.h> types: the two must give the same bits, or a listed key
 * would silently be missed. tests/vectors.h pins them (tests/unit/test_hash.c
 * for gcc, tests/datapath/test_vectors.c for the BPF side).
 *
 * Two layers. A key hash turns a key into 64 bits: addresses (bw_hash_v4,
 * bw_hash_v6 and their per-region forms) and domain names (bw_name_*, a
 * hash of every suffix of a name in one pass), each with a key tag of its
 * own. Everything from bw_block_index on takes any 64-bit key hash and does
 * not know what was hashed.
 */
#ifndef __BW_HASH_H
#define __BW_HASH_H

#include <linux/types.h>

#include "bw_layout.h"

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
 * Key tags, in the top bits of what is mixed: keys of different kinds never
 * hash alike by construction of their input. A new kind of key (domain
 * names) takes a tag of its own.
 */
#define BW_KEY_TAG_V4 (0x4ULL << 60)
#define BW_KEY_TAG_V6 (0x6ULL << 60)
#define BW_KEY_TAG_NAME (0xdULL << 60)

/*
 * Address keys. Addresses enter the hash as numbers in host byte order: an
 * IPv4 address as one __u32, an IPv6 address as two __u64 (hi = first 8
 * bytes). Masking a prefix clears the host bits of those numbers.
 */

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
 * Address key hashes. The prefix length and family are part of the key, so
 * 10.0.0.0/8 and 10.0.0.0/24 set different bits. The IPv4 key is injective
 * before the bijective mix: distinct IPv4 prefixes never share a hash.
 */
static __always_inline __u64 bw_hash_v4(__u32 addr, __u32 plen, __u32 seed)
{
	__u64 key = ((__u64)bw_mask_v4(addr, plen) << 8) | (plen & 0xff);

	return bw_mix64(key ^ ((__u64)seed << 40) ^ BW_KEY_TAG_V4);
}

static __always_inline __u64 bw_hash_v6(__u64 hi, __u64 lo, __u32 plen,
					__u32 seed)
{
	__u64 mhi = bw_mask64(hi, plen);
	__u64 mlo = plen > 64 ? bw_mask64(lo, plen - 64) : 0;
	__u64 h;

	h = bw_mix64(((__u64)seed << 8 | (plen & 0xff)) ^ BW_KEY_TAG_V6);
	h = bw_mix64(h ^ mhi);
	return bw_mix64(h ^ mlo);
}

/*
 * Domain name keys. A query must test its name and every parent suffix
 * ("com", "example.com", "ads.example.com"), so the hash is a chain over
 * the labels from the right, and each step's value is the key of the
 * suffix it has reached: one pass gives every suffix, and the cost grows
 * with the name, not with the list.
 *
 *   h[0] = bw_name_hash_init(seed)                   (per filter)
 *   h[k] = bw_name_hash_step(h[k-1], L(label k))     label 1 is the TLD
 *   subtree key of the k-label suffix  = h[k]
 *   exact key of the whole name        = bw_name_key_exact(h[n])
 *
 * L is bw_name_label_hash(): the label's bytes case-folded (ASCII A-Z to
 * a-z, nothing else changes), taken 8 at a time as a little-endian number
 * (byte i of a chunk at bits 8 * i, the last chunk zero-padded), each
 * chunk one multiply-xorshift, the label's length in its start. A label
 * ends at a length byte or a dot, so L("ad") and L("bad") never meet at
 * a boundary: "ad.com" cannot match "bad.com" but by a 64-bit collision.
 * The exact key is one more mix with a tag: an exact entry is never the
 * key of any suffix, so it never matches its children, and a subtree
 * entry costs the data path nothing beyond the chain.
 *
 * Cost per label: ceil(len / 8) multiplies for L, and bw_mix64 (two
 * multiplies) for the step; the byte loads and the case fold are the
 * parser's anyway.
 */
#define BW_NAME_LABEL_MAX 63
#define BW_NAME_MAX 253	       /* dotted, no trailing dot */
#define BW_NAME_LABELS_MAX 127 /* one-byte labels in 253 bytes */
#define BW_NAME_LABEL_SALT 0x2545f4914f6cdd1dULL
#define BW_NAME_MUL 0x9fb21c651e98df25ULL
#define BW_NAME_TAG_EXACT 0xe7037ed1a0b428dbULL

/* ASCII A-Z to a-z, other bytes as they are (branch-free for the verifier). */
static __always_inline __u8 bw_name_fold(__u8 c)
{
	return c | (__u8)(((__u8)(c - 'A') < 26) << 5);
}

static __always_inline __u64 bw_name_label_init(__u32 len)
{
	return BW_NAME_LABEL_SALT ^ len;
}

/* One 8-byte chunk of a label (folded, little-endian, zero-padded). */
static __always_inline __u64 bw_name_label_chunk(__u64 a, __u64 chunk)
{
	a = (a ^ chunk) * BW_NAME_MUL;
	return a ^ (a >> 29);
}

/*
 * L of a label of len bytes (1..63) at p, folding as it reads: the form
 * for a label in memory. A data path that reads the packet a byte at a
 * time builds the same chunks with bw_name_fold() and feeds
 * bw_name_label_chunk() itself.
 */
static __always_inline __u64 bw_name_label_hash(const __u8 *p, __u32 len)
{
	__u64 a = bw_name_label_init(len), chunk = 0;
	__u32 i;

	for (i = 0; i < len && i < BW_NAME_LABEL_MAX; i++) {
		chunk |= (__u64)bw_name_fold(p[i]) << (8 * (i & 7));
		if ((i & 7) == 7) {
			a = bw_name_label_chunk(a, chunk);
			chunk = 0;
		}
	}
	if (len & 7)
		a = bw_name_label_chunk(a, chunk);
	return a;
}

/* The chain's start: the root, never a key itself. */
static __always_inline __u64 bw_name_hash_init(__u32 seed)
{
	return bw_mix64(((__u64)seed << 8) ^ BW_KEY_TAG_NAME);
}

/* The suffix one label longer: its subtree key. */
static __always_inline __u64 bw_name_hash_step(__u64 h, __u64 label_hash)
{
	return bw_mix64(h ^ label_hash);
}

/* The exact key of the name whose subtree key is h. */
static __always_inline __u64 bw_name_key_exact(__u64 h)
{
	return bw_mix64(h ^ BW_NAME_TAG_EXACT);
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
 * What a region's address hash and block index need from the header, worked
 * out once: the CLI computes these when it loads the program (they live in
 * its .rodata, never in the filter map), so a packet does not rebuild them
 * from the seed and the prefix length. bw_hash_*_rc() equal bw_hash_*()
 * exactly; tests/unit pins that.
 */
struct bw_region_consts {
	__u64 salt;    /* v4: the key's low bits; v6: the hash's first round */
	__u64 mask_hi; /* v4: the address mask; v6: mask of the first 8 bytes */
	__u64 mask_lo; /* v6: mask of the last 8 bytes */
	__u32 start;   /* first block of the region */
	__u32 nblocks; /* 0: the region is empty or not in use */
};

static __always_inline void bw_region_consts_init(const struct bw_hdr *hdr,
						  __u32 region,
						  struct bw_region_consts *rc)
{
	__u32 family = region / BW_MAX_LENGTHS;
	__u32 plen = hdr->plen[family][region % BW_MAX_LENGTHS];
	__u32 start = bw_region_start(hdr, region);

	rc->start = start;
	/* A region past its family's lengths is not in use: no blocks. */
	rc->nblocks =
		hdr->region_end[region] > start &&
				region % BW_MAX_LENGTHS < hdr->nlengths[family]
			? hdr->region_end[region] - start
			: 0;
	if (family == BW_V4) {
		/* The masked address sits above bit 8: | plen is ^ plen. */
		rc->salt = (plen & 0xff) ^ ((__u64)hdr->seed << 40) ^
			   BW_KEY_TAG_V4;
		rc->mask_hi = bw_mask_v4(0xffffffff, plen);
		rc->mask_lo = 0;
		return;
	}
	rc->salt = bw_mix64(((__u64)hdr->seed << 8 | (plen & 0xff)) ^
			    BW_KEY_TAG_V6);
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

_Static_assert(BW_ROUND_PROBES == BW_BLOCK_WORDS,
	       "a round sets one bit in each word of the block");
_Static_assert(BW_MAX_ROUNDS *BW_ROUND_PROBES == BW_MAX_PROBES,
	       "BW_MAX_PROBES is BW_MAX_ROUNDS full rounds");
_Static_assert((1 << 6) == 64 && BW_ROUND_PROBES * 6 <= 64,
	       "a 6-bit field numbers a word's bits; a round's fit in 64 bits");

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
		 * Read the words again rather than keep round 0's: holding
		 * them across this rare round makes clang spill them on
		 * every lookup.
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
 * The who tried key of family's latest source, raw as struct
 * bw_who_latest keeps it (the packet's byte order), in host byte order.
 */
static __always_inline struct bw_who_key bw_who_latest_key(const __u64 raw[2],
							   __u32 family)
{
	struct bw_who_key k = { .family = family };
	__u32 v4 = (__u32)raw[1];
	const __u8 *b = (const __u8 *)&v4;

	if (family == BW_V6) {
		/* A byte swap is its own inverse: big-endian to host too. */
		k.addr[0] = bw_cpu_to_be64(raw[0]);
		k.addr[1] = bw_cpu_to_be64(raw[1]);
	} else {
		k.addr[1] = (__u32)b[0] << 24 | (__u32)b[1] << 16 |
			    (__u32)b[2] << 8 | b[3];
	}
	return k;
}

/*
 * LPM key of an address (host-order numbers as above) at prefix length plen
 * of its family. The trie ignores bits past prefixlen, so host bits need not
 * be cleared for a lookup; the CLI clears them for inserts. Every byte is
 * written: the BPF side passes the key from its stack.
 */
static __always_inline void bw_lpm_key_set(struct bw_lpm_key *k, __u32 family,
					   __u64 hi, __u64 lo, __u32 plen)
{
	__u64 w[2];

	if (family == BW_V4) {
		w[0] = (lo & 0xffffffffULL) << 32;
		w[1] = 0;
		k->family = BW_LPM_FAMILY_V4;
	} else {
		w[0] = hi;
		w[1] = lo;
		k->family = BW_LPM_FAMILY_V6;
	}
	k->prefixlen = BW_LPM_ADDR_OFFSET + plen;
	k->pad[0] = 0;
	k->pad[1] = 0;
	k->pad[2] = 0;
	w[0] = bw_cpu_to_be64(w[0]);
	w[1] = bw_cpu_to_be64(w[1]);
	__builtin_memcpy(k->addr, w, sizeof(w));
}

/*
 * A header is used only if it is one this code can read: anything else (a
 * zeroed .rodata, a filter of another format version) is no filter at all.
 */
static __always_inline int bw_hdr_valid(const struct bw_hdr *hdr)
{
	return hdr->magic == BW_MAGIC && hdr->version >= BW_VERSION_MIN &&
	       hdr->version <= BW_VERSION;
}

/* Block of the DNS block: where the address regions end. */
static __always_inline __u32 bw_dns_block(const struct bw_hdr *hdr)
{
	return hdr->region_end[BW_REGIONS - 1];
}

/* First block of name region n (enum bw_name_region). */
static __always_inline __u32 bw_name_region_start(const struct bw_hdr *hdr,
						  const struct bw_dns_hdr *dns,
						  __u32 n)
{
	return n ? dns->region_end[n - 1] : bw_dns_block(hdr) + 1;
}

/*
 * What the data path needs for names, worked out by the CLI when it loads
 * the program (its .rodata, as struct bw_region_consts): the chains'
 * starting values and each name region's place. nblocks 0: the region is
 * empty (the program then leaves out its tests).
 */
struct bw_dns_consts {
	__u64 name_init;  /* bw_name_hash_init(hdr->seed) */
	__u64 allow_init; /* bw_name_hash_init(BW_NAME_ALLOW_SEED) */
	__u32 start[BW_NAME_REGIONS];
	__u32 nblocks[BW_NAME_REGIONS];
	__u8 probes[BW_NAME_REGIONS];
	__u8 action;
	__u8 flags; /* bw_dns_hdr.flags */
	__u32 ttl;
};

/* dns may be NULL (no BW_F_DNS): every region is then empty. */
static __always_inline void bw_dns_consts_init(const struct bw_hdr *hdr,
					       const struct bw_dns_hdr *dns,
					       struct bw_dns_consts *dc)
{
	__u32 n, start;

	__builtin_memset(dc, 0, sizeof(*dc));
	dc->name_init = bw_name_hash_init(hdr->seed);
	dc->allow_init = bw_name_hash_init(BW_NAME_ALLOW_SEED);
	if (!dns || !(hdr->flags & BW_F_DNS) || dns->magic != BW_DNS_MAGIC)
		return;
	for (n = 0; n < BW_NAME_REGIONS; n++) {
		start = bw_name_region_start(hdr, dns, n);
		dc->start[n] = start;
		dc->nblocks[n] = dns->region_end[n] > start
					 ? dns->region_end[n] - start
					 : 0;
		dc->probes[n] = dns->probes[n];
	}
	dc->action = dns->action;
	dc->flags = dns->flags;
	dc->ttl = dns->ttl;
}

/* Where the record area starts: after the last region of either kind. */
static __always_inline __u32 bw_regions_end(const struct bw_hdr *hdr,
					    const struct bw_dns_hdr *dns)
{
	if (!(hdr->flags & BW_F_DNS) || !dns || dns->magic != BW_DNS_MAGIC)
		return bw_dns_block(hdr);
	return dns->region_end[BW_NAME_REGIONS - 1];
}

#endif /* __BW_HASH_H */
