// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Durations (user/base/duration.c): what 'add --timeout' takes and what
 * status prints for a time left.
 */
#include <errno.h>
#include <string.h>

#include "base/duration.h"
#include "test_helpers.h"

static long long secs_of(const char *s)
{
	__u64 v = 0;

	return bw_parse_duration(s, &v) ? -1 : (long long)v;
}

BW_TEST(test_duration_parse)
{
	char big[32];

	ASSERT_EQ(secs_of("30s"), 30, "30s");
	ASSERT_EQ(secs_of("5m"), 300, "5m");
	ASSERT_EQ(secs_of("4h"), 14400, "4h");
	ASSERT_EQ(secs_of("7d"), 604800, "7d");
	ASSERT_EQ(secs_of("1w"), 604800, "1w");
	ASSERT_EQ(secs_of("90"), 90, "plain seconds");
	ASSERT_EQ(secs_of("0"), 0, "0: never");
	ASSERT_EQ(secs_of("1h30m"), 5400, "1h30m");
	ASSERT_EQ(secs_of("1d2h3m4s"), 93784, "every unit");
	ASSERT_EQ(secs_of("30m1h"), 5400, "any order");
	ASSERT_EQ(secs_of("3650d"), 3650LL * 86400, "the longest");
	ASSERT_EQ(secs_of(""), -1, "empty");
	ASSERT_EQ(secs_of("-1"), -1, "negative");
	ASSERT_EQ(secs_of("+5"), -1, "a sign");
	ASSERT_EQ(secs_of("5x"), -1, "unknown unit");
	ASSERT_EQ(secs_of("h"), -1, "a unit alone");
	ASSERT_EQ(secs_of("1h30"), -1, "a bare number after a unit");
	ASSERT_EQ(secs_of("5 m"), -1, "a space");
	ASSERT_EQ(secs_of("1.5h"), -1, "a fraction");
	ASSERT_EQ(secs_of("3651d"), -1, "past ten years");
	ASSERT_EQ(secs_of("3650d1s"), -1, "just past");
	memset(big, '9', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(secs_of(big), -1, "digits past any bound");
}

BW_TEST(test_duration_str)
{
	char b[32];

	ASSERT_STREQ(bw_duration_str(0, b, sizeof(b)), "0s", "0");
	ASSERT_STREQ(bw_duration_str(45, b, sizeof(b)), "45s", "seconds");
	ASSERT_STREQ(bw_duration_str(178, b, sizeof(b)), "2m58s", "m s");
	ASSERT_STREQ(bw_duration_str(5400, b, sizeof(b)), "1h30m", "h m");
	ASSERT_STREQ(bw_duration_str(5401, b, sizeof(b)), "1h30m",
		     "two units, rounded down");
	ASSERT_STREQ(bw_duration_str(604800, b, sizeof(b)), "7d", "days");
	ASSERT_STREQ(bw_duration_str(90000, b, sizeof(b)), "1d1h", "d h");
}
