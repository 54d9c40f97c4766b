/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Pinned test vectors for the hash and the block layout of
 * include/bw_hash.h, shared by tests/unit/test_hash.c (gcc) and the BPF
 * data path tests (clang -target bpf, run through BPF_PROG_TEST_RUN).
 *
 * The literals were computed once from bw_hash.h and written down: they
 * PIN the definition. Any change to bw_hash_v4/bw_hash_v6, bw_block_index or
 * bw_round_bits changes filters already built and must fail these tests, so
 * do not regenerate them to make a test pass; bump BW_VERSION instead (the
 * probe bits were last written for BW_VERSION 2, split blocks).
 *
 * addr is the text form (inet_pton); it is hashed as the numbers in host
 * byte order described in bw_hash.h, IPv6 as hi/lo of its 16 bytes. It
 * may have host bits set below plen (the hash masks them). block is
 * bw_block_index(hash, nblocks); bits are the key's 16 probes as bit numbers
 * in its block (word * 64 + bit): round 0, words 0..7, then round 1.
 */
#ifndef __BW_TEST_VECTORS_H
#define __BW_TEST_VECTORS_H

#include <linux/types.h>

#include "bloomwall.h"

struct bw_vector {
	int family; /* BW_V4 or BW_V6 */
	const char *addr;
	unsigned plen;
	__u32 seed;
	__u64 hash;
	__u32 nblocks;
	__u32 block;
	__u16 bits[BW_MAX_PROBES]; /* word * 64 + bit, round 0 then 1 */
};

static const struct bw_vector bw_vectors[] = {
	{ BW_V4, "0.0.0.0", 0, 0x00000000,
	  0x6554a70955a989a0ULL, 1, 0,
	  { 37, 95, 180, 236, 266, 356, 439, 465,
	    27, 70, 182, 222, 271, 337, 442, 485 } },
	{ BW_V4, "10.0.0.0", 8, 0x00000000,
	  0x164ffa16d41703ebULL, 1000, 87,
	  { 13, 103, 176, 244, 257, 356, 394, 503,
	    0, 106, 133, 196, 308, 329, 440, 459 } },
	{ BW_V4, "10.1.2.3", 8, 0x00000000,
	  0x164ffa16d41703ebULL, 1000, 87,
	  { 13, 103, 176, 244, 257, 356, 394, 503,
	    0, 106, 133, 196, 308, 329, 440, 459 } },
	{ BW_V4, "192.168.1.0", 24, 0x00000000,
	  0x9cf39ae2e326658dULL, 4096, 2511,
	  { 21, 117, 133, 216, 256, 360, 420, 472,
	    24, 78, 169, 244, 275, 352, 396, 500 } },
	{ BW_V4, "192.168.1.77", 32, 0x00000000,
	  0x94969f32ea71f9b9ULL, 4096, 2377,
	  { 35, 74, 139, 240, 272, 358, 411, 457,
	    3, 127, 187, 241, 274, 343, 431, 484 } },
	{ BW_V4, "1.2.3.4", 32, 0x9e3779b9,
	  0x65c12493fca4bb9cULL, 123457, 49071,
	  { 58, 94, 162, 254, 316, 322, 397, 506,
	    20, 126, 182, 208, 302, 333, 418, 450 } },
	{ BW_V4, "203.0.113.0", 24, 0xdeadbeef,
	  0x7ac62d659e6b72a2ULL, 65536, 31430,
	  { 30, 109, 161, 244, 260, 344, 428, 490,
	    30, 72, 177, 210, 317, 367, 413, 455 } },
	{ BW_V4, "255.255.255.255", 32, 0x00000001,
	  0xde0a04e784b204f2ULL, 7, 6,
	  { 50, 126, 180, 236, 259, 377, 419, 499,
	    4, 114, 148, 230, 260, 379, 398, 455 } },
	{ BW_V4, "172.16.0.0", 12, 0x0000002a,
	  0x09253064342bb8dbULL, 67108864, 2397377,
	  { 45, 85, 173, 224, 262, 328, 421, 494,
	    30, 64, 174, 208, 274, 363, 405, 448 } },
	{ BW_V6, "::", 0, 0x00000000,
	  0x554df97447968511ULL, 1, 0,
	  { 33, 74, 177, 217, 257, 346, 438, 503,
	    31, 68, 147, 244, 287, 327, 391, 455 } },
	{ BW_V6, "2001:db8::", 32, 0x00000000,
	  0x38bb8fede7a9941fULL, 1000, 221,
	  { 41, 112, 143, 211, 296, 341, 410, 478,
	    2, 106, 149, 227, 286, 359, 398, 507 } },
	{ BW_V6, "2001:db8:1:2::", 64, 0x00000000,
	  0xd2b33a5f338f36f0ULL, 4096, 3371,
	  { 5, 65, 163, 253, 311, 376, 426, 507,
	    20, 80, 159, 233, 266, 368, 396, 464 } },
	{ BW_V6, "2001:db8:1:2:3:4:5:6", 64, 0x12345678,
	  0xd09b341b2b80d782ULL, 4096, 3337,
	  { 44, 116, 184, 220, 281, 364, 398, 456,
	    54, 109, 133, 227, 272, 359, 386, 489 } },
	{ BW_V6, "2001:db8::1", 128, 0x00000000,
	  0x4119a93377f40d0dULL, 99991, 25427,
	  { 4, 124, 152, 225, 303, 340, 408, 473,
	    48, 71, 162, 201, 318, 368, 446, 458 } },
	{ BW_V6, "2a01:4f8:c0c:1234::2", 128, 0xdeadbeef,
	  0xd63359b68f162c15ULL, 1048576, 877365,
	  { 16, 92, 171, 237, 303, 330, 396, 509,
	    52, 119, 160, 231, 287, 336, 415, 500 } },
	{ BW_V6, "fe80::abcd", 48, 0x00000007,
	  0xbe71673926430d1bULL, 3, 2,
	  { 36, 68, 130, 244, 295, 348, 434, 487,
	    21, 71, 185, 197, 311, 350, 443, 491 } },
	{ BW_V6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 96, 0xffffffff,
	  0x08a9279ff5e5ea6aULL, 67108864, 2270366,
	  { 39, 64, 145, 223, 293, 334, 392, 459,
	    47, 77, 144, 255, 295, 375, 431, 458 } },
};

#define BW_NVECTORS (sizeof(bw_vectors) / sizeof(bw_vectors[0]))

#endif /* __BW_TEST_VECTORS_H */
