// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The pull's schedule (pull_sched.h).
 */
#include <stdint.h>
#include <time.h>
#include <sys/random.h>

#include "daemon/pull_sched.h"

double bw_pull_uniform(void)
{
	uint64_t r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL;
	}
	/* The top 53 bits: every double in [0, 1) a multiple of 2^-53. */
	return (double)(r >> 11) / (double)(1ULL << 53);
}

static double clamp_u(double u)
{
	return u < 0 ? 0 : u >= 1 ? 0.999999999 : u;
}

double bw_pull_delay(double interval, unsigned int fails, double u)
{
	/* The first failure waits an interval: one lost answer is common. */
	unsigned int shift = fails > BW_PULL_BACKOFF_MAX ? BW_PULL_BACKOFF_MAX
			     : fails			 ? fails - 1
							 : 0;
	double base = interval * (double)(1U << shift);

	return base *
	       (1.0 - BW_PULL_JITTER + 2.0 * BW_PULL_JITTER * clamp_u(u));
}

double bw_pull_first_delay(double interval, bool running, double u)
{
	return running ? interval * clamp_u(u) : 0.0;
}
