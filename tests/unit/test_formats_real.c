// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The list formats on real files (hagezi's RPZ zone, dnsmasq and Unbound
 * lists in tests/data/domains: they load with no bad line and the
 * entries their lines hold, counted here by reading them independently),
 * a file large enough for the two-thread read, and query --why naming
 * the lines of each format (user/filter/why.c reads them as the load).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/why.h"
#include "lists/list.h"
#include "lists/list_load.h"
#include "test_formats.h"
#include "test_helpers.h"

/* Lines of path that start with pre and end with suf (no newline). */
static size_t count_lines(const char *path, const char *pre, const char *suf)
{
	char line[1024];
	size_t n = 0, len;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		len = strcspn(line, "\r\n");
		line[len] = '\0';
		n += !strncmp(line, pre, strlen(pre)) && len >= strlen(suf) &&
		     !strcmp(line + len - strlen(suf), suf);
	}
	fclose(f);
	return n;
}

struct real_case {
	const char *rel;
	const char *pre_exact, *pre_subtree, *suf; /* NULL: none of that */
	size_t exact, subtree;			   /* counted by hand */
	const char *note;
};

static const struct real_case real[] = {
	/*
	 * 216 entries, its header's "Number of entries": 108 "*.name CNAME ."
	 * lines and 108 "name CNAME ." (grep -c '^\*\.' and the others).
	 */
	{ "domains/hagezi-rpz/native.apple.txt", "", "*.", " CNAME .", 108, 108,
	  "read as an RPZ zone" },
	/* "Domains: 4456": 4456 address=/name/# lines. */
	{ "domains/hagezi-2022/3p_adaway.dnsmasq.txt", NULL, "address=/", "/#",
	  0, 4456, "read as dnsmasq lines" },
	/* The same 4456 as local-zone: "name." always_null lines. */
	{ "domains/hagezi-2022/3p_adaway.unbound.conf", NULL, "local-zone: \"",
	  "\" always_null", 0, 4456, "read as Unbound local-zone lines" },
};

BW_TEST(test_formats_real_files)
{
	const char *dir = bw_test_data_dir();
	struct bw_domain_counts dc;
	struct bw_list l;
	char path[512], *msgs;
	size_t i, sub, all;

	if (!dir)
		return;
	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, real[i].rel);
		sub = count_lines(path, real[i].pre_subtree, real[i].suf);
		all = count_lines(path, "", real[i].suf);
		ASSERT_EQ(sub, real[i].subtree, "subtree lines counted");
		if (real[i].pre_exact)
			ASSERT_EQ(all - sub, real[i].exact,
				  "exact lines counted");
		bw_list_init(&l);
		if (!ASSERT_OK(bw_fmt_test_load(path, false, &l, &msgs),
			       real[i].rel)) {
			fprintf(stderr, "%s", msgs);
			free(msgs);
			bw_list_free(&l);
			continue;
		}
		ASSERT_EQ(l.skipped, 0, "no bad line");
		ASSERT_EQ(l.lines, real[i].exact + real[i].subtree,
			  "a line an entry");
		ASSERT_STRSTR(msgs, real[i].note, "how it was read");
		bw_list_finish(&l);
		bw_domains_count(&l, &dc);
		ASSERT_EQ(dc.exact, real[i].exact, "exact entries");
		ASSERT_EQ(dc.subtree, real[i].subtree, "subtree entries");
		ASSERT_EQ(dc.allow, 0, "no allow entry");
		ASSERT_EQ(l.duplicates, 0, "no duplicate");
		free(msgs);
		bw_list_free(&l);
	}
}

