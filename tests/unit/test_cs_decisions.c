// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The CrowdSec decision set (user/net/cs_decisions.c): a value covered by
 * several decisions stays until the last goes (deletions by id), ends by
 * the set's own clock, resync against a full answer, scopes and types and
 * the origin and scenario filters, range limits, a filter that refuses a
 * value, and 100 000 decisions in and out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomwall.h"
#include "lists/list_parse.h"
#include "net/cs_decisions.h"
#include "test_helpers.h"

/* What the sink saw: covers minus uncovers, and the last of each. */
struct seen {
	long covered;
	int covers, uncovers;
	char last_cover[64], last_uncover[64];
	__s64 last_until;
	int refuse; /* cover returns this */
};

static int on_cover(void *ctx, const struct bw_prefix *p, __s64 until_ms)
{
	struct seen *s = ctx;

	if (s->refuse)
		return s->refuse;
	s->covered++;
	s->covers++;
	s->last_until = until_ms;
	bw_prefix_str(p, s->last_cover, sizeof(s->last_cover));
	return 0;
}

static void on_uncover(void *ctx, const struct bw_prefix *p)
{
	struct seen *s = ctx;

	s->covered--;
	s->uncovers++;
	bw_prefix_str(p, s->last_uncover, sizeof(s->last_uncover));
}

static struct bw_cs_set *new_set(const struct bw_cs_filter *f, struct seen *s)
{
	const struct bw_cs_sink sink = { on_cover, on_uncover, s };
	static const struct bw_cs_filter none;

	memset(s, 0, sizeof(*s));
	return bw_cs_set_new(f ? f : &none, &sink);
}

#define NOW 1796190000000LL

static struct bw_cs_decision dec(__s64 id, const char *scope, const char *value,
				 __s64 ms)
{
	struct bw_cs_decision d = { .list = BW_CS_NEW,
				    .id = id,
				    .duration_ms = ms,
				    .has_duration = true };

	snprintf(d.scope, sizeof(d.scope), "%s", scope);
	snprintf(d.value, sizeof(d.value), "%s", value);
	snprintf(d.type, sizeof(d.type), "ban");
	snprintf(d.origin, sizeof(d.origin), "cscli");
	snprintf(d.scenario, sizeof(d.scenario), "manual");
	return d;
}

static int apply(struct bw_cs_set *set, struct bw_cs_decision d, __s64 now)
{
	int skip;

	if (bw_cs_set_apply(set, &d, now, &skip))
		return -1000;
	return skip;
}

static int del(struct bw_cs_set *set, __s64 id)
{
	struct bw_cs_decision d = { .list = BW_CS_DELETED, .id = id };

	return apply(set, d, NOW);
}

