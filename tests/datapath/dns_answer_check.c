// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * An answer the program wrote, checked against its query field by field
 * in C, and saved for the independent decoder (dns_check.py, scapy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "dns_fixture.h"
#include "test_helpers.h"

#define CHECKER "tests/datapath/dns_check.py"

static char saved_dir[64];
static int nsaved;

static __u16 get16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

static __u32 sum16(const __u8 *p, size_t len, __u32 sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static bool q_v6(const struct dns_q *q)
{
	return q->src && strchr(q->src, ':');
}

static bool has_answer(const struct dns_q *q, __u8 action)
{
	__u16 t = q->qtype ? q->qtype : 1, c = q->qclass ? q->qclass : 1;

	return action == BW_DNS_NULL && c == 1 && (t == 1 || t == 28);
}

static __u8 rcode_of(__u8 action)
{
	return action == BW_DNS_NXDOMAIN ? 3 : action == BW_DNS_REFUSED ? 5 : 0;
}

/* The link layer: MACs swapped, the tags and ethertype as they were. */
static void check_l2(const char *w, const __u8 *q, const __u8 *a, size_t l3)
{
	char d[200];

	snprintf(d, sizeof(d), "%s: destination MAC is the query's source", w);
	ASSERT_TRUE(!memcmp(a, q + 6, 6), d);
	snprintf(d, sizeof(d), "%s: source MAC is the query's destination", w);
	ASSERT_TRUE(!memcmp(a + 6, q, 6), d);
	snprintf(d, sizeof(d), "%s: VLAN tags and ethertype kept", w);
	ASSERT_TRUE(!memcmp(a + 12, q + 12, l3 - 12), d);
}

static void check_l3(const char *w, const struct dns_q *qs, const __u8 *q,
		     const __u8 *a, size_t alen)
{
	char d[200];

	if (q_v6(qs)) {
		snprintf(d, sizeof(d), "%s: IPv6 version, class, flow", w);
		ASSERT_TRUE(!memcmp(a, q, 4), d);
		snprintf(d, sizeof(d), "%s: IPv6 payload length", w);
		ASSERT_EQ(get16(a + 4), alen - 40, d);
		snprintf(d, sizeof(d), "%s: IPv6 next header UDP", w);
		ASSERT_EQ(a[6], 17, d);
		snprintf(d, sizeof(d), "%s: IPv6 hop limit", w);
		ASSERT_EQ(a[7], 64, d);
		snprintf(d, sizeof(d), "%s: IPv6 addresses swapped", w);
		ASSERT_TRUE(!memcmp(a + 8, q + 24, 16) &&
				    !memcmp(a + 24, q + 8, 16),
			    d);
		return;
	}
	snprintf(d, sizeof(d), "%s: IPv4 version, IHL 5 (no options), TOS", w);
	ASSERT_TRUE(a[0] == 0x45 && a[1] == q[1], d);
	snprintf(d, sizeof(d), "%s: IPv4 total length", w);
	ASSERT_EQ(get16(a + 2), alen, d);
	snprintf(d, sizeof(d), "%s: IPv4 id and fragment field kept", w);
	ASSERT_TRUE(!memcmp(a + 4, q + 4, 4), d);
	snprintf(d, sizeof(d), "%s: IPv4 TTL 64, protocol UDP", w);
	ASSERT_TRUE(a[8] == 64 && a[9] == 17, d);
	snprintf(d, sizeof(d), "%s: IPv4 header checksum", w);
	ASSERT_EQ(sum16(a, 20, 0), 0xffff, d);
	snprintf(d, sizeof(d), "%s: IPv4 addresses swapped", w);
	ASSERT_TRUE(!memcmp(a + 12, q + 16, 4) && !memcmp(a + 16, q + 12, 4),
		    d);
}

/* UDP: ports swapped, length, checksum over the pseudo header. */
static void check_udp(const char *w, const struct dns_q *qs, const __u8 *ip,
		      const __u8 *qudp, const __u8 *u, size_t ulen)
{
	__u32 sum = 17 + ulen;
	char d[200];

	snprintf(d, sizeof(d), "%s: UDP ports swapped", w);
	ASSERT_TRUE(get16(u) == get16(qudp + 2) && get16(u + 2) == get16(qudp),
		    d);
	snprintf(d, sizeof(d), "%s: UDP length", w);
	ASSERT_EQ(get16(u + 4), ulen, d);
	if (q_v6(qs))
		sum = sum16(ip + 8, 32, sum);
	else
		sum = sum16(ip + 12, 8, sum);
	snprintf(d, sizeof(d), "%s: UDP checksum", w);
	ASSERT_TRUE(get16(u + 6) != 0 && sum16(u, ulen, sum) == 0xffff, d);
}

/* The DNS header, the question as sent, the answer record. */
static void check_dns(const char *w, const struct dns_q *qs, const __u8 *q,
		      const __u8 *a, size_t qn, size_t dlen, __u8 action,
		      __u32 ttl)
{
	bool an = has_answer(qs, action);
	const __u8 *rr = a + 12 + qn;
	__u16 t = qs->qtype ? qs->qtype : 1;
	char d[200];
	size_t i;

	snprintf(d, sizeof(d), "%s: DNS message length", w);
	ASSERT_EQ(dlen, 12 + qn + (an ? (t == 1 ? 16 : 28) : 0), d);
	snprintf(d, sizeof(d), "%s: DNS id echoed", w);
	ASSERT_EQ(get16(a), get16(q), d);
	snprintf(d, sizeof(d), "%s: QR 1, OPCODE 0, AA 0, TC 0, RD echoed", w);
	ASSERT_EQ(a[2], 0x80 | (q[2] & 1), d);
	snprintf(d, sizeof(d), "%s: RA 1, Z 0, RCODE", w);
	ASSERT_EQ(a[3], 0x80 | rcode_of(action), d);
	snprintf(d, sizeof(d), "%s: QD 1, AN, NS 0, AR 0", w);
	ASSERT_TRUE(get16(a + 4) == 1 && get16(a + 6) == an &&
			    get16(a + 8) == 0 && get16(a + 10) == 0,
		    d);
	snprintf(d, sizeof(d), "%s: question echoed byte for byte", w);
	ASSERT_TRUE(!memcmp(a + 12, q + 12, qn), d);
	if (!an || dlen < 12 + qn + 12)
		return;
	snprintf(d, sizeof(d), "%s: answer name, type, class", w);
	ASSERT_TRUE(get16(rr) == 0xc00c && get16(rr + 2) == t &&
			    get16(rr + 4) == 1,
		    d);
	snprintf(d, sizeof(d), "%s: answer TTL", w);
	ASSERT_EQ((__u32)get16(rr + 6) << 16 | get16(rr + 8), ttl, d);
	snprintf(d, sizeof(d), "%s: answer RDLENGTH", w);
	ASSERT_EQ(get16(rr + 10), t == 1 ? 4 : 16, d);
	for (i = 0; i < (t == 1 ? 4U : 16U) && 12 + qn + 12 + i < dlen; i++)
		if (rr[12 + i])
			break;
	snprintf(d, sizeof(d), "%s: answer 0.0.0.0 / ::", w);
	ASSERT_EQ(i, t == 1 ? 4 : 16, d);
}

static void save(const char *w, const struct dns_q *q, const __u8 *ans,
		 size_t alen, __u8 action, __u32 ttl)
{
	char path[128];
	FILE *f;

	if (!saved_dir[0]) {
		snprintf(saved_dir, sizeof(saved_dir), "/tmp/bw-dns-XXXXXX");
		if (!mkdtemp(saved_dir)) {
			saved_dir[0] = '\0';
			return;
		}
	}
	snprintf(path, sizeof(path), "%s/%04d.bin", saved_dir, nsaved);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(ans, 1, alen, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/manifest", saved_dir);
	f = fopen(path, "a");
	if (!f)
		return;
	/* file action rcode qtype qclass ttl answer? name what */
	fprintf(f, "%04d.bin %u %u %u %u %u %d %s %s\n", nsaved, action,
		rcode_of(action), q->qtype ? q->qtype : 1,
		q->qclass ? q->qclass : 1, ttl, has_answer(q, action),
		q->name && *q->name ? q->name : ".", w);
	fclose(f);
	nsaved++;
}

bool dns_check_answer(const char *what, const struct dns_q *q,
		      const __u8 *query, size_t qlen, const __u8 *ans,
		      size_t alen, __u8 action, __u32 ttl)
{
	size_t moff = dns_msg_off(q), l4 = moff - 8;
	size_t l3 = l4 - dns_ip_hlen(q), qn = 0;
	/* The answer's UDP header follows the fixed IP header. */
	size_t al4 = l3 + (q_v6(q) ? 40 : 20), amoff = al4 + 8;
	int failed = bw_test_failed_asserts;
	char d[200];

	/* The question's length: the name to its root label, type, class. */
	while (moff + 12 + qn < qlen && query[moff + 12 + qn])
		qn += 1 + query[moff + 12 + qn];
	qn += 1 + 4;
	snprintf(d, sizeof(d), "%s: answer frame holds the headers", what);
	if (!ASSERT_TRUE(alen >= amoff + 12 + qn, d))
		return false;
	check_l2(what, query, ans, l3);
	check_l3(what, q, query + l3, ans + l3, alen - l3);
	check_udp(what, q, ans + l3, query + l4, ans + al4, alen - al4);
	check_dns(what, q, query + moff, ans + amoff, qn, alen - amoff, action,
		  ttl);
	save(what, q, ans, alen, action, ttl);
	return bw_test_failed_asserts == failed;
}

bool dns_have_scapy(void)
{
	return access(PYTHON, X_OK) == 0 &&
	       system(PYTHON " -c 'import scapy.all' >/dev/null 2>&1") == 0;
}

bool dns_scapy_check(void)
{
	char cmd[256];
	int rc;

	if (!nsaved)
		return ASSERT_TRUE(false, "answers saved for scapy");
	if (!dns_have_scapy()) {
		TEST_SKIP("no scapy for " PYTHON " (Debian: python3-scapy)");
		rc = 0;
	} else {
		snprintf(cmd, sizeof(cmd), PYTHON " " CHECKER " %s", saved_dir);
		rc = system(cmd);
		ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
			    "dns_check.py (scapy) accepts every answer");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", saved_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "  could not remove %s\n", saved_dir);
	saved_dir[0] = '\0';
	nsaved = 0;
	return rc == 0;
}