/* Past 1 MiB a file is read by two threads: the half is plain lines only. */
BW_TEST(test_formats_two_threads)
{
	struct bw_list_opts opts = { .domains = true };
	struct bw_list one, two;
	struct bw_capture cap;
	const char *path;
	char *text, *p, *msgs;
	int i, t, ret;

	text = malloc(4 << 20);
	if (!ASSERT_OK_PTR(text, "malloc"))
		return;
	p = text + sprintf(text, "$TTL 60\n@ SOA a. b. 1 2 3 4 5\n");
	for (i = 0; i < 60000; i++)
		p += sprintf(
			p,
			"n%d.example.com CNAME .\n*.n%d.example.com CNAME .\n",
			i, i);
	path = bw_fmt_test_file("big", text);
	for (t = 1; t <= 2; t++) {
		opts.threads = (unsigned int)t;
		bw_list_init(t == 1 ? &one : &two);
		bw_capture_start(&cap);
		ret = bw_list_load(t == 1 ? &one : &two, path, &opts);
		msgs = bw_capture_end(&cap);
		ASSERT_OK(ret, t == 1 ? "one thread" : "two threads");
		ASSERT_STRSTR(msgs, "read as an RPZ zone", "an RPZ zone");
		free(msgs);
	}
	ASSERT_EQ(two.ndom, 120000, "every record");
	ASSERT_EQ(two.ndom, one.ndom, "the same entries");
	ASSERT_EQ(two.lines, one.lines, "the same lines");
	ASSERT_TRUE(
		two.names_len == one.names_len &&
			!memcmp(two.names, one.names, one.names_len) &&
			!memcmp(two.dom, one.dom, one.ndom * sizeof(*one.dom)),
		"byte for byte");
	bw_list_free(&one);
	bw_list_free(&two);

	/* A plain file with a dnsmasq line in its second half. */
	p = text;
	for (i = 0; i < 120000; i++)
		p += sprintf(p, "10.%d.%d.%d\n", i >> 16, (i >> 8) & 255,
			     i & 255);
	sprintf(p, "address=/x.example/#\n");
	path = bw_fmt_test_file("big", text);
	opts.threads = 2;
	bw_list_init(&two);
	bw_capture_start(&cap);
	ret = bw_list_load(&two, path, &opts);
	msgs = bw_capture_end(&cap);
	ASSERT_EQ(ret, -EINVAL, "fails");
	ASSERT_STRSTR(
		msgs,
		"big:120001: a dnsmasq line in a file read as plain lines (since line 1)",
		"at its line");
	free(msgs);
	bw_list_free(&two);
	free(text);
}

/* The hits as "LIST:LINE:ENTRY[:s][:allow]", joined. */
static const char *hits(const struct bw_why *w, int target)
{
	static char out[512];
	const struct bw_why_hit *h;
	size_t k, n = 0;

	out[0] = '\0';
	for (k = 0; k < w->nhits; k++) {
		h = &w->hits[k];
		if (h->target != target)
			continue;
		n += snprintf(out + n, sizeof(out) - n, "%s%d:%llu:%s%s%s",
			      n ? " " : "", h->list,
			      (unsigned long long)h->line, h->entry,
			      h->subtree ? ":s" : "", h->allow ? ":allow" : "");
	}
	return out;
}

/* query --why names the line of each format's entry. */
BW_TEST(test_formats_why)
{
	static const char *const targets[] = {
		"x.ads.example.com", "good.example.com", "b.example",
		"ok.a.example",	     "10.2.0.5",	 "192.0.2.1",
	};
	struct bw_why_target t[6];
	const char *paths[4];
	char err[BW_ERRLEN];
	struct bw_why w;
	int i;

	paths[0] = strdup(bw_fmt_test_file(
		"why.rpz", "$TTL 60\n$ORIGIN rpz.example.\n"
			   "ads.example.com CNAME .\n"
			   "*.ads.example.com.rpz.example. CNAME .\n"
			   "good.example.com CNAME rpz-passthru.\n"));
	paths[1] = strdup(bw_fmt_test_file(
		"why.dnsmasq", "# x\naddress=/a.example/b.example/#\n"));
	paths[2] = strdup(bw_fmt_test_file(
		"why.unbound", "server:\nlocal-zone: \"a.example.\" static\n"
			       "local-zone: \"ok.a.example.\" transparent\n"));
	paths[3] = strdup(bw_fmt_test_file(
		"why.nft",
		"table ip t {\n\tset s {\n\t\ttype ipv4_addr\n\t\tflags interval\n"
		"\t\telements = { 10.0.0.1,\n\t\t\t10.2.0.1-10.2.0.9 }\n\t}\n}\n"
		"add element ip t s { 192.0.2.1 }\n"));
	for (i = 0; i < 6; i++)
		ASSERT_OK(bw_why_target(targets[i], &t[i], err, sizeof(err)),
			  targets[i]);
	if (!ASSERT_OK(bw_why_scan(&w, t, 6, paths, NULL, 4), "scan"))
		return;
	ASSERT_STREQ(hits(&w, 0), "0:4:ads.example.com:s",
		     "the RPZ wildcard's line, its origin cut");
	ASSERT_STREQ(hits(&w, 1), "0:5:good.example.com:allow",
		     "rpz-passthru.: an allow entry");
	ASSERT_STREQ(hits(&w, 2), "1:2:b.example:s", "dnsmasq's second name");
	ASSERT_STREQ(hits(&w, 3),
		     "1:2:a.example:s 2:2:a.example:s 2:3:ok.a.example:s:allow",
		     "Unbound zones, the transparent one an allow entry");
	ASSERT_STREQ(hits(&w, 4), "3:6:10.2.0.4/30",
		     "an nftables range on its own line");
	ASSERT_STREQ(hits(&w, 5), "3:9:192.0.2.1", "add element");
	bw_why_free(&w);
	for (i = 0; i < 4; i++) {
		unlink(paths[i]);
		free((void *)paths[i]);
	}
}