BW_TEST(test_cs_set_value_stays_until_last_decision)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);
	struct bw_cs_decision d;

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	ASSERT_EQ(apply(set, dec(1, "Ip", "10.0.0.1", 60000), NOW), -1, "1");
	d = dec(2, "ip", "10.0.0.1/32", 120000);
	snprintf(d.origin, sizeof(d.origin), "crowdsec");
	ASSERT_EQ(apply(set, d, NOW), -1, "2, same value, another origin");
	ASSERT_EQ(s.covers, 1, "one cover for the value");
	ASSERT_STREQ(s.last_cover, "10.0.0.1", "the value");
	ASSERT_EQ(bw_cs_set_covers(set, &(struct bw_prefix){ .lo = 0x0a000001,
							     .family = BW_V4,
							     .plen = 32 }),
		  2, "by two decisions");
	del(set, 1);
	ASSERT_EQ(s.uncovers, 0, "still covered by 2");
	del(set, 1);
	ASSERT_EQ(s.uncovers, 0, "a repeated delete of 1 changes nothing");
	del(set, 99);
	ASSERT_EQ(bw_cs_set_count(set), 1, "an unknown id changes nothing");
	del(set, 2);
	ASSERT_EQ(s.uncovers, 1, "the last one gone: uncovered");
	ASSERT_EQ(bw_cs_set_values(set), 0, "no value");
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_own_clock_and_extension)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);
	__s64 next;

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	apply(set, dec(1, "Ip", "192.0.2.1", 5000), NOW);
	ASSERT_EQ(s.last_until, NOW + 5000, "its end by our clock");
	/* Extended before it ended: another decision, longer. */
	apply(set, dec(2, "Ip", "192.0.2.1", 60000), NOW + 2000);
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 4999, &next), 0, "not yet");
	ASSERT_EQ(next, NOW + 5000, "next end");
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 5000, &next), 1, "1 ends");
	ASSERT_EQ(s.uncovers, 0, "2 still covers it");
	ASSERT_EQ(next, NOW + 62000, "2's end");
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 62000, &next), 1, "2 ends");
	ASSERT_EQ(s.uncovers, 1, "uncovered");
	ASSERT_EQ(next, -1, "nothing left");
	/* Named again by a later answer: its end moves. */
	apply(set, dec(3, "Ip", "192.0.2.2", 5000), NOW);
	apply(set, dec(3, "Ip", "192.0.2.2", 5000), NOW + 4000);
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 5000, NULL), 0, "moved");
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 9000, NULL), 1, "then ends");
	ASSERT_EQ(s.covers, 2, "covered once each");
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_resync)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	bw_cs_set_sync_begin(set);
	apply(set, dec(1, "Ip", "10.0.0.1", 60000), NOW);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	apply(set, dec(3, "Ip", "10.0.0.3", 60000), NOW);
	bw_cs_set_sync_end(set);
	ASSERT_EQ(s.covered, 3, "three in");
	/* The LAPI restarted; its answer names 2 and a new 4. */
	bw_cs_set_sync_begin(set);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	apply(set, dec(4, "Ip", "10.0.0.4", 60000), NOW);
	ASSERT_EQ(s.uncovers, 0, "nothing goes before the answer is whole");
	bw_cs_set_sync_end(set);
	ASSERT_EQ(s.covered, 2, "1 and 3 gone");
	ASSERT_EQ(s.covers, 4, "4 in, 2 not covered again");
	ASSERT_EQ(bw_cs_set_count(set), 2, "2 and 4 held");
	/* A full answer that fails half way is not ended: all stays. */
	bw_cs_set_sync_begin(set);
	apply(set, dec(4, "Ip", "10.0.0.4", 60000), NOW);
	ASSERT_EQ(bw_cs_set_count(set), 2, "2 kept while unended");
	bw_cs_set_sync_begin(set);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	apply(set, dec(4, "Ip", "10.0.0.4", 60000), NOW);
	bw_cs_set_sync_end(set);
	ASSERT_EQ(s.covered, 2, "the next whole one decides");
	bw_cs_set_free(set);
}

/*
 * What a full answer changed (the resync's drift): held ones it lacks
 * out, ones not held in, a changed value and a deletion of a held one
 * counted as taken out; a decision it names as held counts nothing,
 * deltas between full answers count nothing.
 */
