// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * CrowdSec's decision stream parser (user/net/cs_stream.c, cs_fields.c):
 * the LAPI's answers split at every byte, every field form (Go durations,
 * RFC 3339 times, /32 values, null lists, unknown keys and fields), bad
 * fields refusing one decision, and hostile bodies failing the answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/cs_fields.h"
#include "net/cs_stream.h"
#include "test_helpers.h"

#define MAXD 8

struct got {
	int n, refused;
	struct bw_cs_decision d[MAXD];
};

static int on_decision(void *ctx, const struct bw_cs_decision *d)
{
	struct got *g = ctx;

	if (d->refused[0])
		g->refused++;
	if (g->n < MAXD)
		g->d[g->n] = *d;
	g->n++;
	return 0;
}

/* Parses body fed in pieces of step bytes (0: whole): the end's result. */
static int parse(const char *body, size_t step, struct got *g, char *why,
		 size_t cap)
{
	struct bw_cs_stream *s = bw_cs_stream_new(on_decision, g);
	size_t len = strlen(body), off, n;
	int err = 0;

	memset(g, 0, sizeof(*g));
	if (!s)
		return -ENOMEM;
	for (off = 0; off < len && !err; off += n) {
		n = step && step < len - off ? step : len - off;
		err = bw_cs_stream_feed(s, body + off, n);
	}
	if (!err)
		err = bw_cs_stream_end(s);
	if (why)
		snprintf(why, cap, "%s", bw_cs_stream_error(s));
	bw_cs_stream_free(s);
	return err;
}

static const char lapi_answer[] =
	"{\"deleted\":[{\"duration\":\"-2.5s\",\"id\":7,\"origin\":\"cscli\","
	"\"scenario\":\"manual 'ban' from 'x'\",\"scope\":\"Ip\",\"type\":"
	"\"ban\",\"value\":\"192.0.2.9\"}],\n \"new\" : [ {\"duration\":"
	"\"3h59m58.123456789s\",\"id\":8,\"origin\":\"crowdsec\",\"scenario\":"
	"\"crowdsecurity/ssh-bf\",\"scope\":\"Ip\",\"type\":\"ban\",\"value\":"
	"\"198.51.100.7/32\",\"simulated\":false,\"uuid\":\"ab-cd\",\"until\":"
	"\"2026-12-02T07:40:00.5Z\"} , {\"duration\":\"5s\",\"id\":9,"
	"\"origin\":\"lists\",\"scenario\":\"firehol\",\"scope\":\"Range\","
	"\"type\":\"ban\",\"value\":\"2001:db8::/32\",\"extra\":{\"a\":[1,{}]}}"
	"]}\n";

BW_TEST(test_cs_stream_lapi_answer_any_split)
{
	static const size_t steps[] = { 0, 1, 2, 3, 7, 64 };
	struct got g;
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (!ASSERT_OK(parse(lapi_answer, steps[i], &g, NULL, 0),
			       "answer parses"))
			return;
		ASSERT_EQ(g.n, 3, "three decisions");
		ASSERT_EQ(g.refused, 0, "none refused");
	}
	ASSERT_EQ(g.d[0].list, BW_CS_DELETED, "first from deleted");
	ASSERT_EQ(g.d[0].id, 7, "its id");
	ASSERT_EQ(g.d[0].duration_ms, -2500, "negative duration");
	ASSERT_EQ(g.d[1].list, BW_CS_NEW, "then new");
	ASSERT_EQ(g.d[1].id, 8, "id 8");
	ASSERT_STREQ(g.d[1].origin, "crowdsec", "origin");
	ASSERT_STREQ(g.d[1].scenario, "crowdsecurity/ssh-bf", "scenario");
	ASSERT_STREQ(g.d[1].scope, "Ip", "scope");
	ASSERT_STREQ(g.d[1].value, "198.51.100.7/32", "value as sent");
	ASSERT_EQ(g.d[1].duration_ms, (3 * 3600 + 59 * 60 + 58) * 1000LL + 123,
		  "Go duration in ms");
	ASSERT_TRUE(g.d[1].has_until, "until read");
	ASSERT_EQ(g.d[1].until, 1796197200LL, "until in Unix seconds");
	ASSERT_STREQ(g.d[2].scope, "Range", "range scope");
	ASSERT_EQ(g.d[2].duration_ms, 5000, "5s");
}

