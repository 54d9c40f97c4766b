// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Random frames against an independent parser. The filter holds 0.0.0.0/0
 * and ::/0, so every frame the program accepts as IPv4 or IPv6 is dropped
 * and everything else must pass with the right counter. The oracle below
 * is written from the rules (RFC 791, RFC 8200, 802.1Q/802.1ad), not from
 * bpf/parse.h: the two must agree on every frame.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>

#include "datapath.h"
#include "test_helpers.h"

#define RANDOM_FRAMES 20000
#define FRAME_MAX 160

static __u64 rng = 0x2545f4914f6cdd1dULL;

static __u64 rnd(void)
{
	return bw_test_splitmix64(&rng);
}

static unsigned int be16_at(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

/* The oracle: what the program must make of the frame. */
static enum bw_outcome oracle(const __u8 *f, size_t len)
{
	size_t off = ETH_HLEN, hlen, total;
	unsigned int type = be16_at(f + 12);
	int tags;

	for (tags = 0; tags < 2 && (type == 0x8100 || type == 0x88a8); tags++) {
		if (len < off + 4)
			return BW_OUT_MALFORMED;
		type = be16_at(f + off + 2);
		off += 4;
	}
	if (type == 0x0800) {
		if (len < off + 20 || f[off] >> 4 != 4 || (f[off] & 15) < 5)
			return BW_OUT_MALFORMED;
		hlen = (f[off] & 15) * 4;
		total = be16_at(f + off + 2);
		if (len < off + hlen || total < hlen || len < off + total)
			return BW_OUT_MALFORMED;
		return BW_OUT_DROP_V4;
	}
	if (type == 0x86dd) {
		if (len < off + 40 || f[off] >> 4 != 6)
			return BW_OUT_MALFORMED;
		if (len < off + 40 + be16_at(f + off + 4))
			return BW_OUT_MALFORMED;
		return BW_OUT_DROP_V6;
	}
	return BW_OUT_NOT_IP;
}

/* An IP length field: mostly one that fits what is left, else anything. */
static unsigned int length_field(size_t room, size_t floor)
{
	if (rnd() % 4 == 0 || room < floor)
		return rnd() % (room + 16);
	return floor + rnd() % (room - floor + 1);
}

/*
 * Random bytes, nudged towards the interesting cases: most frames get an
 * IP or VLAN ethertype, a plausible version nibble and a length field that
 * fits, so that every branch of the parser is taken many times.
 */
static size_t random_frame(__u8 *f)
{
	static const unsigned int types[] = { 0x0800, 0x86dd, 0x0800, 0x86dd,
					      0x8100, 0x88a8, 0x0806, 0x8847 };
	size_t len = ETH_HLEN + rnd() % (FRAME_MAX - ETH_HLEN + 1), i, off;
	unsigned int t = 0, v;

	for (i = 0; i < len; i++)
		f[i] = rnd();
	if (rnd() % 8 == 0)
		return len;
	for (i = 0, off = 12; i < 3 && off + 2 <= len; i++, off += 4) {
		t = types[rnd() % 8];
		f[off] = t >> 8;
		f[off + 1] = t & 0xff;
		if (t != 0x8100 && t != 0x88a8)
			break;
	}
	off += 2;
	if (off + 6 > len || rnd() % 8 == 0)
		return len;
	if (t == 0x0800) {
		f[off] = 0x40 | (5 + rnd() % 11);
		v = length_field(len - off, (f[off] & 15) * 4);
	} else {
		f[off] = 0x60 | (f[off] & 15);
		v = length_field(len - off > 40 ? len - off - 40 : 0, 0);
	}
	f[off + (t == 0x0800 ? 2 : 4)] = v >> 8;
	f[off + (t == 0x0800 ? 3 : 5)] = v & 0xff;
	return len;
}

BW_TEST(test_random_frames_match_oracle)
{
	static const char *const all[] = { "0.0.0.0/0", "::/0", NULL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	unsigned int seen[BW_OUT_DROP_V6 + 1] = { 0 };
	__u8 frame[FRAME_MAX];
	struct bw_dp dp = {};
	char name[64];
	size_t len;
	int i;

	if (!bw_dp_open(&dp))
		goto out;
	if (!ASSERT_OK(bw_dp_commit_addrs(&dp, all, BW_F_MATCH_SRC, &m),
		       "filter of /0 and ::/0"))
		goto out;
	for (i = 0; i < RANDOM_FRAMES; i++) {
		enum bw_outcome want;

		len = random_frame(frame);
		want = oracle(frame, len);
		seen[want]++;
		snprintf(name, sizeof(name), "random frame %d (%zu bytes)", i,
			 len);
		if (!bw_dp_expect(&dp, name, frame, len, want))
			break;
	}
	printf("  %d frames: %u IPv4, %u IPv6 dropped; %u malformed, %u not IP\n",
	       RANDOM_FRAMES, seen[BW_OUT_DROP_V4], seen[BW_OUT_DROP_V6],
	       seen[BW_OUT_MALFORMED], seen[BW_OUT_NOT_IP]);
	/* Every kind must have come up often, or the test proves little. */
	ASSERT_GE(seen[BW_OUT_DROP_V4], 1000, "IPv4 frames");
	ASSERT_GE(seen[BW_OUT_DROP_V6], 1000, "IPv6 frames");
	ASSERT_GE(seen[BW_OUT_MALFORMED], 1000, "malformed frames");
	ASSERT_GE(seen[BW_OUT_NOT_IP], 1000, "non-IP frames");
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
