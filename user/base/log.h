/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Logging for the CLI: pr_warn for errors and warnings (stderr), pr_info for
 * what an operator wants to see (stdout), pr_debug only with --verbose.
 */
#ifndef __BW_LOG_H
#define __BW_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum bw_log_level {
	BW_LOG_NONE = -1, /* not even warnings: for the fuzzer */
	BW_LOG_WARN,
	BW_LOG_INFO,
	BW_LOG_DEBUG,
};

extern enum bw_log_level bw_log_level;

void bw_log(enum bw_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Warnings go into buf (len bytes, NUL-terminated, cut when full) instead
 * of stderr, for a caller that says them its own way; len 0 ends it.
 */
void bw_log_capture(char *buf, size_t len);

#define pr_warn(fmt, ...) bw_log(BW_LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) bw_log(BW_LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) bw_log(BW_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* "entry" or "entries", for counts in operator messages. */
static inline const char *bw_plural(unsigned long long n, const char *one,
				    const char *many)
{
	return n == 1 ? one : many;
}

/* A sentence for an errno from the kernel, for the end of a message. */
const char *bw_errno_hint(int err);

/* Route libbpf's messages through bw_log: debug/info only with --verbose. */
void bw_log_setup_libbpf(void);

#endif /* __BW_LOG_H */
