// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Real captures through the program with a filter that lists everything
 * (0.0.0.0/0 and ::/0): every frame the parser reads as IP is dropped,
 * everything else passed. The expected counts are TShark's, from the
 * data dir's README.md (tests/data), so the parser is checked against an
 * independent dissector on real traffic (VLAN, MPLS, fragments, STP, ARP).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "test_helpers.h"

#define PCAP_MAGIC_US 0xa1b2c3d4
#define PCAP_MAGIC_NS 0xa1b23c4d
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_FRAME_MAX 4096

struct pcap_file_hdr {
	__u32 magic;
	__u16 major, minor;
	__s32 thiszone;
	__u32 sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	__u32 ts_sec, ts_frac, caplen, len;
};

struct capture {
	const char *file;
	__u64 dropped_v4, dropped_v6, not_ip; /* TShark's counts */
};

static const struct capture captures[] = {
	/* 47 IPv4 frames, 11 of them inside MPLS: not parsed, not IP. */
	{ "pcap/zeek_mixed-vlan-mpls.pcap", 36, 0, 11 },
	/* IPv4 22 and IPv6 44, fragments of both included. */
	{ "pcap/ndpi_dns_fragmented.pcap", 22, 44, 0 },
	/* IPv4 121, IPv6 5; ARP 6 and STP 4 (802.3 length field) not IP. */
	{ "pcap/zeek_wikipedia.pcap", 121, 5, 10 },
};

int bw_pcap_open(const char *path, FILE **fp)
{
	struct pcap_file_hdr h;

	*fp = fopen(path, "rb");
	if (!*fp)
		return -errno;
	if (fread(&h, sizeof(h), 1, *fp) != 1 ||
	    (h.magic != PCAP_MAGIC_US && h.magic != PCAP_MAGIC_NS) ||
	    h.linktype != PCAP_LINKTYPE_ETHERNET) {
		fclose(*fp);
		*fp = NULL;
		return -EINVAL;
	}
	return 0;
}

long bw_pcap_next(FILE *fp, __u8 *buf, size_t size)
{
	struct pcap_rec_hdr r;

	if (fread(&r, sizeof(r), 1, fp) != 1)
		return 0;
	if (r.caplen > size || fread(buf, r.caplen, 1, fp) != 1)
		return -EINVAL;
	return r.caplen;
}

static void replay(struct bw_dp *dp, const char *dir, const struct capture *c)
{
	struct bw_stats before, after;
	__u8 buf[PCAP_FRAME_MAX];
	long len, frames = 0;
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, c->file);
	if (!ASSERT_OK(bw_pcap_open(path, &fp), path))
		return;
	if (!ASSERT_OK(bw_dp_stats(dp, &before), "stats before"))
		goto out;
	while ((len = bw_pcap_next(fp, buf, sizeof(buf))) > 0) {
		__u32 retval;

		frames++;
		if (!ASSERT_OK(bw_dp_run(dp, buf, len, &retval), c->file))
			goto out;
	}
	ASSERT_EQ(len, 0, "capture read to its end");
	if (!ASSERT_OK(bw_dp_stats(dp, &after), "stats after"))
		goto out;
	printf("  %s: %ld frames\n", c->file, frames);
	ASSERT_EQ(bw_stats_packets(&after) - bw_stats_packets(&before), frames,
		  "packets");
	ASSERT_EQ(after.dropped_v4 - before.dropped_v4, c->dropped_v4,
		  "dropped_v4");
	ASSERT_EQ(after.dropped_v6 - before.dropped_v6, c->dropped_v6,
		  "dropped_v6");
	ASSERT_EQ(after.not_ip - before.not_ip, c->not_ip, "not_ip");
	ASSERT_EQ(after.malformed - before.malformed, 0, "malformed");
out:
	fclose(fp);
}

BW_TEST(test_pcap_replay)
{
	static const char *const everything[] = { "0.0.0.0/0", "::/0", NULL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	const char *dir = bw_test_data_dir();
	struct bw_dp dp = {};
	size_t i;

	if (!dir)
		goto out;
	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, everything, BW_F_MATCH_SRC, &m),
		       "commit /0 filter"))
		goto out;
	for (i = 0; i < sizeof(captures) / sizeof(captures[0]); i++)
		replay(&dp, dir, &captures[i]);
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
