// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading the per-CPU counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/lpm.h"
#include "kernel/stats.h"

#define FIELD(f)                                 \
	{                                        \
#f, offsetof(struct bw_stats, f) \
	}

const struct bw_stats_field bw_stats_fields[] = {
	FIELD(passed),	FIELD(dropped_v4), FIELD(dropped_v6),
	FIELD(not_ip),	FIELD(malformed),  FIELD(monitored),
	FIELD(allowed), FIELD(false_pos),  FIELD(no_filter),
};

/* A new counter in bw_layout.h must be named here too. */
_Static_assert(sizeof(bw_stats_fields) / sizeof(bw_stats_fields[0]) *
			       sizeof(__u64) ==
		       sizeof(struct bw_stats),
	       "bw_stats_fields does not list every field of struct bw_stats");

const size_t bw_stats_nfields =
	sizeof(bw_stats_fields) / sizeof(bw_stats_fields[0]);

#define DNS_FIELD(f)                                 \
	{                                            \
#f, offsetof(struct bw_dns_stats, f) \
	}
#define DNS_BLOCKED(name, a)                                              \
	{                                                                 \
		"blocked_" name, offsetof(struct bw_dns_stats, blocked) + \
					 (a) * sizeof(__u64)              \
	}

const struct bw_stats_field bw_dns_stats_fields[] = {
	DNS_FIELD(queries),
	DNS_BLOCKED("null", BW_DNS_NULL),
	DNS_BLOCKED("nxdomain", BW_DNS_NXDOMAIN),
	DNS_BLOCKED("refused", BW_DNS_REFUSED),
	DNS_BLOCKED("drop", BW_DNS_DROP),
	DNS_FIELD(allowed),
	DNS_FIELD(monitored),
	DNS_FIELD(malformed),
	DNS_FIELD(not_query),
	DNS_FIELD(answer_failed),
	DNS_FIELD(fragments),
	DNS_FIELD(frag_dropped),
	DNS_FIELD(not_answered),
};

_Static_assert(sizeof(bw_dns_stats_fields) / sizeof(bw_dns_stats_fields[0]) *
			       sizeof(__u64) ==
		       sizeof(struct bw_dns_stats),
	       "bw_dns_stats_fields does not list every counter");
_Static_assert(BW_DNS_ACTIONS == 4, "one blocked_ field per action");

const size_t bw_dns_stats_nfields =
	sizeof(bw_dns_stats_fields) / sizeof(bw_dns_stats_fields[0]);

/*
 * Sums the first size bytes (whole __u64 counters) of a per-CPU array
 * map's slot 0 over the CPUs. The kernel hands each CPU's value rounded
 * up to 8 bytes, at the map's own value size: a value that has more
 * after the counters (egress_stats) or fewer (a program from before a
 * counter) is read at that stride, the missing counters 0.
 */
static int percpu_sum(int fd, void *sum, size_t size)
{
	int ncpus = libbpf_num_possible_cpus();
	long long vsize = bw_map_value_size(fd);
	size_t words = size / sizeof(__u64), stride, w;
	__u64 *v, *out = sum;
	__u32 key = 0;
	int cpu, err = 0;

	memset(sum, 0, size);
	if (ncpus < 0)
		return ncpus;
	if (vsize < 0)
		return (int)vsize;
	stride = ((size_t)vsize + sizeof(__u64) - 1) / sizeof(__u64);
	if (stride < words)
		words = stride;
	v = calloc(ncpus, stride * sizeof(__u64));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, v)) {
		err = -errno;
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		for (w = 0; w < words; w++)
			out[w] += v[(size_t)cpu * stride + w];
out:
	free(v);
	return err;
}

int bw_stats_read(int fd, struct bw_stats *sum)
{
	return percpu_sum(fd, sum, sizeof(*sum));
}

int bw_dns_stats_read(int fd, struct bw_dns_stats *sum)
{
	return percpu_sum(fd, sum, sizeof(*sum));
}

int bw_dns_drops_read(int fd, struct bw_dns_drops *sum)
{
	return percpu_sum(fd, sum, sizeof(*sum));
}

#define LOG_FIELD(f)                                 \
	{                                            \
#f, offsetof(struct bw_log_stats, f) \
	}

const struct bw_stats_field bw_log_stats_fields[] = {
	LOG_FIELD(logged),
	LOG_FIELD(lost_rate),
	LOG_FIELD(lost_ring),
};

_Static_assert(sizeof(bw_log_stats_fields) / sizeof(bw_log_stats_fields[0]) ==
		       BW_LOG_COUNTERS,
	       "bw_log_stats_fields lists every log counter");

const size_t bw_log_stats_nfields =
	sizeof(bw_log_stats_fields) / sizeof(bw_log_stats_fields[0]);

int bw_log_stats_read(int fd, struct bw_log_stats *sum)
{
	int err = percpu_sum(fd, sum, sizeof(*sum));

	/* A sum of clocks and credits means nothing. */
	sum->credit = sum->last = 0;
	return err;
}
