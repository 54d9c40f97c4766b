// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * query --why's list side (user/filter/why.c): which entries cover an address or
 * a name, in every list form (address, prefix, range, Spamhaus, ipsum,
 * hosts, wildcard, adblock), across lists, by file and line; a list
 * changed since it was recorded is answered from as it is now and said,
 * a missing one said; long lines and a last line without its newline.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/provenance.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/why.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

static char dir[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

/* The test files go when the unit tests end. */
__attribute__((destructor)) static void why_cleanup(void)
{
	if (dir[0])
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static const char *why_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (!dir[0]) {
		strcpy(dir, "/tmp/bwtest-why-XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path; /* leaked: a few bytes a test */
}

static struct bw_why_target target(const char *s)
{
	struct bw_why_target t;
	char err[BW_ERRLEN];

	if (bw_why_target(s, &t, err, sizeof(err)))
		fprintf(stderr, "  target %s: %s\n", s, err);
	return t;
}

/* The hits for target i, as "LIST:LINE:ENTRY[:s SUFFIX][:allow]" joined. */
static const char *hits_of(const struct bw_why *w, int i)
{
	static char out[1024];
	const struct bw_why_hit *h;
	size_t k, n = 0;

	out[0] = '\0';
	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		if (h->target != i)
			continue;
		n += snprintf(
			out + n, sizeof(out) - n, "%s%d:%llu:%s%s%s%s",
			n ? " " : "", h->list, (unsigned long long)h->line,
			h->entry, h->subtree ? ":s " : "",
			h->subtree ? h->suffix : "", h->allow ? ":allow" : "");
	}
	return out;
}

BW_TEST(test_why_covers)
{
	struct bw_why_target a = target("10.1.2.3"), b = target("2001:db8::1");
	struct bw_prefix e = { .family = BW_V4, .lo = 0x0a010200, .plen = 24 };

	ASSERT_FALSE(a.is_name, "an address");
	ASSERT_TRUE(bw_why_covers(&e, &a.addr), "/24");
	e.lo = 0x0a010300;
	ASSERT_FALSE(bw_why_covers(&e, &a.addr), "the next /24");
	e = (struct bw_prefix){ .family = BW_V4, .plen = 0 };
	ASSERT_TRUE(bw_why_covers(&e, &a.addr), "/0");
	ASSERT_FALSE(bw_why_covers(&e, &b.addr), "not the other family");
	e = a.addr;
	ASSERT_TRUE(bw_why_covers(&e, &a.addr), "/32 itself");
	e.lo++;
	ASSERT_FALSE(bw_why_covers(&e, &a.addr), "/32 next");
	e = (struct bw_prefix){ .family = BW_V6,
				.hi = 0x20010db800000000ULL,
				.plen = 32 };
	ASSERT_TRUE(bw_why_covers(&e, &b.addr), "IPv6 /32");
	e.plen = 127;
	ASSERT_TRUE(bw_why_covers(&e, &b.addr), "IPv6 /127 holds ::1");
	e.plen = 128;
	ASSERT_FALSE(bw_why_covers(&e, &b.addr), "IPv6 /128 of ::0");
}

BW_TEST(test_why_name_covers)
{
	ASSERT_TRUE(
		bw_why_name_covers("example.com", 11, false, "example.com", 11),
		"exact");
	ASSERT_FALSE(bw_why_name_covers("example.com", 11, false,
					"ads.example.com", 15),
		     "an exact entry is not its subtree");
	ASSERT_TRUE(bw_why_name_covers("example.com", 11, true,
				       "ads.example.com", 15),
		    "subtree");
	ASSERT_TRUE(
		bw_why_name_covers("example.com", 11, true, "example.com", 11),
		"a subtree holds its own name");
	ASSERT_FALSE(bw_why_name_covers("example.com", 11, true,
					"badexample.com", 14),
		     "only at a label boundary");
	ASSERT_FALSE(bw_why_name_covers("ads.example.com", 15, true,
					"example.com", 11),
		     "not upwards");
}

BW_TEST(test_why_target_parse)
{
	struct bw_why_target t;
	char err[BW_ERRLEN];

	ASSERT_OK(bw_why_target("Ads.Example.COM.", &t, err, sizeof(err)),
		  "a name");
	ASSERT_TRUE(t.is_name, "taken as a name");
	ASSERT_STREQ(t.name, "ads.example.com", "folded, no dot");
	ASSERT_ERR(bw_why_target("10.0.0.0/8", &t, err, sizeof(err)),
		   "a prefix");
	ASSERT_STRSTR(err, "give an address", "says what to give");
}

/* Every list form, two lists; address and name targets in one pass. */
BW_TEST(test_why_scan_forms)
{
	const char *a = why_file("a.txt", "# forms\n"
					  "192.0.2.1\n"
					  "198.51.100.0/24\n"
					  "203.0.113.10-203.0.113.20\n"
					  "100.64.0.0/16 ; SBL12345\n"
					  "100.65.0.7\t5\n"
					  "2001:db8:1::/48\n");
	const char *b = why_file("b.txt", "0.0.0.0 ads.example.com other.net\n"
					  "*.wild.example.org\n"
					  "||abp.example.com^\n"
					  "@@||good.abp.example.com^\n"
					  "198.51.100.0/25\n"
					  "example.com\n");
	const char *paths[] = { a, b };
	const char *ask[] = { "192.0.2.1",
			      "198.51.100.9",
			      "203.0.113.15",
			      "100.64.3.4",
			      "100.65.0.7",
			      "2001:db8:1::5",
			      "192.0.2.2",
			      "ads.example.com",
			      "x.ads.example.com",
			      "deep.x.wild.example.org",
			      "good.abp.example.com",
			      "badexample.com",
			      "example.com" };
	struct bw_why_target t[13];
	struct bw_why w;
	int i;

	for (i = 0; i < 13; i++)
		t[i] = target(ask[i]);
	ASSERT_OK(bw_why_scan(&w, t, 13, paths, NULL, 2), "scan");
	ASSERT_STREQ(hits_of(&w, 0), "0:2:192.0.2.1", "address");
	ASSERT_STREQ(hits_of(&w, 1), "0:3:198.51.100.0/24 1:5:198.51.100.0/25",
		     "prefix, in both lists");
	ASSERT_STREQ(hits_of(&w, 2), "0:4:203.0.113.12/30",
		     "range, by the prefix of it that covers");
	ASSERT_STREQ(hits_of(&w, 3), "0:5:100.64.0.0/16", "Spamhaus line");
	ASSERT_STREQ(hits_of(&w, 4), "0:6:100.65.0.7", "ipsum line");
	ASSERT_STREQ(hits_of(&w, 5), "0:7:2001:db8:1::/48", "IPv6 prefix");
	ASSERT_STREQ(hits_of(&w, 6), "", "not listed");
	ASSERT_STREQ(hits_of(&w, 7), "1:1:ads.example.com", "hosts name");
	ASSERT_STREQ(hits_of(&w, 8), "", "a hosts name is not its subtree");
	ASSERT_STREQ(hits_of(&w, 9), "1:2:wild.example.org:s wild.example.org",
		     "wildcard, and the suffix that matched");
	ASSERT_STREQ(
		hits_of(&w, 10),
		"1:3:abp.example.com:s abp.example.com 1:4:good.abp.example.com:s good.abp.example.com:allow",
		"adblock block and allow entries");
	ASSERT_STREQ(hits_of(&w, 11), "", "not at a label boundary");
	ASSERT_STREQ(hits_of(&w, 12), "1:6:example.com", "plain name");
	ASSERT_STREQ(w.hits[0].text, "192.0.2.1", "the line's text");
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(w.lists[i].state, BW_PROV_UNKNOWN,
			  "nothing recorded");
		ASSERT_EQ(w.lists[i].lines, i ? 6 : 7, "lines read");
	}
	bw_why_free(&w);
}

/* Recorded sources: unchanged, changed (answered from now), missing. */
BW_TEST(test_why_scan_states)
{
	struct bw_list_opts lo = {};
	struct bw_rec_src src[3] = { { .known = true },
				     { .known = true },
				     { .known = true } };
	const char *paths[3];
	struct bw_why_target t = target("192.0.2.1");
	struct bw_list l;
	struct bw_why w;
	int i;

	paths[0] = why_file("s0.txt", "192.0.2.1\n");
	paths[1] = why_file("s1.txt", "10.0.0.1\n");
	paths[2] = why_file("s2.txt", "192.0.2.0/24\n");
	bw_list_init(&l);
	for (i = 0; i < 3; i++)
		ASSERT_OK(bw_prov_load(&l, paths[i], &lo, &src[i].s), "load");
	bw_list_free(&l);
	why_file("s1.txt", "# edited\n10.0.0.1\n192.0.2.1\n");
	unlink(paths[2]);
	ASSERT_OK(bw_why_scan(&w, &t, 1, paths, src, 3), "scan");
	ASSERT_EQ(w.lists[0].state, BW_PROV_UNCHANGED, "as built");
	ASSERT_EQ(w.lists[1].state, BW_PROV_CHANGED, "edited");
	ASSERT_EQ(w.lists[2].state, BW_PROV_MISSING, "deleted");
	ASSERT_STREQ(hits_of(&w, 0), "0:1:192.0.2.1 1:3:192.0.2.1",
		     "the edited list's line as it is now");
	bw_why_free(&w);
}

/* A line past BW_LINE_MAX is skipped and counted; no newline at the end. */
BW_TEST(test_why_scan_long_lines)
{
	size_t n = 3 * BW_LINE_MAX;
	char *text = malloc(n + 64), *p = text;
	const char *paths[1];
	struct bw_why_target t = target("192.0.2.1");
	struct bw_why w;

	p += sprintf(p, "10.0.0.1\n");
	memset(p, 'x', n);
	p += n;
	sprintf(p, "\n192.0.2.0/24\n10.0.0.2\n192.0.2.1");
	paths[0] = why_file("long.txt", text);
	free(text);
	ASSERT_OK(bw_why_scan(&w, &t, 1, paths, NULL, 1), "scan");
	ASSERT_STREQ(hits_of(&w, 0), "0:3:192.0.2.0/24 0:5:192.0.2.1",
		     "line numbers past the long line; the last line");
	ASSERT_EQ(w.lists[0].lines, 5, "lines");
	bw_why_free(&w);
}

/* A real hosts file: the line a name is on, its subtree not covered. */
BW_TEST(test_why_real_hosts)
{
	const char *dir = bw_test_data_dir();
	struct bw_why_target t[2];
	char path[512], line[512], name[300], sub[320];
	const char *paths[1] = { path };
	unsigned long long no = 0, want = 0;
	struct bw_why w;
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/domains/stevenblack/hosts", dir);
	f = fopen(path, "r");
	ASSERT_OK_PTR(f, "hosts");
	if (!f)
		return;
	/* The 1000th "0.0.0.0 NAME" line. */
	while (fgets(line, sizeof(line), f)) {
		no++;
		if (sscanf(line, "0.0.0.0 %299s", name) == 1 &&
		    strcmp(name, "0.0.0.0") && ++want == 1000)
			break;
	}
	fclose(f);
	snprintf(sub, sizeof(sub), "x.%s", name);
	t[0] = target(name);
	t[1] = target(sub);
	ASSERT_OK(bw_why_scan(&w, t, 2, paths, NULL, 1), "scan");
	ASSERT_TRUE(w.nhits >= 1 && w.hits[0].target == 0 &&
			    w.hits[0].line == no &&
			    !strcmp(w.hits[0].entry, t[0].name),
		    "the name's line");
	ASSERT_STREQ(hits_of(&w, 1), "", "a hosts entry is exact");
	bw_why_free(&w);
}

/*
 * The allowlist files a filter records are scanned after its block lists:
 * every hit in one is an allow hit, each with the prefix it is, and an
 * edited or deleted allowlist file is said as a block list is.
 */
BW_TEST(test_why_scan_allow_files)
{
	struct bw_list_opts lo = { .domains = true };
	const char *blocks[1];
	const char *allow[2];
	struct bw_rec_source src[2];
	struct bw_why_target t[4] = { target("198.51.100.200"),
				      target("192.0.2.7"),
				      target("www.example.test"),
				      target("x.www.example.test") };
	struct bw_records rec;
	struct bw_list l;
	struct bw_why w;
	char buf[64];
	int i;

	bw_records_init(&rec);
	allow[0] = why_file("al.txt", "# allowed\n198.51.100.128/25\n"
				      "192.0.2.7\nwww.example.test\n");
	allow[1] = why_file("a2.txt", "198.51.100.200\n");
	bw_list_init(&l);
	for (i = 0; i < 2; i++)
		ASSERT_OK(bw_prov_load(&l, allow[i], &lo, &src[i]), "load");
	bw_list_free(&l);
	ASSERT_EQ(src[0].entries, 3, "entries of the allowlist file");
	ASSERT_EQ(src[0].lines, 4, "its lines");
	blocks[0] = why_file("bl.txt", "198.51.100.0/24\n||example.test^\n");
	ASSERT_OK(bw_records_set_lists(&rec, blocks, 1), "lists");
	ASSERT_OK(bw_records_set_allow(&rec, allow, src, 2), "allow files");
	ASSERT_OK(bw_why_scan_records(&w, t, 4, &rec), "scan");
	ASSERT_EQ(w.nlists, 3, "one block list, two allowlist files");
	ASSERT_TRUE(!w.lists[0].allow && w.lists[1].allow && w.lists[2].allow,
		    "the allowlist files follow the block lists");
	ASSERT_EQ(w.lists[1].state, BW_PROV_UNCHANGED, "as recorded");
	ASSERT_STREQ(
		hits_of(&w, 0),
		"0:1:198.51.100.0/24 1:2:198.51.100.128/25:allow 2:1:198.51.100.200:allow",
		"the block line, then every allow line");
	ASSERT_STREQ(hits_of(&w, 1), "1:3:192.0.2.7:allow", "a host");
	ASSERT_STREQ(
		hits_of(&w, 2),
		"0:2:example.test:s example.test 1:4:www.example.test:allow",
		"a name allowed by an allowlist file's line");
	ASSERT_STREQ(hits_of(&w, 3), "0:2:example.test:s example.test",
		     "an exact allow name is not its subtree");
	for (i = 0; i < (int)w.nhits; i++)
		if (w.hits[i].target == 0 && w.hits[i].list == 1)
			ASSERT_STREQ(bw_prefix_str(&w.hits[i].prefix, buf,
						   sizeof(buf)),
				     "198.51.100.128/25", "the hit's prefix");
	bw_why_free(&w);
	/* Edited, deleted: said; the edited one answered from as it is now. */
	why_file("al.txt", "192.0.2.7\n");
	unlink(allow[1]);
	ASSERT_OK(bw_why_scan_records(&w, t, 2, &rec), "scan again");
	ASSERT_EQ(w.lists[1].state, BW_PROV_CHANGED, "edited");
	ASSERT_EQ(w.lists[2].state, BW_PROV_MISSING, "deleted");
	ASSERT_STREQ(hits_of(&w, 1), "1:1:192.0.2.7:allow",
		     "the line as it is now");
	bw_why_free(&w);
	bw_records_free(&rec);
}