BW_TEST(test_cs_set_resync_drift)
{
	struct bw_cs_drift d;
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	bw_cs_set_sync_begin(set);
	apply(set, dec(1, "Ip", "10.0.0.1", 60000), NOW);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	d = bw_cs_set_sync_end(set);
	ASSERT_TRUE(d.added == 2 && d.removed == 0, "the first: 2 put in");
	apply(set, dec(3, "Ip", "10.0.0.3", 60000), NOW);
	apply(set, dec(4, "Ip", "10.0.0.4", 60000), NOW);
	apply(set, dec(5, "Ip", "10.0.0.5", 60000), NOW);
	del(set, 1);
	/* The full answer: 2 as held, 3 changed, 4 deleted, 5 missing, 6 new. */
	bw_cs_set_sync_begin(set);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	apply(set, dec(3, "Ip", "10.0.0.33", 60000), NOW);
	del(set, 4);
	apply(set, dec(6, "Ip", "10.0.0.6", 60000), NOW);
	ASSERT_EQ(apply(set, dec(7, "Country", "FR", 60000), NOW),
		  BW_CS_IGNORED_SCOPE, "another scope");
	d = bw_cs_set_sync_end(set);
	ASSERT_EQ(d.added, 1, "6 put in (not 3's new value, nor 7)");
	ASSERT_EQ(d.removed, 3, "3 changed, 4 deleted, 5 missing");
	ASSERT_EQ(bw_cs_set_count(set), 3, "2, 3 and 6 held");
	bw_cs_set_sync_begin(set);
	apply(set, dec(2, "Ip", "10.0.0.2", 60000), NOW);
	apply(set, dec(3, "Ip", "10.0.0.33", 60000), NOW);
	apply(set, dec(6, "Ip", "10.0.0.6", 60000), NOW);
	d = bw_cs_set_sync_end(set);
	ASSERT_TRUE(!d.added && !d.removed, "in step: no drift");
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_scopes_types_values)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);
	struct bw_cs_decision d;

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	ASSERT_EQ(apply(set, dec(1, "IP", "2001:db8::1/128", 1000), NOW), -1,
		  "IPv6 /128");
	ASSERT_STREQ(s.last_cover, "2001:db8::1", "as a host");
	ASSERT_EQ(apply(set, dec(2, "RANGE", "10.1.2.3/16", 1000), NOW), -1,
		  "a range with host bits");
	ASSERT_STREQ(s.last_cover, "10.1.0.0/16", "masked");
	ASSERT_EQ(apply(set, dec(3, "range", "10.9.9.9", 1000), NOW), -1,
		  "a range without /len");
	ASSERT_EQ(apply(set, dec(4, "Ip", "::ffff:192.0.2.5", 1000), NOW), -1,
		  "mapped");
	ASSERT_STREQ(s.last_cover, "192.0.2.5", "as IPv4");
	ASSERT_EQ(apply(set, dec(5, "Ip", "10.0.0.0/24", 1000), NOW),
		  BW_CS_REFUSED_VALUE, "an Ip with a prefix");
	ASSERT_EQ(apply(set, dec(6, "Ip", "example.com", 1000), NOW),
		  BW_CS_REFUSED_VALUE, "a name");
	ASSERT_EQ(apply(set, dec(7, "Ip", "10.0.0.1/33", 1000), NOW),
		  BW_CS_REFUSED_VALUE, "/33");
	ASSERT_EQ(apply(set, dec(8, "Ip", "10.0.0.1/", 1000), NOW),
		  BW_CS_REFUSED_VALUE, "empty length");
	ASSERT_EQ(apply(set, dec(9, "Country", "FR", 1000), NOW),
		  BW_CS_IGNORED_SCOPE, "a country");
	d = dec(10, "Ip", "10.0.0.9", 1000);
	snprintf(d.type, sizeof(d.type), "captcha");
	ASSERT_EQ(apply(set, d, NOW), BW_CS_IGNORED_TYPE, "captcha");
	d = dec(11, "Ip", "10.0.0.9", 1000);
	d.simulated = true;
	ASSERT_EQ(apply(set, d, NOW), BW_CS_IGNORED_SIMULATED, "simulated");
	ASSERT_EQ(apply(set, dec(12, "Ip", "10.0.0.9", -1000), NOW),
		  BW_CS_IGNORED_EXPIRED, "expired");
	d = dec(13, "Ip", "10.0.0.9", 1000);
	snprintf(d.refused, sizeof(d.refused), "id: bad");
	ASSERT_EQ(apply(set, d, NOW), BW_CS_REFUSED_FIELD, "a bad field");
	ASSERT_EQ(bw_cs_set_count(set), 4, "four held");
	ASSERT_EQ(bw_cs_set_skipped(set, BW_CS_REFUSED_VALUE), 4, "counted");
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_range_limits)
{
	struct bw_cs_filter f = { .min_plen = { 16, 32 } };
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	ASSERT_EQ(apply(set, dec(1, "Range", "0.0.0.0/0", 1000), NOW),
		  BW_CS_REFUSED_WIDE, "/0 refused");
	ASSERT_EQ(apply(set, dec(2, "Range", "::/0", 1000), NOW),
		  BW_CS_REFUSED_WIDE, "::/0 refused");
	ASSERT_EQ(apply(set, dec(3, "Range", "10.0.0.0/7", 1000), NOW),
		  BW_CS_REFUSED_WIDE, "/7 refused");
	ASSERT_EQ(apply(set, dec(4, "Range", "10.0.0.0/8", 1000), NOW), -1,
		  "/8 taken");
	ASSERT_EQ(apply(set, dec(5, "Range", "2000::/18", 1000), NOW),
		  BW_CS_REFUSED_WIDE, "v6 /18 refused");
	ASSERT_EQ(apply(set, dec(6, "Range", "2000::/19", 1000), NOW), -1,
		  "v6 /19 taken");
	ASSERT_EQ(bw_cs_set_skipped(set, BW_CS_REFUSED_WIDE), 4, "counted");
	ASSERT_EQ(s.covers, 2, "two in");
	bw_cs_set_free(set);
	set = new_set(&f, &s);
	ASSERT_EQ(apply(set, dec(4, "Range", "10.0.0.0/8", 1000), NOW),
		  BW_CS_REFUSED_WIDE, "/8 past a /16 limit");
	ASSERT_EQ(apply(set, dec(5, "Range", "2001:db8::/32", 1000), NOW), -1,
		  "v6 /32 at a /32 limit");
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_filters)
{
	struct bw_cs_filter f = {
		.types = "ban, Captcha",
		.origins = "crowdsec,cscli",
		.scenarios_containing = "ssh,http",
		.scenarios_not_containing = "http-probing",
	};
	struct seen s;
	struct bw_cs_set *set = new_set(&f, &s);
	struct bw_cs_decision d;
	static const struct {
		const char *origin, *scenario, *type;
		int skip;
	} cases[] = {
		{ "crowdsec", "crowdsecurity/ssh-bf", "ban", -1 },
		{ "CSCLI", "crowdsecurity/http-crawl", "captcha", -1 },
		{ "CAPI", "crowdsecurity/ssh-bf", "ban", BW_CS_IGNORED_ORIGIN },
		{ "lists", "crowdsecurity/ssh-bf", "ban",
		  BW_CS_IGNORED_ORIGIN },
		{ "crowdsec", "crowdsecurity/smb-bf", "ban",
		  BW_CS_IGNORED_ORIGIN },
		{ "crowdsec", "crowdsecurity/http-probing", "ban",
		  BW_CS_IGNORED_ORIGIN },
		{ "crowdsec", "crowdsecurity/SSH-slow-bf", "ban", -1 },
		{ "crowdsec", "crowdsecurity/ssh-bf", "throttle",
		  BW_CS_IGNORED_TYPE },
	};

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d = dec((__s64)i + 1, "Ip", "10.0.0.1", 1000);
		snprintf(d.origin, sizeof(d.origin), "%s", cases[i].origin);
		snprintf(d.scenario, sizeof(d.scenario), "%s",
			 cases[i].scenario);
		snprintf(d.type, sizeof(d.type), "%s", cases[i].type);
		ASSERT_EQ(apply(set, d, NOW), cases[i].skip, cases[i].scenario);
	}
	bw_cs_set_free(set);
}

