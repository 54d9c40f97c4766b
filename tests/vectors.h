/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Pinned test vectors for the hash and the block layout of
 * include/bloomwall.h, shared by tests/unit/test_hash.c (gcc) and the BPF
 * data path tests (clang -target bpf, run through BPF_PROG_TEST_RUN).
 *
 * The literals were computed once from bloomwall.h and written down: they
 * PIN the definition. Any change to bw_hash_v4/bw_hash_v6, bw_block_index or
 * bw_next_probe changes filters already built and must fail these tests, so
 * do not regenerate them to make a test pass; bump BW_VERSION instead.
 *
 * addr is the text form (inet_pton); it is hashed as the numbers in host
 * byte order described in bloomwall.h, IPv6 as hi/lo of its 16 bytes. It
 * may have host bits set below plen (the hash masks them). block is
 * bw_block_index(hash, nblocks); probe_bits are the first four results of
 * bw_next_probe() starting from state = hash.
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
	__u32 probe_bits[4];
};

static const struct bw_vector bw_vectors[] = {
	{ BW_V4, "0.0.0.0", 0, 0x00000000,
	  0x6554a70955a989a0ULL, 1, 0, { 36, 419, 420, 155 } },
	{ BW_V4, "10.0.0.0", 8, 0x00000000,
	  0x164ffa16d41703ebULL, 1000, 87, { 129, 23, 276, 253 } },
	{ BW_V4, "10.1.2.3", 8, 0x00000000,
	  0x164ffa16d41703ebULL, 1000, 87, { 129, 23, 276, 253 } },
	{ BW_V4, "192.168.1.0", 24, 0x00000000,
	  0x9cf39ae2e326658dULL, 4096, 2511, { 76, 249, 428, 461 } },
	{ BW_V4, "192.168.1.77", 32, 0x00000000,
	  0x94969f32ea71f9b9ULL, 4096, 2377, { 74, 58, 75, 101 } },
	{ BW_V4, "1.2.3.4", 32, 0x9e3779b9,
	  0x65c12493fca4bb9cULL, 123457, 49071, { 210, 475, 0, 472 } },
	{ BW_V4, "203.0.113.0", 24, 0xdeadbeef,
	  0x7ac62d659e6b72a2ULL, 65536, 31430, { 399, 473, 274, 482 } },
	{ BW_V4, "255.255.255.255", 32, 0x00000001,
	  0xde0a04e784b204f2ULL, 7, 6, { 213, 217, 456, 287 } },
	{ BW_V4, "172.16.0.0", 12, 0x0000002a,
	  0x09253064342bb8dbULL, 67108864, 2397377, { 339, 266, 84, 407 } },
	{ BW_V6, "::", 0, 0x00000000,
	  0x554df97447968511ULL, 1, 0, { 236, 98, 484, 312 } },
	{ BW_V6, "2001:db8::", 32, 0x00000000,
	  0x38bb8fede7a9941fULL, 1000, 221, { 190, 339, 453, 478 } },
	{ BW_V6, "2001:db8:1:2::", 64, 0x00000000,
	  0xd2b33a5f338f36f0ULL, 4096, 3371, { 365, 264, 186, 360 } },
	{ BW_V6, "2001:db8:1:2:3:4:5:6", 64, 0x12345678,
	  0xd09b341b2b80d782ULL, 4096, 3337, { 236, 449, 289, 97 } },
	{ BW_V6, "2001:db8::1", 128, 0x00000000,
	  0x4119a93377f40d0dULL, 99991, 25427, { 156, 177, 91, 409 } },
	{ BW_V6, "2a01:4f8:c0c:1234::2", 128, 0xdeadbeef,
	  0xd63359b68f162c15ULL, 1048576, 877365, { 35, 95, 412, 283 } },
	{ BW_V6, "fe80::abcd", 48, 0x00000007,
	  0xbe71673926430d1bULL, 3, 2, { 471, 414, 15, 157 } },
	{ BW_V6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 96, 0xffffffff,
	  0x08a9279ff5e5ea6aULL, 67108864, 2270366, { 19, 116, 64, 493 } },
};

#define BW_NVECTORS (sizeof(bw_vectors) / sizeof(bw_vectors[0]))

#endif /* __BW_TEST_VECTORS_H */
