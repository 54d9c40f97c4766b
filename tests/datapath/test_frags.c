// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Jumbo frames (4 to 9 KB) through the real program. BPF_PROG_TEST_RUN
 * puts what fits in one page (about 3.5 KB with 4 KB pages) in the linear
 * part and the rest in fragments, as a veth at MTU 9000 hands a
 * multi-buffer program its frames: the headers are in the linear part, the
 * IP length is longer than it. Such a frame must be judged by its headers;
 * only one shorter than its own IP length is malformed.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if_ether.h>

#include "datapath.h"
#include "test_helpers.h"

#define LISTED4 "198.51.100.7"
#define UNLISTED4 "198.51.100.8"
#define LISTED6 "2001:db8:bad::7"
#define UNLISTED6 "2001:db8:bad::8"

/* Room for the largest frame below, 9000 bytes and two VLAN tags. */
#define JUMBO_MAX 9216

/* 7266: the frame that was passed as malformed before the program read
 * lengths from the whole frame.
 */
static const size_t sizes[] = { 4000, 7266, 9000 };

static const struct {
	const char *name;
	struct bw_pkt_spec pkt;
	enum bw_outcome whole;
} jumbo[] = {
	{ "ipv4 listed", { .src = LISTED4 }, BW_OUT_DROP_V4 },
	{ "ipv4 unlisted", { .src = UNLISTED4 }, BW_OUT_PASS },
	{ "ipv4 ihl 15 listed", { .src = LISTED4, .ihl = 15 }, BW_OUT_DROP_V4 },
	/* Tags move the IP header: the whole-frame check must follow it. */
	{ "QinQ ipv4 listed",
	  { .src = LISTED4, .tpid = { ETH_P_8021AD, ETH_P_8021Q } },
	  BW_OUT_DROP_V4 },
	{ "ipv6 listed", { .src = LISTED6 }, BW_OUT_DROP_V6 },
	{ "ipv6 unlisted", { .src = UNLISTED6 }, BW_OUT_PASS },
	{ "QinQ ipv6 listed",
	  { .src = LISTED6, .tpid = { ETH_P_8021AD, ETH_P_8021Q } },
	  BW_OUT_DROP_V6 },
	{ "QinQ ipv6 unlisted",
	  { .src = UNLISTED6, .tpid = { ETH_P_8021AD, ETH_P_8021Q } },
	  BW_OUT_PASS },
};

static __u8 buf[JUMBO_MAX];

/* Builds s as a frame of exactly len bytes (a UDP payload to fill it). */
static size_t build_sized(struct bw_pkt_spec s, size_t len)
{
	size_t bare;

	s.payload = 0;
	bare = bw_pkt_build(&s, buf);
	s.payload = len - bare;
	return bw_pkt_build(&s, buf);
}

static bool open_listed(struct bw_dp *dp, struct bw_filter_map *m)
{
	static const char *const listed[] = { LISTED4, LISTED6, NULL };
	struct bw_prefix a4 = bw_addr(UNLISTED4), a6 = bw_addr(UNLISTED6);

	if (!bw_dp_open(dp) ||
	    !ASSERT_OK(bw_dp_commit_addrs(dp, listed, BW_F_MATCH_SRC, m),
		       "commit filter"))
		return false;
	return ASSERT_EQ(bw_filter_lookup(m->mem, &a4, NULL), 0,
			 "precondition: " UNLISTED4 " not a false positive") &&
	       ASSERT_EQ(bw_filter_lookup(m->mem, &a6, NULL), 0,
			 "precondition: " UNLISTED6 " not a false positive");
}

/* A two-instruction XDP program that passes, with or without frags. */
static int tiny_prog(bool frags)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_XDP,
		    .prog_flags = frags ? BPF_F_XDP_HAS_FRAGS : 0);

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "bw_tiny", "GPL", insns, 2, &o);
}

/*
 * What makes the kernel accept the program on a veth at MTU 9000: libbpf
 * loads SEC("xdp.frags") with BPF_F_XDP_HAS_FRAGS. The kernel does not
 * report that flag, but it lets only programs that agree on it share a
 * program array: the first one in fixes it.
 */
