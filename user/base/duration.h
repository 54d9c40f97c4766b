/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Durations as an operator writes them ('add --timeout'): plain seconds
 * ("90"), or numbers each with a unit, largest first or not ("30s", "5m",
 * "4h", "7d", "1w", "1h30m"); and back, for status and query ("1h29m");
 * and the monotonic clock they are measured on.
 */
#ifndef __BW_DURATION_H
#define __BW_DURATION_H

#include <stddef.h>
#include <linux/types.h>

/* The longest duration taken: ten years of seconds. */
#define BW_DURATION_MAX (3650ULL * 86400)

/*
 * s as seconds into *secs: 0, or -EINVAL (empty, a unit unknown or
 * missing between numbers, a sign, past BW_DURATION_MAX).
 */
int bw_parse_duration(const char *s, __u64 *secs);

/*
 * secs as at most two units, the largest first ("7d", "1h30m", "45s",
 * "0s"): rounded down, for a time left. Returns buf.
 */
char *bw_duration_str(__u64 secs, char *buf, size_t len);

/* Now on the monotonic clock, in seconds: deadlines and how long things take. */
double bw_mono(void);

#endif /* __BW_DURATION_H */