BW_TEST(test_cs_set_filter_refuses_value)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	s.refuse = -ENOENT;
	ASSERT_EQ(apply(set, dec(1, "Range", "10.0.0.0/20", 1000), NOW),
		  BW_CS_REFUSED_FILTER, "no target length for it");
	ASSERT_EQ(bw_cs_set_count(set), 0, "not held");
	/* Its slot is free: a resync finds nothing there to take out. */
	bw_cs_set_sync_begin(set);
	bw_cs_set_sync_end(set);
	ASSERT_EQ(s.uncovers, 0, "nothing uncovered");
	s.refuse = 0;
	ASSERT_EQ(apply(set, dec(1, "Range", "10.0.0.0/20", 1000), NOW), -1,
		  "taken when the filter can");
	ASSERT_EQ(bw_cs_set_count(set), 1, "held");
	bw_cs_set_free(set);
}

static int count_cscli(void *ctx, const struct bw_cs_held *h)
{
	int *n = ctx;

	*n += !strcmp(h->origin, "cscli") && !strcmp(h->type, "ban") &&
	      !strcmp(h->scenario, "manual");
	return 0;
}

BW_TEST(test_cs_set_100k_in_and_out)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);
	char v[32];
	int i, n = 0;

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	bw_cs_set_sync_begin(set);
	for (i = 0; i < 100000; i++) {
		snprintf(v, sizeof(v), "10.%d.%d.%d", i >> 16, (i >> 8) & 255,
			 i & 255);
		apply(set, dec(i + 1, "Ip", v, 1000 + i % 7), NOW);
	}
	/* The same values again under other ids. */
	for (i = 0; i < 100000; i += 2) {
		snprintf(v, sizeof(v), "10.%d.%d.%d", i >> 16, (i >> 8) & 255,
			 i & 255);
		apply(set, dec(200000 + i, "Ip", v, 5000), NOW);
	}
	bw_cs_set_sync_end(set);
	ASSERT_EQ(bw_cs_set_count(set), 150000, "held");
	ASSERT_EQ(bw_cs_set_values(set), 100000, "values");
	ASSERT_EQ(s.covered, 100000, "covered");
	bw_cs_set_foreach(set, count_cscli, &n);
	ASSERT_EQ(n, 150000, "strings kept");
	for (i = 0; i < 100000; i += 3)
		del(set, i + 1);
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 1006, NULL), 100000 - 33334,
		  "the rest of the first ones end");
	ASSERT_EQ(s.covered, 50000, "the re-added half stays");
	ASSERT_EQ(bw_cs_set_expire(set, NOW + 5000, NULL), 50000, "then go");
	ASSERT_EQ(s.covered, 0, "none");
	ASSERT_EQ(bw_cs_set_values(set), 0, "no value left");
	bw_cs_set_free(set);
}

