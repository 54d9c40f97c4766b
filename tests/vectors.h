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

/*
 * Domain name hashes (bw_name_* in bw_hash.h): name is the dotted text as
 * hashed (mixed case and a trailing dot where the folding is the point),
 * suffix[k] the subtree key of the suffix of k + 1 labels (suffix[0] the
 * TLD's), exact the whole name's exact key. Written down once like the
 * address vectors: never regenerate them to make a test pass. They cover
 * labels of 1, 8, 9, 16 and 63 bytes (chunk boundaries), '_' and an xn--
 * label, a 253-byte name of four long labels and one of 127 labels.
 */
struct bw_name_vector {
	const char *name;
	__u32 seed;
	unsigned nlabels;
	__u64 exact;
	const __u64 *suffix; /* nlabels keys */
};

static const struct bw_name_vector bw_name_vectors[] = {
	{ "com",
	  0x00000000, 1, 0x83aa921069bac142ULL,
	  (const __u64[]){
		0xbafb6e94b55ac1baULL } },
	{ "example.com",
	  0x00000000, 2, 0xb64668e0b25a662aULL,
	  (const __u64[]){
		0xbafb6e94b55ac1baULL, 0x4a86cb9a8f01650aULL } },
	{ "ads.example.com",
	  0x9e3779b9, 3, 0x5ed2d7797c5adbbbULL,
	  (const __u64[]){
		0xcc1ef619c19c7035ULL, 0x7e579e0aa7c2f961ULL, 0x3787e2a33b776ad3ULL } },
	{ "Ads.EXAMPLE.Com.",
	  0x9e3779b9, 3, 0x5ed2d7797c5adbbbULL,
	  (const __u64[]){
		0xcc1ef619c19c7035ULL, 0x7e579e0aa7c2f961ULL, 0x3787e2a33b776ad3ULL } },
	{ "_dmarc.xn--bcher-kva.example",
	  0xdeadbeef, 3, 0x046d623b38c5cdf7ULL,
	  (const __u64[]){
		0x787a8524caedde54ULL, 0xb19d4fdc963e1276ULL, 0x9c2dbd8bc2df0f13ULL } },
	{ "abcdefgh.abcdefghijklmnop.abcdefghi.net",
	  0x00000001, 4, 0x68b643c277d64da1ULL,
	  (const __u64[]){
		0xa5c12f9b8c65edabULL, 0xd95e52bc0a919634ULL, 0xacb7cec2467e8d05ULL,
		0x00c7c8e56de4dfcbULL } },
	{ "ahov29gnu18fmt07elsz6dkry5cjqx4bipw3ahov29gnu18fmt07elsz6dkry5c.example.org",
	  0x00000000, 3, 0x00cc7ed6e4ce3f2dULL,
	  (const __u64[]){
		0x8b8f7336a8d0893dULL, 0x04e170cad90b958dULL, 0xcf8812618221a0ccULL } },
	{ "bipw3ahov29gnu18fmt07elsz6dkry5cjqx4bipw3ahov29gnu18fmt07elsz6d.cjqx4bipw3ahov29gnu18fmt07elsz6dkry5cjqx4bipw3ahov29gnu18fmt07e.dkry5cjqx4bipw3ahov29gnu18fmt07elsz6dkry5cjqx4bipw3ahov29gnu18f.elsz6dkry5cjqx4bipw3ahov29gnu18fmt07elsz6dkry5cjqx4bipw3ahov2",
	  0x12345678, 4, 0x566eb608298c15adULL,
	  (const __u64[]){
		0xfcdf0980e9bd141eULL, 0xf5b9b84861b32e78ULL, 0xb43866009dc8113bULL,
		0x05ad96e4f247457dULL } },
	{ "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.0.1.2.3.4.5.6.7.8.9.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.0.1.2.3.4.5.6.7.8.9.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.0.1.2.3.4.5.6.7.8.9.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s",
	  0xffffffff, 127, 0x9b9405937268ba07ULL,
	  (const __u64[]){
		0x8d3be6d8d33bb45aULL, 0xbd6a003efd4f796fULL, 0x3e3386a59ed02874ULL,
		0x18592a32c4f4511cULL, 0x3d627398745e8cecULL, 0x2ac47c8ad8b2a9ccULL,
		0xcbecce04b02f217fULL, 0x3c53fbf5ee1bb4e5ULL, 0xb27ceadfb329e3cbULL,
		0x279e0c99d07698e1ULL, 0xaaf10821e85e9e96ULL, 0xd3172ba76f1ea3c3ULL,
		0xae57330e5f56c07bULL, 0xce0daa51b1230b98ULL, 0x5d34f8094e92bf39ULL,
		0x2235cb56f83d45b3ULL, 0xc6b8ae86565cc84aULL, 0x9a440b3b03ad4e42ULL,
		0xe7229702fba3d493ULL, 0xc60c4cee72203209ULL, 0xb50706eb3e9af20dULL,
		0xce78f0179ddd9d77ULL, 0x5fde4a5155398314ULL, 0x341cdfdd3a8fb454ULL,
		0xd4eaeabfae2d67baULL, 0x8987a31bad7e9502ULL, 0x6d3c6db9be6c2f47ULL,
		0xa00cd7a1ce857fc9ULL, 0x4d85b4c55b737073ULL, 0x58459730b87f06f7ULL,
		0x8885631938341b21ULL, 0x02ce758e1176a92bULL, 0xdec4824c942abc1aULL,
		0x438eb888311b9d6aULL, 0x6edf1f0305bac40dULL, 0xbe38df615ec7ed15ULL,
		0x6b08a67513e47799ULL, 0xcea721a3809672abULL, 0xa7f0435b051c519fULL,
		0xf4c8c163ab1707fbULL, 0xe232cfb8714db2b7ULL, 0x4ac0728cf022c7faULL,
		0xfb0303eacfbab3d7ULL, 0x25ac5924a779a016ULL, 0x285034a3d894859fULL,
		0x415f7b322b89e29bULL, 0xc3357f704fd2ec85ULL, 0x85503dded778da61ULL,
		0x98f897a8b653602fULL, 0x987021e916c51f60ULL, 0x106c8f69c79000daULL,
		0x6993de90b76d3248ULL, 0xf62d0727ad4fff5fULL, 0xf9e4896580148caaULL,
		0xe31b3698424a115fULL, 0xfd124fa63a384f6cULL, 0x8e702020ea98b166ULL,
		0xb70fbe0203915157ULL, 0xe55bba9e9479d617ULL, 0x723a0bc327f021eaULL,
		0x40c8b31d3870b32cULL, 0x2df0b03435a01894ULL, 0xf1edf174913a802fULL,
		0xc704ad6077f8eec6ULL, 0x98fa59a993cac3daULL, 0xd85949cdf3ab61c2ULL,
		0x1c9c86db4c1c94ffULL, 0xccfb17cd62d084d9ULL, 0x0878498ca96ee5bcULL,
		0x7daa5ac3852e61a9ULL, 0xb00a8b17e144c86bULL, 0x798170997d9b939aULL,
		0xb27578432de8f332ULL, 0xca43eb760da915aeULL, 0x3084996076a60c76ULL,
		0xef9a71b3479e9189ULL, 0xb3db98f31e73cddfULL, 0xc9635004ef62c0a6ULL,
		0xd4270f7bb1aae3c0ULL, 0x74b722167a0dafd1ULL, 0x869428b05557428dULL,
		0xaaba1f4a9fd3f637ULL, 0x13484fc21a8f535eULL, 0xfa262548525935cdULL,
		0x39f989db75678b76ULL, 0x7d46a0b335147761ULL, 0xa8df027fa8250989ULL,
		0xf128b970f798f505ULL, 0x5d5c2fb4766dba1bULL, 0x89cc492e2a38525cULL,
		0x4bba32fd30ea9924ULL, 0x625ce153f5fe0054ULL, 0x2742f568eb098155ULL,
		0xd1d15e49926cb278ULL, 0x99b1237f24e8f0bcULL, 0x5e098d7b05c8610cULL,
		0xe6c2e7922b5b937aULL, 0xf2ced62c0351f7baULL, 0x5149d28836e6e2ddULL,
		0xa6f587f64e627407ULL, 0x514f5650b58bef08ULL, 0x5e9efb5c68da1545ULL,
		0x2b3c954d50e1a653ULL, 0x65e3bd806614076aULL, 0x54c538edc52ac1beULL,
		0xf9eb8d59aa94a256ULL, 0x60b40ab412828fc3ULL, 0x19352713e05feebfULL,
		0xed1beb030fa70986ULL, 0xc0148d8f315e59eaULL, 0xbcc11c16bae8a865ULL,
		0x35c89d81b277bd76ULL, 0xbe485df5afc3dcd0ULL, 0xe4c82c35edc63490ULL,
		0x9f15b952b00cdeecULL, 0xb98c91f9c3f48652ULL, 0x192ee68d8294bf55ULL,
		0x6779206582f2e4f0ULL, 0xdd3f67db3b44c354ULL, 0x8c80afb29694791cULL,
		0xc48de5ff7c1431faULL, 0x116fcfd6b5cc4c69ULL, 0x7f48fceeec3e5227ULL,
		0x46613af0678e286aULL, 0x2ea84c0126b4ef8bULL, 0x0bedbc50f84348b3ULL,
		0x249bf6b5d1f183feULL } },
};

#define BW_NNAME_VECTORS (sizeof(bw_name_vectors) / sizeof(bw_name_vectors[0]))

#endif /* __BW_TEST_VECTORS_H */
