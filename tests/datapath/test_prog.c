// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The loaded program itself: verifier-clean, JIT-compiled, its size printed
 * for the record, and the verdicts of the packets `make bench` (part c)
 * times through it. No timing here: machines differ.
 */
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "datapath.h"
#include "test_helpers.h"

/* Asserts the program is JIT-compiled and prints its size. */
static bool print_prog_info(int fd, const char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_obj_get_info_by_fd(fd, &info, &len), "prog info"))
		return false;
	ASSERT_STREQ(info.name, name, "program name");
	ASSERT_GE(info.jited_prog_len, 1, "program is JIT-compiled");
	printf("  %s: xlated %u bytes (%u insns), jited %u bytes, verifier "
	       "processed %u insns\n",
	       name, info.xlated_prog_len, info.xlated_prog_len / 8,
	       info.jited_prog_len, info.verified_insns);
	return true;
}

static void expect_from(struct bw_dp *dp, const char *src, enum bw_outcome want)
{
	struct bw_pkt_spec s = { .src = src, .payload = 18 };
	__u8 buf[BW_PKT_MAX];

	bw_dp_expect(dp, src, buf, bw_pkt_build(&s, buf), want);
}

BW_TEST(test_prog_info)
{
	static const char *const listed[] = { "198.51.100.7", "2001:db8:bad::7",
					      NULL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};

	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, listed, BW_F_MATCH_SRC, &m),
		       "commit") ||
	    !print_prog_info(dp.prog_fd, "bloomwall_xdp"))
		goto out;
	expect_from(&dp, "198.51.100.8", BW_OUT_PASS);
	expect_from(&dp, "198.51.100.7", BW_OUT_DROP_V4);
	expect_from(&dp, "2001:db8:bad::8", BW_OUT_PASS);
	expect_from(&dp, "2001:db8:bad::7", BW_OUT_DROP_V6);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
