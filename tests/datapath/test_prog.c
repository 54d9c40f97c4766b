// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The loaded program itself: verifier-clean, JIT-compiled, and its size and
 * per-packet cost printed for the record (informational: no timing is
 * asserted, machines differ).
 */
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "datapath.h"
#include "test_helpers.h"

#define REPEAT 100000

static void print_duration(struct bw_dp *dp, const char *what, const char *src)
{
	struct bw_pkt_spec s = { .src = src, .payload = 18 };
	__u8 buf[BW_PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = buf, .repeat = REPEAT);

	topts.data_size_in = bw_pkt_build(&s, buf);
	if (!ASSERT_OK(bpf_prog_test_run_opts(dp->prog_fd, &topts), what))
		return;
	printf("  %-24s %4u ns/packet (test_run, hot cache, %d runs)\n", what,
	       topts.duration, REPEAT);
}

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
	print_duration(&dp, "ipv4 unlisted", "198.51.100.8");
	print_duration(&dp, "ipv4 listed (drop)", "198.51.100.7");
	print_duration(&dp, "ipv6 unlisted", "2001:db8:bad::8");
	print_duration(&dp, "ipv6 listed (drop)", "2001:db8:bad::7");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
