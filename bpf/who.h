/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * who.h - who tried: the sources of packets stopped for a listed
 * destination, counted in a bounded LRU hash (struct bw_who_key to a
 * __u64 of packets, BW_WHO_MAX entries). The TC program keeps its own
 * (egress_who, egress.h); the XDP program with --match dst keeps
 * ingress_who, here, filled from lookup_packet()'s hit path (judge.h).
 */
#ifndef __BW_WHO_H
#define __BW_WHO_H

#include "maps.h"
#include "parse.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BW_WHO_MAX);
	__type(key, struct bw_who_key);
	__type(value, __u64);
} BW_MAP_INGRESS_WHO SEC(".maps");

/* n more packets from the source k to a listed destination, in map (an LRU). */
static __always_inline void who_count(void *map, const struct bw_who_key *k,
				      __u64 n)
{
	__u64 *have;

	have = bpf_map_lookup_elem(map, k);
	if (!have && !bpf_map_update_elem(map, k, &n, BPF_NOEXIST))
		return;
	/* Another CPU may have put k in since the lookup. */
	if (!have)
		have = bpf_map_lookup_elem(map, k);
	if (have)
		__sync_fetch_and_add(have, n);
}

/*
 * ingress_who's count, as a subprogram: the hit path of --match dst pays
 * a call, and the code of the paths around it stays as it was.
 */
static __noinline int who_dst(__u32 family, __u64 hi, __u64 lo)
{
	struct bw_who_key k = {
		.addr = { hi, lo },
		.family = family,
	};

	who_count(&BW_MAP_INGRESS_WHO, &k, 1);
	return 0;
}

#endif /* __BW_WHO_H */
