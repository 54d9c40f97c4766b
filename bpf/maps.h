/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * maps.h - what the data path reads besides the packet: the maps the CLI
 * hands over (or pins) and the load-time constants in .rodata, with the
 * readers of those constants.
 *
 * Included first by bloomwall.bpf.c, and by every header that reads one of
 * these, so that dns.h, dns_verdict.h and droplog.h can sit at the top of
 * the program rather than after its declarations. A map only one header
 * uses (dns.h's scratch, droplog.h's ring and counters) stays there.
 *
 * The order below is the program's ELF layout: the .maps section and the
 * .rodata offsets the CLI fills in (bw_prog_specialise) follow it. Keep
 * it, or compare the skeleton and the object before and after.
 */
#ifndef __BW_MAPS_H
#define __BW_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bw_layout.h"
#include "bw_hash.h"

/*
 * The filter this program reads. A template only: the CLI creates every
 * filter map at its size and hands it over before the program is loaded.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BW_HDR_BLOCKS + 1);
	__type(key, __u32);
	/* libbpf 1.1 cannot size a map from __type(value, struct bw_block). */
	__uint(value_size, BW_BLOCK_BYTES);
	__uint(map_flags, BPF_F_MMAPABLE);
} BW_MAP_BLOCKS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_stats);
} BW_MAP_STATS SEC(".maps");

/* Addresses that must never be dropped; changed at run time by the CLI. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, BW_ALLOW_MAX);
	__type(key, struct bw_lpm_key);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} BW_MAP_ALLOW SEC(".maps");

/* Template only: the CLI creates each exact trie at its list's size. */
struct bw_exact_inner {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__type(key, struct bw_lpm_key);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
};

/*
 * Verify mode: the exact blocklist, in the slot the filter header names.
 * A reload fills the other slot before it swaps the filter, so a packet
 * never meets a new filter with an old trie.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, BW_EXACT_SLOTS);
	__type(key, __u32);
	__array(values, struct bw_exact_inner);
} BW_MAP_EXACT SEC(".maps");

/*
 * The name allowlist: name keys (seed BW_NAME_ALLOW_SEED) that are never
 * blocked, changed at run time by the CLI; consulted only after a name hit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BW_ALLOW_NAMES_MIN);
	__type(key, __u64);
	__type(value, __u8);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} BW_MAP_ALLOW_NAMES SEC(".maps");

/* DNS counters, beside stats: every DNS packet also counts there once. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_dns_stats);
} BW_MAP_DNS_STATS SEC(".maps");

/* Blocked DNS queries by family, beside dns_stats (metrics' reason="dns"). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bw_dns_drops);
} BW_MAP_DNS_DROPS SEC(".maps");

/*
 * The filter's header (block 0 of `blocks`), copied here by the CLI before
 * the program is loaded (bw_prog_specialise). .rodata is frozen, so the
 * verifier knows every field as a constant: the branches on flags, target
 * lengths and empty regions are decided at load time and the code they
 * skip is removed; the program reads no header per packet. The copy in
 * block 0 stays the CLI's and bpftool's; what changes at run time (the
 * allowlist flag) is changed by loading the program again.
 */
const volatile struct bw_hdr filter_hdr;

/* What each region's hash and block index need, derived from filter_hdr. */
const volatile struct bw_region_consts region_consts[BW_REGIONS];

/*
 * What the name regions need (bw_dns_consts_init of the filter's DNS
 * block), also filled in by the CLI: all zero for a filter without names,
 * and then the verifier removes the DNS code.
 */
const volatile struct bw_dns_consts dns_consts;

/*
 * The drop log's rate and bucket (bw_log_consts_init in user/prog.c): all
 * zero with --log-rate 0, and then the verifier removes the logging code.
 */
const volatile struct bw_log_consts log_consts;

/*
 * Which copy of the program runs: BW_VARIANT_NAMES when the filter has
 * names to test (BW_F_DNS and a name region that is not empty, worked out
 * by the CLI with dns_consts), BW_VARIANT_LOG when log_consts has a rate,
 * and BW_VARIANT_FILTER when filter_hdr is one the CLI checked (never
 * without it: bw_prog_specialise). One constant read at the entry decides
 * between the program's copies, so that a filter without names and
 * without logging pays one load for them and nothing else, and no copy
 * checks the header per packet.
 */
const volatile __u32 prog_variant;

/*
 * The header of a copy for variant (a constant), or NULL in the copy for
 * a program loaded without a filter.
 */
static __always_inline const struct bw_hdr *loaded_header(const __u32 variant)
{
	const struct bw_hdr *hdr = (const struct bw_hdr *)&filter_hdr;

	if (!(variant & BW_VARIANT_FILTER))
		return NULL;
	/* clang must not fold the zero initialiser: the CLI fills it in. */
	__asm__ __volatile__("" : "+r"(hdr));
	return hdr;
}

/* Region r's derived constants (region_consts, filled in with filter_hdr). */
static __always_inline const struct bw_region_consts *consts_of(__u32 r)
{
	const struct bw_region_consts *rc =
		(const struct bw_region_consts *)&region_consts[r];

	__asm__ __volatile__("" : "+r"(rc));
	return rc;
}

#endif /* __BW_MAPS_H */
