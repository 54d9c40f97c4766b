// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What the filter header asks of the program: no filter, an invalid one,
 * monitor mode, match source / destination / both, and a swap between two
 * filters while the program stays loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include "ops/reload.h"
#include "datapath.h"
#include "test_helpers.h"

#define A4 "203.0.113.10"
#define B4 "203.0.113.20"
#define A6 "2001:db8:a::10"
#define B6 "2001:db8:a::20"
#define C4 "203.0.113.30" /* never listed */
#define C6 "2001:db8:a::30"

static const char *const list_a[] = { A4, A6, NULL };
static const char *const list_b[] = { B4, B6, NULL };

/* Sends src -> dst and asserts the outcome. */
static void expect_flow(struct bw_dp *dp, const char *tag, const char *src,
			const char *dst, enum bw_outcome want)
{
	struct bw_pkt_spec s = { .src = src, .dst = dst, .payload = 16 };
	__u8 buf[BW_PKT_MAX];
	char desc[128];

	snprintf(desc, sizeof(desc), "%s: %s -> %s", tag, src, dst);
	bw_dp_expect(dp, desc, buf, bw_pkt_build(&s, buf), want);
}

/* Not IP and malformed are decided before the filter is looked at. */
static void expect_unfiltered(struct bw_dp *dp, const char *tag)
{
	struct bw_pkt_spec arp = { .ethertype = ETH_P_ARP };
	struct bw_pkt_spec bad = { .src = A4, .ihl = 4 };
	__u8 buf[BW_PKT_MAX];

	expect_flow(dp, tag, A4, C4, BW_OUT_NO_FILTER);
	expect_flow(dp, tag, A6, C6, BW_OUT_NO_FILTER);
	bw_dp_expect(dp, "arp without filter", buf, bw_pkt_build(&arp, buf),
		     BW_OUT_NOT_IP);
	bw_dp_expect(dp, "ihl 4 without filter", buf, bw_pkt_build(&bad, buf),
		     BW_OUT_MALFORMED);
}

BW_TEST(test_modes_no_filter)
{
	struct bw_dp dp = {};

	if (!bw_dp_open(&dp))
		goto out;
	expect_unfiltered(&dp, "empty slot");
out:
	bw_dp_close(&dp);
}

/* The fixture with list_a committed under flags: the start of most tests. */
static bool open_with_list_a(struct bw_dp *dp, __u16 flags,
			     struct bw_filter_map *m)
{
	return bw_dp_open(dp) &&
	       ASSERT_OK(bw_dp_commit_addrs(dp, list_a, flags, m), "commit a");
}

/*
 * A header that is not (or not wholly) valid: no program is loaded for it,
 * and one overwritten after the load is no longer read.
 */
BW_TEST(test_modes_invalid_header)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct bw_hdr *hdr;
	__u32 prog;

	if (!open_with_list_a(&dp, BW_F_MATCH_SRC, &m))
		goto out;
	expect_flow(&dp, "valid", A4, C4, BW_OUT_DROP_V4);
	prog = bw_obj_id(dp.prog_fd);
	hdr = m.mem;
	/* The running program keeps the header it was loaded with. */
	hdr->magic = 0;
	hdr->probes[0] = 0;
	expect_flow(&dp, "header overwritten after load", A4, C4,
		    BW_OUT_DROP_V4);
	ASSERT_ERR(bw_dp_commit(&dp, &m), "load for zero magic");
	hdr->magic = BW_MAGIC;
	hdr->version = BW_VERSION + 1;
	ASSERT_ERR(bw_dp_commit(&dp, &m), "load for a future version");
	ASSERT_EQ(bw_obj_id(dp.prog_fd), prog, "program as it was");
	expect_flow(&dp, "after the refused loads", A4, C4, BW_OUT_DROP_V4);
	hdr->version = BW_VERSION;
	/*
	 * 0 probes would match every key, and the program does not test
	 * for them: the load is refused. (A region past the map finds no
	 * block: test_vectors_bpf's maps end there.)
	 */
	ASSERT_ERR(bw_dp_commit(&dp, &m), "load for 0 probes in region 0");
	hdr->probes[0] =
		BW_ROUND_PROBES * (BW_MAX_PROBES / BW_ROUND_PROBES + 1);
	ASSERT_ERR(bw_dp_commit(&dp, &m), "load for too many probes");
	hdr->probes[0] = BW_ROUND_PROBES;
	ASSERT_EQ(bw_obj_id(dp.prog_fd), prog, "program as it was");
	expect_flow(&dp, "after the refused loads", A4, C4, BW_OUT_DROP_V4);
	expect_flow(&dp, "after the refused loads", A6, C6, BW_OUT_DROP_V6);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_modes_monitor)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};

	if (!open_with_list_a(&dp, BW_F_MATCH_SRC | BW_F_MONITOR, &m))
		goto out;
	expect_flow(&dp, "monitor", A4, C4, BW_OUT_MONITOR);
	expect_flow(&dp, "monitor", A6, C6, BW_OUT_MONITOR);
	expect_flow(&dp, "monitor", C4, A4, BW_OUT_PASS);
	expect_flow(&dp, "monitor", C6, C6, BW_OUT_PASS);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* Source, destination, both, and flags with neither bit (= source). */
