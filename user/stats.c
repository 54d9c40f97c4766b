// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Reading the per-CPU counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stats.h"

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

int bw_stats_read(int fd, struct bw_stats *sum)
{
	int ncpus = libbpf_num_possible_cpus();
	struct bw_stats *v;
	__u32 key = 0;
	size_t f;
	int cpu, err = 0;

	memset(sum, 0, sizeof(*sum));
	if (ncpus < 0)
		return ncpus;
	/* Per-CPU values come rounded up to 8 bytes; bw_stats is all __u64. */
	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, v)) {
		err = -errno;
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		for (f = 0; f < bw_stats_nfields; f++)
			*(__u64 *)((char *)sum + bw_stats_fields[f].off) +=
				bw_stats_get(&v[cpu], &bw_stats_fields[f]);
out:
	free(v);
	return err;
}
