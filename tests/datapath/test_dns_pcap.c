// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Real captures' DNS queries through the program (issue 11): a filter
 * built from some of their names (half the distinct names as exact
 * entries, one subtree entry), action drop. An independent dissector
 * (scapy, dns_pcap_names.py) says which frames are standard queries and
 * for what name; exactly the frames whose name is listed must be dropped,
 * every other frame passed, and the program must have tested exactly the
 * queries scapy found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns_fixture.h"
#include "test_helpers.h"

#define NAMES_SCRIPT "tests/datapath/dns_pcap_names.py"
#define PCAP_FRAME_MAX 4096
#define PCAP_QUERIES_MAX 256

struct dns_capture {
	const char *file;
	const char *subtree; /* the one subtree entry */
	size_t queries;	     /* scapy's count, from tests/data's README */
};

static const struct dns_capture dns_captures[] = {
	{ "pcap/ndpi_dns_fragmented.pcap", "verteiltesysteme.net", 20 },
	{ "pcap/ndpi_teams.pcap", "teams.microsoft.com", 23 },
	{ "pcap/tcpreplay_test.pcap", "slashdot.org", 14 },
	/* Has upload.wikimedia.org.ncsa.uiuc.edu beside upload.wikimedia.org. */
	{ "pcap/zeek_wikipedia.pcap", "wikimedia.org", 14 },
};

struct pcap_query {
	long frame;
	char name[256];
};

struct pcap_queries {
	struct pcap_query q[PCAP_QUERIES_MAX];
	size_t n;
};

/* scapy's reading of the capture: frame number and name of each query. */
static bool scapy_queries(const char *path, struct pcap_queries *out)
{
	char cmd[1024], line[512];
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), PYTHON " " NAMES_SCRIPT " '%s'", path);
	p = popen(cmd, "r");
	if (!ASSERT_TRUE(p != NULL, "popen " NAMES_SCRIPT))
		return false;
	out->n = 0;
	while (fgets(line, sizeof(line), p) && out->n < PCAP_QUERIES_MAX) {
		struct pcap_query *q = &out->q[out->n];

		if (sscanf(line, "%ld %255s", &q->frame, q->name) == 2)
			out->n++;
	}
	rc = pclose(p);
	return ASSERT_EQ(rc, 0, NAMES_SCRIPT " read the capture");
}

/* Half the distinct names, by first appearance: the 1st, 3rd, 5th ... */
static size_t pick_names(const struct pcap_queries *qs, const char **picked)
{
	const char *seen[PCAP_QUERIES_MAX];
	size_t nseen = 0, npicked = 0, i, j;

	for (i = 0; i < qs->n; i++) {
		for (j = 0; j < nseen; j++)
			if (!strcmp(seen[j], qs->q[i].name))
				break;
		if (j < nseen)
			continue;
		if (nseen++ % 2 == 0)
			picked[npicked++] = qs->q[i].name;
		seen[j] = qs->q[i].name;
	}
	picked[npicked] = NULL;
	return npicked;
}

/* The list's verdict on a name, worked out from the entries as text. */
static bool listed(const char *const *exact, const char *subtree,
		   const char *name)
{
	size_t n = strlen(name), s = strlen(subtree);

	for (; *exact; exact++)
		if (!strcmp(*exact, name))
			return true;
	if (!strcmp(name, subtree))
		return true;
	return n > s && name[n - s - 1] == '.' &&
	       !strcmp(name + n - s, subtree);
}

static long query_name(const struct pcap_queries *qs, long frame)
{
	size_t i;

	for (i = 0; i < qs->n; i++)
		if (qs->q[i].frame == frame)
			return (long)i;
	return -1;
}

/* Replays the capture; counts the frames dropped as expected or not. */
static void replay_dns(struct bw_dp *dp, const char *dir,
		       const struct dns_capture *c)
{
	static struct pcap_queries qs;
	const char *picked[PCAP_QUERIES_MAX + 1],
		*subtree[] = { c->subtree, NULL };
	struct dns_filter f = { .exact = picked,
				.subtree = subtree,
				.action = BW_DNS_DROP };
	struct bw_filter_map m = BW_FILTER_MAP_INIT;
	struct bw_dns_stats before, after;
	size_t blocked = 0, npicked, wrong = 0;
	__u8 buf[PCAP_FRAME_MAX];
	char path[512];
	long len, frame = 0, qi;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, c->file);
	if (!scapy_queries(path, &qs))
		return;
	ASSERT_EQ(qs.n, c->queries, "standard queries scapy finds");
	npicked = pick_names(&qs, picked);
	if (!ASSERT_OK(dns_commit(dp, &f, &m), "commit the names"))
		return;
	fp = NULL;
	if (!ASSERT_OK(bw_pcap_open(path, &fp), path) ||
	    !ASSERT_OK(bw_dns_stats_read(dp->maps.dns_stats, &before),
		       "dns_stats before"))
		goto out;
	for (; (len = bw_pcap_next(fp, buf, sizeof(buf))) > 0; frame++) {
		__u32 want = XDP_PASS, retval;

		qi = query_name(&qs, frame);
		if (qi >= 0 && listed(picked, c->subtree, qs.q[qi].name)) {
			want = XDP_DROP;
			blocked++;
		}
		if (!ASSERT_OK(bw_dp_run(dp, buf, len, &retval), c->file))
			goto out;
		if (retval != want && wrong++ < 5)
			printf("  %s frame %ld (%s): action %u, expected %u\n",
			       c->file, frame, qi >= 0 ? qs.q[qi].name : "-",
			       retval, want);
	}
	ASSERT_EQ(len, 0, "capture read to its end");
	ASSERT_EQ(wrong, 0, "frames judged otherwise than the list says");
	if (ASSERT_OK(bw_dns_stats_read(dp->maps.dns_stats, &after),
		      "dns_stats after")) {
		ASSERT_EQ(after.queries - before.queries, qs.n,
			  "queries the program tested, as scapy counts them");
		ASSERT_EQ(after.blocked[BW_DNS_DROP] -
				  before.blocked[BW_DNS_DROP],
			  blocked, "queries dropped");
	}
	printf("  %s: %ld frames, %zu queries, %zu names listed + *.%s, %zu queries dropped\n",
	       c->file, frame, qs.n, npicked, c->subtree, blocked);
	ASSERT_TRUE(blocked > 0 && blocked < qs.n,
		    "the list blocks some queries and not others");
out:
	if (fp)
		fclose(fp);
	bw_filter_close(&m);
}

BW_TEST(test_dns_pcap_replay)
{
	const char *dir = bw_test_data_dir();
	struct bw_dp dp = {};
	size_t i;

	if (!dir)
		return;
	if (!dns_have_scapy()) {
		TEST_SKIP("no scapy for " PYTHON " (Debian: python3-scapy)");
		return;
	}
	if (!bw_dp_open(&dp))
		return;
	for (i = 0; i < sizeof(dns_captures) / sizeof(dns_captures[0]); i++)
		replay_dns(&dp, dir, &dns_captures[i]);
	bw_dp_close(&dp);
}