BW_TEST(test_frags_flag)
{
	int arr = -1, with = -1, without = -1, err;
	struct bw_dp dp = {};
	__u32 k0 = 0, k1 = 1;

	if (!bw_dp_open(&dp))
		goto out;
	arr = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bw_frags", 4, 4, 2,
			     NULL);
	with = tiny_prog(true);
	without = tiny_prog(false);
	if (!ASSERT_GE(arr, 0, "prog array") ||
	    !ASSERT_GE(with, 0, "frags program") ||
	    !ASSERT_GE(without, 0, "plain program"))
		goto out;
	if (!ASSERT_OK(bpf_map_update_elem(arr, &k0, &dp.prog_fd, BPF_ANY),
		       "bloomwall_xdp into the array"))
		goto out;
	ASSERT_OK(bpf_map_update_elem(arr, &k1, &with, BPF_ANY),
		  "a frags program beside bloomwall_xdp");
	err = bpf_map_update_elem(arr, &k1, &without, BPF_ANY);
	ASSERT_EQ(err ? -errno : 0, -EINVAL,
		  "a plain program beside bloomwall_xdp refused");
out:
	if (arr >= 0)
		close(arr);
	if (with >= 0)
		close(with);
	if (without >= 0)
		close(without);
	bw_dp_close(&dp);
}

/* Whole jumbo frames: judged by their headers, whatever their size. */
BW_TEST(test_frags_whole)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	char desc[96];
	size_t i, j, len;

	if (!open_listed(&dp, &m))
		goto out;
	for (i = 0; i < sizeof(jumbo) / sizeof(jumbo[0]); i++) {
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			len = build_sized(jumbo[i].pkt, sizes[j]);
			if (!ASSERT_EQ(len, sizes[j], "frame size"))
				goto out;
			snprintf(desc, sizeof(desc), "%s, %zu-byte frame",
				 jumbo[i].name, len);
			bw_dp_expect(&dp, desc, buf, len, jumbo[i].whole);
		}
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * A jumbo frame cut short of its IP length, in the fragments or in the
 * linear part, is truncated: passed and counted as malformed, never
 * dropped. Every 7th byte from the end of the headers, the last bytes one
 * by one, and around the end of the linear part byte by byte.
 */
static bool is_cut(size_t len, size_t need, size_t full)
{
	if (len < need || len >= full)
		return false;
	return (len - need) % 7 == 0 || len + 16 >= full ||
	       (len >= 3400 && len <= 3700);
}

BW_TEST(test_frags_truncated)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	size_t i, full, need, len;
	char desc[96];

	if (!open_listed(&dp, &m))
		goto out;
	for (i = 0; i < sizeof(jumbo) / sizeof(jumbo[0]); i++) {
		full = build_sized(jumbo[i].pkt, 9000);
		need = bw_pkt_needed(&jumbo[i].pkt);
		for (len = need; len < full; len++) {
			if (!is_cut(len, need, full))
				continue;
			snprintf(desc, sizeof(desc),
				 "%s, 9000-byte frame cut at %zu",
				 jumbo[i].name, len);
			if (!bw_dp_expect(&dp, desc, buf, len,
					  BW_OUT_MALFORMED))
				goto out;
		}
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * The other way round: an IP packet shorter than the frame (trailing bytes
 * in the fragments) is whole, judged as such.
 */
BW_TEST(test_frags_padded)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_pkt_spec s4 = { .src = LISTED4 }, s6 = { .src = LISTED6 };
	struct bw_dp dp = {};
	size_t len;

	if (!open_listed(&dp, &m))
		goto out;
	len = build_sized(s4, 4000);
	memset(buf + len, 0, 9000 - len);
	bw_dp_expect(&dp, "ipv4 listed, 4000-byte packet in 9000 bytes", buf,
		     9000, BW_OUT_DROP_V4);
	len = build_sized(s6, 4000);
	memset(buf + len, 0, 9000 - len);
	bw_dp_expect(&dp, "ipv6 listed, 4000-byte packet in 9000 bytes", buf,
		     9000, BW_OUT_DROP_V6);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
