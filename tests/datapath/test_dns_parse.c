// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What the DNS parse accepts and what it passes: TCP/53 and other ports
 * untouched, responses and other opcodes (not_query), QDCOUNT other than
 * 1, compression pointers, labels over 63, names over 255 wire bytes,
 * a UDP length past the packet, and the query cut at every
 * byte of its DNS message and of its frame (passed, never answered or
 * dropped). Names at the limits: 63-byte labels, 253-byte names, 127
 * labels, judged right whether listed or not.
 */
#include <stdio.h>
#include <string.h>

#include "dns_fixture.h"
#include "test_helpers.h"

static const char *const exact[] = { "ads.example.com", NULL };
static const char *const subtree[] = { "example.net", NULL };

static bool open_filter(struct bw_dp *dp, struct bw_filter_map *m,
			const char *const *ex, const char *const *sub)
{
	struct dns_filter f = { .exact = ex,
				.subtree = sub,
				.action = BW_DNS_NXDOMAIN };

	return bw_dp_open(dp) && ASSERT_OK(dns_commit(dp, &f, m), "commit");
}

static struct dns_want not_query(const struct dns_q *q)
{
	struct dns_want w = dns_want_pass(q);

	w.dns.not_query = 1;
	return w;
}

BW_TEST(test_dns_not_queries)
{
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7", .name = "ads.example.com" };
	struct dns_want w;
	int fam;

	if (!open_filter(&dp, &m, exact, subtree))
		goto out;
	for (fam = 0; fam < 2; fam++) {
		q = (struct dns_q){ .src = fam ? "2001:db8::7" : "198.51.100.7",
				    .name = "ads.example.com" };
		w = dns_want_pass(&q);
		q.tcp = true;
		dns_expect_q(&dp, "TCP to port 53: passed untouched", &q, &w);
		q.tcp = false;
		q.dport = 5353;
		dns_expect_q(&dp, "UDP to port 5353: not DNS", &q, &w);
		q.dport = 0;
		q.flags_set = true;
		q.flags = 0x8180;
		w = not_query(&q);
		dns_expect_q(&dp, "a response (QR 1): not_query", &q, &w);
		q.flags = 0x2800; /* OPCODE 5, UPDATE */
		dns_expect_q(&dp, "UPDATE: not_query", &q, &w);
		q.flags = 0x0900; /* OPCODE 1, RD */
		dns_expect_q(&dp, "IQUERY: not_query", &q, &w);
		q.flags_set = false;
		q.name = "example.net.";
		q.name = "x.example.net";
		dns_expect_blocked(&dp, "the same filter blocks a query", &q,
				   BW_DNS_NXDOMAIN, 0);
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

BW_TEST(test_dns_malformed)
{
	static const __u8 pointer[] = { 0xc0, 0x0c };
	static const __u8 pointer_after[] = { 3, 'a', 'd', 's', 0xc0, 0x0c };
	static const __u8 reserved[] = { 0x40, 'a', 0 };
	static const __u8 no_root[] = { 3, 'a', 'd', 's' };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	__u8 long_label[80];
	struct dns_q q;
	struct dns_want w;
	int fam;

	memset(long_label, 'a', sizeof(long_label));
	long_label[0] = 64;
	long_label[65] = 0;
	if (!open_filter(&dp, &m, exact, subtree))
		goto out;
	for (fam = 0; fam < 2; fam++) {
		q = (struct dns_q){ .src = fam ? "2001:db8::7" : "198.51.100.7",
				    .name = "ads.example.com" };
		w = dns_want_malformed(&q);
		q.qdcount_set = true;
		q.qdcount = 2;
		dns_expect_q(&dp, "QDCOUNT 2", &q, &w);
		q.qdcount = 0;
		dns_expect_q(&dp, "QDCOUNT 0", &q, &w);
		q.qdcount = 256;
		dns_expect_q(&dp, "QDCOUNT 256", &q, &w);
		q.qdcount_set = false;
		q.wire = pointer;
		q.wire_len = sizeof(pointer);
		dns_expect_q(&dp, "compression pointer", &q, &w);
		q.wire = pointer_after;
		q.wire_len = sizeof(pointer_after);
		dns_expect_q(&dp, "pointer after a label", &q, &w);
		q.wire = reserved;
		q.wire_len = sizeof(reserved);
		dns_expect_q(&dp, "label type 01", &q, &w);
		q.wire = long_label;
		q.wire_len = 66;
		dns_expect_q(&dp, "64-byte label", &q, &w);
		q.wire = no_root;
		q.wire_len = sizeof(no_root);
		dns_expect_q(&dp, "no root label, no type", &q, &w);
		q.wire = NULL;
		q.udp_len_delta = 1;
		dns_expect_q(&dp, "UDP length past the packet", &q, &w);
	}
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/*
 * The DNS message cut at every byte before the question ends (UDP and IP
 * lengths agree with the cut), then the frame cut at every byte while its
 * IP length still says the whole packet.
 */
BW_TEST(test_dns_truncated)
{
	static __u8 pkt[DNS_PKT_MAX], out[DNS_PKT_MAX];
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q;
	struct dns_want w;
	size_t full, cut, mlen;
	__u32 olen;
	char what[120];
	int fam;

	if (!open_filter(&dp, &m, exact, subtree))
		goto out;
	for (fam = 0; fam < 2; fam++) {
		q = (struct dns_q){ .src = fam ? "2001:db8::7" : "198.51.100.7",
				    .name = "ads.example.com" };
		full = dns_query(&q, pkt);
		mlen = full - dns_msg_off(&q);
		for (cut = 0; cut < mlen; cut++) {
			q.cut = (int)cut + 1;
			w = dns_want_malformed(&q);
			snprintf(what, sizeof(what), "%s message cut to %zu",
				 fam ? "ipv6" : "ipv4", cut);
			dns_expect_q(&dp, what, &q, &w);
		}
		q.cut = 0;
		dns_expect_blocked(&dp, "the whole message", &q,
				   BW_DNS_NXDOMAIN, 0);
		full = dns_query(&q, pkt);
		w = (struct dns_want){ .xdp = XDP_PASS,
				       .stats = BW_OUT_MALFORMED };
		for (cut = 14; cut < full; cut++) {
			snprintf(what, sizeof(what), "%s frame cut to %zu",
				 fam ? "ipv6" : "ipv4", cut);
			dns_expect(&dp, what, pkt, cut, &w, out, &olen);
		}
	}
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}

/* A dotted name of nlabels labels of len bytes each (one byte: a..z). */
static void make_name(char *out, int nlabels, int len, char c)
{
	int i, j, o = 0;

	for (i = 0; i < nlabels; i++) {
		if (i)
			out[o++] = '.';
		for (j = 0; j < len; j++)
			out[o++] = (char)(c + (i + j) % 26);
	}
	out[o] = '\0';
}

BW_TEST(test_dns_long_names)
{
	/* 4 labels of 63 and one of 61: 253 bytes; 127 one-byte labels. */
	static char n253[300], n253_parent[300], n127[300], n127_sub[300];
	static char n254[300], under[300];
	const char *ex[] = { n253, n127, NULL };
	const char *sub[] = { n127_sub, n253_parent, NULL };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dp dp = {};
	struct dns_q q = { .src = "198.51.100.7" };
	struct dns_want w;

	make_name(n253 + 62, 3, 63, 'a');
	memset(n253, 'q', 61);
	n253[61] = '.';
	strcpy(n253_parent, n253 + 62);
	make_name(n127, 127, 1, 'a');
	strcpy(n127_sub, n127 + 2 * 100); /* the last 27 labels */
	strcpy(under, "x.");
	strcat(under, n253_parent);
	make_name(n254, 4, 63, 'k');
	strcat(n254, ".zz"); /* 255 + 3 dotted bytes: too long */
	if (!ASSERT_EQ(strlen(n253), 253, "a 253-byte name") ||
	    !ASSERT_EQ(strlen(n127), 253, "127 labels") ||
	    !open_filter(&dp, &m, ex, sub))
		goto out;
	q.name = n253;
	dns_expect_blocked(&dp, "253-byte name, exact entry", &q,
			   BW_DNS_NXDOMAIN, 0);
	q.src = "2001:db8::7";
	dns_expect_blocked(&dp, "ipv6: 253-byte name", &q, BW_DNS_NXDOMAIN, 0);
	q.name = under;
	dns_expect_blocked(&dp, "under three 63-byte labels", &q,
			   BW_DNS_NXDOMAIN, 0);
	q.name = n127;
	dns_expect_blocked(&dp, "127 labels, exact entry", &q, BW_DNS_NXDOMAIN,
			   0);
	q.src = "198.51.100.7";
	q.name = n127 + 2;
	dns_expect_blocked(&dp, "126 labels, under a subtree entry", &q,
			   BW_DNS_NXDOMAIN, 0);
	q.name = n127 + 2 * 101;
	w = dns_want_query(&q);
	dns_expect_q(&dp, "26 labels, the subtree entry's parent", &q, &w);
	q.name = n254;
	w = dns_want_malformed(&q);
	dns_expect_q(&dp, "a name of 256 wire bytes", &q, &w);
	dns_scapy_check();
out:
	bw_filter_close(&m);
	bw_dp_close(&dp);
}
