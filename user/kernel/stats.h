/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The data path's per-CPU counters (struct bw_stats, and struct
 * bw_dns_stats for DNS), summed over CPUs: the same numbers as `bpftool
 * map dump pinned BW_PIN_ROOT/IFACE/stats` adds up.
 */
#ifndef __BW_STATS_H
#define __BW_STATS_H

#include <stddef.h>

#include "bloomwall.h"

/* Names and offsets of struct bw_stats' fields, in declaration order. */
struct bw_stats_field {
	const char *name;
	size_t off;
};

extern const struct bw_stats_field bw_stats_fields[];
extern const size_t bw_stats_nfields;

/* Sums the per-CPU values of the stats map fd into *sum. 0 or -errno. */
int bw_stats_read(int fd, struct bw_stats *sum);

/* Every packet counts in exactly one of these: the data path keeps no total. */
static inline __u64 bw_stats_packets(const struct bw_stats *s)
{
	return s->passed + s->dropped_v4 + s->dropped_v6;
}

static inline __u64 bw_stats_get(const struct bw_stats *s,
				 const struct bw_stats_field *f)
{
	return *(const __u64 *)((const char *)s + f->off);
}

/*
 * The DNS counters (map dns_stats), named as `status` shows them: the
 * array blocked[] is one field per action (blocked_null, blocked_nxdomain,
 * blocked_refused, blocked_drop). bw_stats_get() reads them too.
 */
extern const struct bw_stats_field bw_dns_stats_fields[];
extern const size_t bw_dns_stats_nfields;

/* Sums the per-CPU values of the dns_stats map fd into *sum. 0 or -errno. */
int bw_dns_stats_read(int fd, struct bw_dns_stats *sum);

static inline __u64 bw_dns_stats_get(const struct bw_dns_stats *s,
				     const struct bw_stats_field *f)
{
	return *(const __u64 *)((const char *)s + f->off);
}

/* Blocked queries of every action: what never reached the resolver. */
static inline __u64 bw_dns_stats_blocked(const struct bw_dns_stats *s)
{
	__u64 n = 0;
	int a;

	for (a = 0; a < BW_DNS_ACTIONS; a++)
		n += s->blocked[a];
	return n;
}

/*
 * The drop log's counters (map log_stats): logged, lost_rate, lost_ring.
 * bw_stats_get() reads them too.
 */
extern const struct bw_stats_field bw_log_stats_fields[];
extern const size_t bw_log_stats_nfields;

/*
 * Sums the per-CPU counters of the log_stats map fd into *sum (the
 * buckets' fields come back zero). 0 or -errno.
 */
int bw_log_stats_read(int fd, struct bw_log_stats *sum);

/* Sums the per-CPU values of the dns_drops map fd into *sum. 0 or -errno. */
int bw_dns_drops_read(int fd, struct bw_dns_drops *sum);

#endif /* __BW_STATS_H */