/* The LAPI 1.4's way: two decisions on a value, cscli deletes both, the
 * stream names one (even one it never sent). */
BW_TEST(test_cs_set_collapsed_deletion_asks_resync)
{
	struct seen s;
	struct bw_cs_set *set = new_set(NULL, &s);
	struct bw_cs_decision d;

	if (!ASSERT_OK_PTR(set, "set"))
		return;
	apply(set, dec(3, "Ip", "10.77.0.2", 3600000), NOW);
	apply(set, dec(2, "Range", "10.78.0.0/16", 3600000), NOW);
	ASSERT_FALSE(bw_cs_set_want_resync(set), "no need yet");
	d = dec(1, "Ip", "10.77.0.2", -16);
	d.list = BW_CS_DELETED;
	apply(set, d, NOW);
	ASSERT_TRUE(bw_cs_set_want_resync(set), "a value still covered");
	ASSERT_FALSE(bw_cs_set_want_resync(set), "cleared");
	d = dec(2, "Range", "10.78.0.0/16", -16);
	d.list = BW_CS_DELETED;
	apply(set, d, NOW);
	ASSERT_FALSE(bw_cs_set_want_resync(set), "its last decision gone");
	/* The full answer: 10.77.0.2 is no more. */
	bw_cs_set_sync_begin(set);
	bw_cs_set_sync_end(set);
	ASSERT_EQ(s.covered, 0, "uncovered by the resync");
	bw_cs_set_free(set);
}
