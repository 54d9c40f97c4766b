// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Durations written and read (duration.h).
 */
#include <errno.h>
#include <time.h>
#include <stdio.h>

#include "base/duration.h"

static const struct unit {
	char c;
	__u64 secs;
} units[] = { { 'w', 7 * 86400 },
	      { 'd', 86400 },
	      { 'h', 3600 },
	      { 'm', 60 },
	      { 's', 1 } };

#define NUNITS (sizeof(units) / sizeof(units[0]))

static __u64 unit_secs(char c)
{
	size_t i;

	for (i = 0; i < NUNITS; i++)
		if (units[i].c == c)
			return units[i].secs;
	return 0;
}

int bw_parse_duration(const char *s, __u64 *secs)
{
	__u64 total = 0, n, u;
	const char *p = s, *start;

	if (!*p)
		return -EINVAL;
	while (*p) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		start = p;
		for (n = 0; *p >= '0' && *p <= '9'; p++) {
			n = n * 10 + (__u64)(*p - '0');
			if (n > BW_DURATION_MAX)
				return -EINVAL;
		}
		/* A bare number is seconds, but only alone: "1h30" is a typo. */
		if (!*p && start == s) {
			u = 1;
		} else {
			u = unit_secs(*p);
			if (!u)
				return -EINVAL;
			p++;
		}
		total += n * u;
		if (n * u > BW_DURATION_MAX || total > BW_DURATION_MAX)
			return -EINVAL;
	}
	*secs = total;
	return 0;
}

char *bw_duration_str(__u64 secs, char *buf, size_t len)
{
	size_t i, j;
	__u64 a, b;

	/* Weeks are for reading durations, days are clearer for writing. */
	for (i = 1; i + 1 < NUNITS && secs < units[i].secs; i++)
		;
	a = secs / units[i].secs;
	j = i + 1;
	b = j < NUNITS ? secs % units[i].secs / units[j].secs : 0;
	if (b)
		snprintf(buf, len, "%llu%c%llu%c", (unsigned long long)a,
			 units[i].c, (unsigned long long)b, units[j].c);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)a, units[i].c);
	return buf;
}

double bw_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