BW_TEST(test_modes_match)
{
	static const struct {
		const char *tag;
		__u16 flags;
		bool src, dst;
	} modes[] = {
		{ "match src", BW_F_MATCH_SRC, true, false },
		{ "match dst", BW_F_MATCH_DST, false, true },
		{ "match both", BW_F_MATCH_SRC | BW_F_MATCH_DST, true, true },
		{ "match bits unset", 0, true, false },
	};
	struct bw_dp dp = {};
	size_t i;

	if (!bw_dp_open(&dp))
		goto out;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct bw_filter_map m = BW_FILTER_MAP_INIT;
		const char *t = modes[i].tag;

		if (!ASSERT_OK(
			    bw_dp_commit_addrs(&dp, list_a, modes[i].flags, &m),
			    "commit"))
			continue;
		expect_flow(&dp, t, A4, C4,
			    modes[i].src ? BW_OUT_DROP_V4 : BW_OUT_PASS);
		expect_flow(&dp, t, C4, A4,
			    modes[i].dst ? BW_OUT_DROP_V4 : BW_OUT_PASS);
		expect_flow(&dp, t, A6, C6,
			    modes[i].src ? BW_OUT_DROP_V6 : BW_OUT_PASS);
		expect_flow(&dp, t, C6, A6,
			    modes[i].dst ? BW_OUT_DROP_V6 : BW_OUT_PASS);
		expect_flow(&dp, t, A4, A4, BW_OUT_DROP_V4);
		expect_flow(&dp, t, C4, C4, BW_OUT_PASS);
		expect_flow(&dp, t, C6, C6, BW_OUT_PASS);
		bw_filter_close(&m);
	}
out:
	bw_dp_close(&dp);
}

/*
 * Two filters, each with its program: the old filter's verdicts until the
 * commit, the new one's right after it, and the first again when it is
 * committed once more.
 */
BW_TEST(test_modes_swap)
{
	struct bw_filter_map a = BW_FILTER_MAP_INIT, b = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};

	if (!open_with_list_a(&dp, BW_F_MATCH_SRC, &a))
		goto out;
	expect_flow(&dp, "filter a", A4, C4, BW_OUT_DROP_V4);
	expect_flow(&dp, "filter a", A6, C6, BW_OUT_DROP_V6);
	expect_flow(&dp, "filter a", B4, C4, BW_OUT_PASS);
	expect_flow(&dp, "filter a", B6, C6, BW_OUT_PASS);
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, list_b, BW_F_MATCH_SRC, &b),
		       "commit b"))
		goto out;
	/* The old map is still open and mapped here: the program decides. */
	expect_flow(&dp, "filter b", A4, C4, BW_OUT_PASS);
	expect_flow(&dp, "filter b", A6, C6, BW_OUT_PASS);
	expect_flow(&dp, "filter b", B4, C4, BW_OUT_DROP_V4);
	expect_flow(&dp, "filter b", B6, C6, BW_OUT_DROP_V6);
	if (ASSERT_OK(bw_dp_commit(&dp, &a), "commit a again"))
		expect_flow(&dp, "filter a again", A4, C4, BW_OUT_DROP_V4);
out:
	bw_filter_close(&a);
	bw_filter_close(&b);
	bw_dp_close(&dp);
}

/*
 * A map the commit refuses (here: a block map of 32-byte values, which is
 * no filter) fails it with the old program and its filter as they were.
 */
BW_TEST(test_modes_failed_commit)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	struct bw_filter_map a = BW_FILTER_MAP_INIT, bad = BW_FILTER_MAP_INIT;
	struct bw_filter_map cur = BW_FILTER_MAP_INIT;
	__u32 prog;
	struct bw_dp dp = {};

	if (!open_with_list_a(&dp, BW_F_MATCH_SRC, &a))
		goto out;
	prog = bw_obj_id(dp.prog_fd);
	bad.fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bw_bad", sizeof(__u32), 32,
				4, &opts);
	if (!ASSERT_GE(bad.fd, 0, "create a map of 32-byte values"))
		goto out;
	bad.id = bw_obj_id(bad.fd);
	ASSERT_ERR(bw_dp_commit(&dp, &bad), "commit of a bad map");
	ASSERT_EQ(bw_obj_id(dp.prog_fd), prog, "program as it was");
	if (ASSERT_OK(bw_prog_filter(dp.prog_fd, false, &cur), "its filter"))
		ASSERT_EQ(cur.id, a.id, "filter a still runs");
	expect_flow(&dp, "after the failed commit", A4, C4, BW_OUT_DROP_V4);
	expect_flow(&dp, "after the failed commit", B4, C4, BW_OUT_PASS);
out:
	bw_filter_close(&a);
	bw_filter_close(&cur);
	bw_filter_close(&bad);
	bw_dp_close(&dp);
}