BW_TEST(test_cs_stream_empty_forms)
{
	static const char *const ok[] = {
		"{\"new\":null,\"deleted\":null}",
		"{}",
		" \r\n{ \"new\" : [ ] , \"deleted\" : null } \n",
		"{\"other\":\"a \\\"}\\\" b\",\"n\":-1.5e3,\"t\":true,"
		"\"o\":{\"new\":[{\"id\":\"x\"}]},\"new\":[]}",
	};
	struct got g;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ASSERT_OK(parse(ok[i], 1, &g, NULL, 0), ok[i]);
		ASSERT_EQ(g.n, 0, "no decision");
	}
}

/* One decision in "new" with fields f: refused or not, and why. */
static void one(const char *fields, bool refused, const char *why)
{
	char body[1024];
	struct got g;

	snprintf(body, sizeof(body), "{\"new\":[{%s}]}", fields);
	if (!ASSERT_OK(parse(body, 0, &g, NULL, 0), fields))
		return;
	ASSERT_EQ(g.n, 1, fields);
	ASSERT_EQ(g.refused, refused, fields);
	if (refused && why)
		ASSERT_STRSTR(g.d[0].refused, why, fields);
}

#define BASE "\"scope\":\"ip\",\"type\":\"ban\",\"value\":\"10.0.0.1\""

BW_TEST(test_cs_stream_field_checks)
{
	one("\"id\":1,\"duration\":\"1s\"," BASE, false, NULL);
	one("\"id\":1,\"duration\":\"1s\",\"unknown\":[1,2]," BASE, false,
	    NULL);
	one("\"id\":\"1\",\"duration\":\"1s\"," BASE, true, "id: not an int");
	one("\"id\":0,\"duration\":\"1s\"," BASE, true, "id: not a positive");
	one("\"id\":-4,\"duration\":\"1s\"," BASE, true, "id");
	one("\"id\":1.5,\"duration\":\"1s\"," BASE, true, "id");
	one("\"id\":99999999999999999999999,\"duration\":\"1s\"," BASE, true,
	    "id");
	one("\"duration\":\"1s\"," BASE, true, "id: missing");
	one("\"id\":1," BASE, true, "duration: missing");
	one("\"id\":1,\"duration\":5," BASE, true, "duration: not a string");
	one("\"id\":1,\"duration\":\"5\"," BASE, true, "not a duration");
	one("\"id\":1,\"duration\":\"1s\",\"scope\":\"ip\",\"type\":\"ban\"",
	    true, "value: missing");
	one("\"id\":1,\"duration\":\"1s\",\"scope\":\"ip\",\"type\":\"ban\","
	    "\"value\":\"a\\u0000b\"",
	    true, "NUL");
	one("\"id\":1,\"duration\":\"1s\",\"scope\":\"ip\",\"type\":\"ban\","
	    "\"value\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
	    true, "value: too long");
	one("\"id\":1,\"duration\":\"1s\",\"origin\":7," BASE, true,
	    "origin: not a string");
	one("\"id\":1,\"duration\":\"1s\",\"simulated\":\"no\"," BASE, true,
	    "simulated");
	one("\"id\":1,\"duration\":\"1s\",\"simulated\":null," BASE, false,
	    NULL);
	one("\"id\":1,\"duration\":\"1s\",\"until\":\"\"," BASE, false, NULL);
	one("\"id\":1,\"duration\":\"1s\",\"until\":\"tomorrow\"," BASE, true,
	    "until");
}

BW_TEST(test_cs_stream_deleted_needs_only_id)
{
	struct got g;

	ASSERT_OK(parse("{\"deleted\":[{\"id\":3}]}", 0, &g, NULL, 0),
		  "parses");
	ASSERT_EQ(g.refused, 0, "a deletion by id alone is taken");
	ASSERT_OK(parse("{\"deleted\":[{\"value\":\"10.0.0.1\"}]}", 0, &g, NULL,
			0),
		  "parses");
	ASSERT_EQ(g.refused, 1, "a deletion without an id is refused");
}

BW_TEST(test_cs_stream_hostile_bodies)
{
	static const char *const bad[] = {
		"",
		"[]",
		"null",
		"{\"new\":[{\"id\":1}]",
		"{\"new\":[{\"id\":1}]}}",
		"{\"new\":[{\"id\":1}]} x",
		"{\"new\":[{\"id\":1,}]}",
		"{\"new\":[1,2]}",
		"{\"new\":[null]}",
		"{\"new\":{\"id\":1}}",
		"{\"new\":nul}",
		"{\"new\":nulll}",
		"{\"new\" [] }",
		"{new:[]}",
		"{\"new\":[],}",
		"{\"new\":[{}{}]}",
		"{\"new\":[{},]}",
		"{\"x\":}",
		"{\"x\":tru}",
		"{\"x\":\"\x01\"}",
		"{\"k\x01\":1}",
		"<html><body>502 Bad Gateway</body></html>",
	};
	char why[160];
	struct got g;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(parse(bad[i], 1, &g, why, sizeof(why)), -EBADMSG,
			  bad[i]);
		ASSERT_STRSTR(why, "at byte", bad[i]);
	}
}

BW_TEST(test_cs_stream_bounds)
{
	size_t n = BW_CS_ELEM_MAX + 64, deep = 100;
	char *body = malloc(n + 64);
	char why[160];
	struct got g;
	size_t i;

	if (!ASSERT_OK_PTR(body, "malloc"))
		return;
	/* One element past 64 KiB: the whole answer is refused. */
	strcpy(body, "{\"new\":[{\"scenario\":\"");
	memset(body + strlen(body), 'a', n);
	strcpy(body + 22 + n, "\"}]}");
	ASSERT_EQ(parse(body, 4096, &g, why, sizeof(why)), -EBADMSG,
		  "a huge element");
	ASSERT_STRSTR(why, "64 KiB", "said");
	/* Nesting deeper than the tokener's bound. */
	strcpy(body, "{\"new\":[{\"a\":");
	for (i = 0; i < deep; i++)
		strcat(body, "[");
	for (i = 0; i < deep; i++)
		strcat(body, "]");
	strcat(body, "}]}");
	ASSERT_EQ(parse(body, 0, &g, NULL, 0), -EBADMSG, "too deep");
	free(body);
}

static int stop_at_two(void *ctx, const struct bw_cs_decision *d)
{
	int *n = ctx;

	(void)d;
	return ++*n == 2 ? -ECANCELED : 0;
}

BW_TEST(test_cs_stream_callback_error_ends)
{
	struct bw_cs_stream *s;
	int n = 0;

	s = bw_cs_stream_new(stop_at_two, &n);
	if (!ASSERT_OK_PTR(s, "new"))
		return;
	ASSERT_EQ(bw_cs_stream_feed(s, lapi_answer, strlen(lapi_answer)),
		  -ECANCELED, "the callback's error");
	ASSERT_EQ(n, 2, "no call after it");
	ASSERT_EQ(bw_cs_stream_feed(s, "x", 1), -ECANCELED, "sticks");
	bw_cs_stream_free(s);
}

BW_TEST(test_cs_parse_duration_forms)
{
	static const struct {
		const char *s;
		long long ms;
	} ok[] = {
		{ "5s", 5000 },
		{ "-1s", -1000 },
		{ "0s", 0 },
		{ "0", 0 },
		{ "300ms", 300 },
		{ "1.5h", 5400000 },
		{ "1h2m3.5s", 3723500 },
		{ "3h59m58.999999s", 14398999 },
		{ "-0.5s", -500 },
		{ "+2m", 120000 },
		{ "1500000us", 1500 },
		{ "2000000\xc2\xb5s", 2000 },
		{ "2000000\xce\xbcs", 2000 },
		{ "999999ns", 0 },
		{ "1.s", 1000 },
		{ ".5s", 500 },
		{ "167h", 167 * 3600000LL },
	};
	static const char *const bad[] = {
		"",	 "-",  "s",	"5",	"5x",
		"1h 2m", "h5", "1..5s", "1e3s", "99999999999999h",
		"--1s",	 "5S",
	};
	__s64 ms;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (ASSERT_OK(bw_cs_parse_duration(ok[i].s, &ms), ok[i].s))
			ASSERT_EQ(ms, ok[i].ms, ok[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(bw_cs_parse_duration(bad[i], &ms), -EINVAL, bad[i]);
}

BW_TEST(test_cs_parse_time_forms)
{
	__s64 t;

	ASSERT_OK(bw_cs_parse_time("1970-01-01T00:00:00Z", &t), "epoch");
	ASSERT_EQ(t, 0, "epoch is 0");
	ASSERT_OK(bw_cs_parse_time("2026-12-02T05:40:00.123456789+02:00", &t),
		  "offset");
	ASSERT_EQ(t, 1796190000LL - 7200, "east of UTC");
	ASSERT_OK(bw_cs_parse_time("2026-12-02T05:40:00-01:30", &t), "west");
	ASSERT_EQ(t, 1796190000LL + 5400, "west of UTC");
	ASSERT_ERR(bw_cs_parse_time("2026-13-02T05:40:00Z", &t), "month 13");
	ASSERT_ERR(bw_cs_parse_time("2026-12-02T05:40:00", &t), "no zone");
	ASSERT_ERR(bw_cs_parse_time("2026-12-02T05:40:00+2", &t), "bad zone");
	ASSERT_ERR(bw_cs_parse_time("2026-12-02", &t), "a date");
}
