/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bw_layout.h - the layout contract between the XDP program and the CLI:
 * the filter map's blocks (header, info, Bloom blocks), the per-CPU
 * counters, the exact tries' key, flags, families, map and pin names.
 * Types and constants only; the code that works on them is in bw_hash.h.
 *
 * Included by bpf/ (clang -target bpf) and by user/ and tests/ (gcc). Only
 * <linux/types.h> types, no libc, no vmlinux.h: both compilers must produce
 * the same layout, which the _Static_asserts below hold them to.
 *
 * Filter map layout (one BPF_MAP_TYPE_ARRAY, 64-byte values, BPF_F_MMAPABLE;
 * the program is loaded with it as its own `blocks` map, and a reload swaps
 * program and filter together on the interface):
 *
 *   block 0                 struct bw_hdr   the filter's parameters
 *   block 1                 struct bw_info  what only the CLI reads (counts)
 *   block 2 ...             regions of struct bw_block, one per target prefix
 *                           length per family, in header order
 *   block region_end[7]     (with BW_F_DNS) struct bw_dns_hdr, then the two
 *                           name regions (exact names, subtrees) up to
 *                           dns->region_end[BW_NAME_REGIONS - 1]
 *   then ...                (optional) the record area: what the CLI keeps
 *                           with the filter (struct bw_rec_area, below)
 *
 * The data path never reads block 0: the CLI copies the header into the
 * program's .rodata when it loads the program for this filter. Block 0 is
 * where the CLI, bpftool and filter images find it.
 *
 * Region r (r = family * BW_MAX_LENGTHS + i) covers blocks
 * [bw_region_start(hdr, r), hdr->region_end[r]); an unused region is empty.
 */
#ifndef __BW_LAYOUT_H
#define __BW_LAYOUT_H

#include <linux/types.h>

#define BW_MAGIC 0x4d4f4c42 /* "BLOM" read as a little-endian __u32 */
/*
 * Format 3 added the DNS block and the name regions (BW_F_DNS). A format 2
 * filter (bloomwall 0.2) is the same without them: this code still reads
 * one, runs it and rebuilds it as format 3; a bloomwall that knows only
 * format 2 refuses format 3 rather than misread it.
 */
#define BW_VERSION 3
#define BW_VERSION_MIN 2

#define BW_BLOCK_BYTES 64
#define BW_BLOCK_BITS 512
#define BW_BLOCK_WORDS 8
/* Blocks before the first region: the header and the info block. */
#define BW_HDR_BLOCKS 2

/* Target prefix lengths per family; the data path tests each one present. */
#define BW_MAX_LENGTHS 4
#define BW_FAMILIES 2
#define BW_REGIONS (BW_FAMILIES * BW_MAX_LENGTHS)
/* Bits set per key inside its block: 8 or 16 (see bw_round_bits). */
#define BW_MAX_PROBES 16
/* Largest filter the CLI builds: 2^26 blocks = 4 GiB. */
#define BW_MAX_BLOCKS (1U << 26)

enum bw_family {
	BW_V4 = 0,
	BW_V6 = 1,
};

/* bw_hdr.flags */
#define BW_F_MATCH_SRC (1U << 0) /* test the source address */
#define BW_F_MATCH_DST (1U << 1) /* test the destination address */
#define BW_F_MONITOR (1U << 2)	 /* count hits, pass them: never drop */
#define BW_F_VERIFY (1U << 3)	 /* a hit drops only if the exact trie agrees */
#define BW_F_ALLOW (1U << 4)	 /* the allowlist has entries: consult it */
#define BW_F_DNS (1U << 5)	 /* a DNS block and name regions follow */

/*
 * Block 0: everything the data path needs to know about the filter, which
 * the program gets as constants (its .rodata copy), so the verifier removes
 * the code this filter does not need. Regions are laid out back to back
 * from BW_HDR_BLOCKS on, so only their ends are stored. Each region has its
 * own probe count, sized for its own share of the target false-positive
 * rate.
 */
struct bw_hdr {
	__u32 magic;
	__u16 version;
	__u16 flags;
	__u32 seed;
	__u8 nlengths[BW_FAMILIES];
	__u8 exact_slot; /* verify mode: slot of the exact trie to use */
	__u8 pad;
	/* Target prefix lengths, longest first; [family][i] for i < nlengths. */
	__u8 plen[BW_FAMILIES][BW_MAX_LENGTHS];
	/* Bits per key, 8 or 16, [family * BW_MAX_LENGTHS + i]. */
	__u8 probes[BW_REGIONS];
	/* Exclusive end block of each region, [family * BW_MAX_LENGTHS + i]. */
	__u32 region_end[BW_REGIONS];
};

/*
 * Block 1. Read and updated by the CLI only (status, add): the data path
 * never touches it, so it may grow (within its block) without cost per
 * packet.
 */
struct bw_info {
	__u64 generation;     /* 1 for the first filter, +1 per swap */
	__u64 entries;	      /* keys set in the filter */
	__u64 source_entries; /* list entries before expansion */
	__u32 region_entries[BW_REGIONS];
	/*
	 * Target false-positive rate: the bits of the double given to --fpr,
	 * as two words in host order (bw_info_fpr() in user/bloom.c reads
	 * it). Format 2 filters from before kept it rounded to parts per
	 * billion in fpr_lo with fpr_hi zero; no rate in (0, 0.5) has a zero
	 * top word (sign, exponent, top of the mantissa), so that is how the
	 * two read apart without a new format version.
	 */
	__u32 fpr_lo;
	__u32 fpr_hi;
};

/* One cache line of the Bloom filter: a key's probes all fall in one. */
struct bw_block {
	__u64 w[BW_BLOCK_WORDS];
};

/*
 * Domain names (format 3, BW_F_DNS). The data path matches the name of a
 * DNS query (UDP to port 53) against two regions of name keys, hashed as
 * bw_hash.h's bw_name_* say: exact names (hosts and plain lines: the
 * name's exact key) and subtrees (*.name, ||name^, --subdomains: the
 * name's subtree key, which every name under it reaches on its way).
 *
 * The DNS block sits at block hdr->region_end[BW_REGIONS - 1], right after
 * the address regions; the exact region follows it, then the subtree
 * region: region n covers [n ? region_end[n - 1] : DNS block + 1,
 * region_end[n]). As with block 0, the data path never reads this block:
 * the CLI derives the program's constants from it (bw_dns_consts_init).
 */
#define BW_DNS_MAGIC 0x534e4442 /* "BDNS" read as a little-endian __u32 */
#define BW_DNS_PORT 53

enum bw_name_region {
	BW_NAME_EXACT = 0,   /* the name itself */
	BW_NAME_SUBTREE = 1, /* the name and every name under it */
	BW_NAME_REGIONS = 2,
};

/* What a blocked query gets. NULL is the default (doc/dns.md "Actions"). */
enum bw_dns_action {
	BW_DNS_NULL = 0,     /* A 0.0.0.0 / AAAA ::, NODATA for other types */
	BW_DNS_NXDOMAIN = 1, /* RCODE 3 */
	BW_DNS_REFUSED = 2,  /* RCODE 5 */
	BW_DNS_DROP = 3,     /* no answer: the client times out */
	BW_DNS_ACTIONS = 4,
};

/* bw_dns_hdr.flags */
#define BW_DNS_F_ALLOW (1U << 0) /* the name allowlist has entries */

struct bw_dns_hdr {
	__u32 magic;
	__u8 action;		      /* enum bw_dns_action */
	__u8 flags;		      /* BW_DNS_F_* */
	__u8 probes[BW_NAME_REGIONS]; /* bits per key, 8 or 16 */
	__u32 ttl;		      /* of the NULL action's answer, seconds */
	__u32 region_end[BW_NAME_REGIONS]; /* exclusive end block */
	/* CLI only, like struct bw_info: the data path never reads these. */
	__u32 region_entries[BW_NAME_REGIONS];
	__u32 pad;
	__u64 fpr_bits; /* the name regions' target rate, the double's bits */
	__u64 pad2[3];
};

/*
 * The name allowlist: a hash map from a name key to a byte, the keys
 * hashed with seed BW_NAME_ALLOW_SEED rather than the filter's, so the
 * map outlives filters as the address allowlist does. Consulted only
 * after a hit; an exact allow entry is the name's exact key, a subtree
 * one its subtree key, and any match among the queried name's keys wins
 * over any block (doc/dns.md "Precedence").
 */
#define BW_NAME_ALLOW_SEED 0

/*
 * Per-CPU counters, one slot. Every packet counts once, in passed or a
 * dropped_*: packets = passed + dropped_v4 + dropped_v6 (the CLI shows the
 * sum; one store a packet fewer on the data path). not_ip, malformed,
 * monitored, allowed, false_pos and no_filter are parts of passed.
 */
struct bw_stats {
	__u64 passed;
	__u64 dropped_v4;
	__u64 dropped_v6;
	__u64 not_ip;	 /* ARP, LLDP, MPLS ...: no address to test */
	__u64 malformed; /* truncated or bad headers: passed, never dropped */
	__u64 monitored; /* hits passed because the filter is in monitor mode */
	__u64 allowed;	 /* hits passed because the allowlist matched */
	__u64 false_pos; /* hits the exact trie refused (verify mode) */
	__u64 no_filter; /* program loaded without a valid header: passed */
};

/*
 * Who tried: a local source address whose packets the egress program
 * dropped (or passed in monitor mode) for a listed destination, the key of
 * map egress_who (an LRU hash of BW_WHO_MAX entries, value: a __u64 count
 * of such packets). IPv4 in addr[1]'s low 32 bits, as struct bw_addr.
 */
struct bw_who_key {
	__u64 addr[2]; /* host byte order: hi, lo */
	__u32 family;  /* BW_V4 or BW_V6 */
	__u32 pad;
};

/* Sources egress_who keeps; the least recently seen goes first. */
#define BW_WHO_MAX 256

/*
 * Each CPU's latest source of one family and the packets it sent since it
 * became the latest, not yet in egress_who. A run of packets from one
 * source costs a compare and an increment, not a hash lookup each; a new
 * source moves the old one's count into egress_who. Readers add both.
 *
 * The source is kept as the packet carries it, so that the data path
 * compares it without byte swaps: raw holds the address's bytes in
 * packet order (IPv6: all 16; IPv4: its 4 as a __u32 loaded from the
 * header, in raw[1]'s low 32 bits). bw_who_latest_key() (bw_hash.h)
 * makes the struct bw_who_key of it. A slot never used holds address 0 with 0
 * packets, which is what it says.
 */
struct bw_who_latest {
	__u64 raw[2];
	__u64 packets;
};

/*
 * The egress program's per-CPU value (map egress_stats): its counters,
 * the fields of struct bw_stats, then who tried's latest source of each
 * family. One lookup a packet finds both.
 */
struct bw_egress_stats {
	struct bw_stats counts;
	struct bw_who_latest latest[BW_FAMILIES];
};

/*
 * The same for the XDP program with --match dst (a router's LAN side): the
 * sources of arriving packets it dropped (or, in monitor mode, passed)
 * because their destination is listed, in map ingress_who, same key,
 * value and bound.
 */

/*
 * Per-CPU DNS counters (map dns_stats), beside struct bw_stats: a dropped
 * query (blocked, or a first fragment that cannot be judged) also counts
 * once there, as dropped_v4 or dropped_v6 (it never reaches the host,
 * answered or not), an allowed, malformed or passed one as passed.
 */
struct bw_dns_stats {
	__u64 queries; /* standard queries whose name was tested */
	__u64 blocked
		[BW_DNS_ACTIONS]; /* by the action taken (enum bw_dns_action) */
	__u64 allowed;	 /* a listed name the name allowlist let through */
	__u64 monitored; /* a listed name passed in monitor mode */
	/*
	 * UDP to port 53 that does not parse as DNS, or IPv6 with more
	 * extension headers than the program follows: passed.
	 */
	__u64 malformed;
	__u64 not_query; /* DNS that is no standard query (QR, OPCODE): passed */
	__u64 answer_failed; /* an answer that could not be built: dropped */
	/*
	 * Later fragments of UDP datagrams (no port to read): passed; the
	 * first fragment is the one judged.
	 */
	__u64 fragments;
	/* A first fragment to port 53 not holding its whole question: dropped */
	__u64 frag_dropped;
	/*
	 * A blocked query the action would answer but that must not be: a
	 * first fragment, a broadcast, multicast or unspecified address or
	 * a group MAC on either side, a routing header with segments left.
	 * Dropped.
	 */
	__u64 not_answered;
};

/*
 * Per-CPU count of blocked DNS queries by family (map dns_drops): each is
 * also one of stats' dropped_v4 or dropped_v6, and one of dns_stats'
 * blocked, answer_failed, frag_dropped or not_answered. What tells address drops from DNS drops per
 * family (bloomwall_packets_total reason="address" and reason="dns").
 */
struct bw_dns_drops {
	__u64 dropped[BW_FAMILIES]; /* [BW_V4], [BW_V6] */
};

/*
 * The drop log (bpf/droplog.h). A program loaded with logging on (its
 * .rodata struct bw_log_consts has a rate) writes one struct bw_log_event
 * per drop it samples into the ring buffer log_ring: a token bucket per
 * CPU, kept in the CPU's struct bw_log_stats, lets through at most rate
 * events a second on each CPU after a burst of burst; the rest, and those
 * a full ring refuses, are counted there. Both maps outlive reloads as
 * stats does. With rate 0 the verifier removes every logging instruction.
 */
#define BW_LOG_RING_BYTES (256 * 1024)
#define BW_LOG_NAME_MAX 256 /* wire bytes of a query name kept, root incl. */
#define BW_LOG_RATE_DEFAULT 10
#define BW_LOG_RATE_MAX 1000000000U

/*
 * The bucket's credit is counted in 2^-BW_LOG_CREDIT_SHIFT of a jiffy:
 * the clock is the kernel's tick count (bpf_jiffies64, one load once
 * inlined), which moves when the coarse clock does.
 */
#define BW_LOG_CREDIT_SHIFT 32

/* What the program was told (bw_log_consts_init in user/kernel/prog_spec.c). */
struct bw_log_consts {
	__u32 rate;  /* events a second per CPU; 0: no logging code */
	__u32 burst; /* events the full bucket holds */
	__u64 cost; /* credit one event costs: HZ << BW_LOG_CREDIT_SHIFT / rate */
	__u64 cap; /* the bucket's size: burst * cost */
};

/* Why a packet is in the log (bw_log_event.reason). */
enum bw_log_reason {
	BW_LOG_ADDRESS = 1, /* a listed address */
	BW_LOG_DNS = 2,	    /* a query for a listed name */
};

/* What happened to it (bw_log_event.action). */
enum bw_log_action {
	BW_LOG_DROP = 1,    /* dropped */
	BW_LOG_MONITOR = 2, /* a hit passed because of monitor mode */
	BW_LOG_ANSWER = 3,  /* a query answered in place (XDP_TX) */
};

/*
 * One sampled drop. Addresses as the data path keys them: host order,
 * IPv4 in lo's low 32 bits. name: the question's name in wire format
 * (length-prefixed labels), name_len bytes of it; 0 when not DNS.
 */
struct bw_log_event {
	__u64 time_ns;	  /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 generation; /* of the filter that judged it */
	__u32 ifindex;
	__u8 family; /* BW_V4 or BW_V6 */
	__u8 proto;  /* IPPROTO_TCP, _UDP, ...; 0 when not seen */
	__u8 reason; /* enum bw_log_reason */
	__u8 action; /* enum bw_log_action */
	__u16 sport; /* host order; 0 without TCP or UDP */
	__u16 dport;
	__u16 name_len;
	__u16 pad;
	__u64 src[2]; /* hi, lo */
	__u64 dst[2];
	__u8 name[BW_LOG_NAME_MAX];
	/*
	 * Egress only (the TC program): the socket that sent the packet, by
	 * its cookie (bpf_get_socket_cookie: what `ss -e` prints as sk:, in
	 * hex), 0 when the packet has none; its owner's uid, BW_LOG_NO_UID
	 * when it has no full socket. Never a pid: the task running the TC
	 * hook is the sender only for a send straight from its syscall.
	 */
	__u64 cookie;
	__u32 uid;
	__u8 direction; /* enum bw_log_direction; 0 in older programs' events */
	__u8 pad2[3];
};

/* Where the program that logged an event sits (bw_log_event.direction). */
enum bw_log_direction {
	BW_LOG_INGRESS = 0, /* the XDP program: an arriving packet */
	BW_LOG_EGRESS = 1,  /* the TC program: a leaving packet */
};

#define BW_LOG_NO_UID 0xffffffffU

/* The events of programs from before direction: shorter, read as ingress. */
#define BW_LOG_EVENT_MIN __builtin_offsetof(struct bw_log_event, cookie)

/*
 * Per-CPU log counters and bucket (map log_stats): the CLI sums the first
 * three over CPUs; credit and last are the bucket's, the data path's
 * alone.
 */
struct bw_log_stats {
	__u64 logged;	 /* events written to the ring */
	__u64 lost_rate; /* drops the bucket had no token for */
	__u64 lost_ring; /* events the ring had no room for */
	__u64 credit;	 /* the bucket: credit left at last */
	__u64 last;	 /* jiffies; 0: never used, a full bucket */
};

#define BW_LOG_COUNTERS 3

/*
 * The program's copies (its .rodata prog_variant): names, logging, both.
 * BW_VARIANT_FILTER says the loader checked filter_hdr: a program without
 * it (its .rodata left zero) has no filter and passes everything.
 */
#define BW_VARIANT_NAMES (1U << 0)
#define BW_VARIANT_LOG (1U << 1)
#define BW_VARIANT_FILTER (1U << 2)

/*
 * Exact LPM tries (allowlist, verify mode) hold both families under one
 * key, the family first: the trie matches bits from the start of family,
 * so prefixlen counts the 32 bits of family and pad before the address's
 * own length, and no IPv6 prefix (not even ::ffff:0:0/96, where IPv4 used
 * to be mapped) can cover an IPv4 address. addr is in network byte order,
 * as the trie compares bytes; IPv4 fills its first 4 bytes, the rest zero.
 */
struct bw_lpm_key {
	__u32 prefixlen;
	__u8 family; /* BW_LPM_FAMILY_V4 or _V6, as bpftool shows it */
	__u8 pad[3]; /* zero: part of every prefix */
	__u8 addr[16];
};

#define BW_LPM_FAMILY_V4 4
#define BW_LPM_FAMILY_V6 6
/* Bits of family and pad before the address in prefixlen. */
#define BW_LPM_ADDR_OFFSET 32
/* Allowlist capacity; the trie allocates per entry, not up front. */
#define BW_ALLOW_MAX (1U << 20)
/*
 * The name allowlist's least capacity. A hash map allocates its bucket
 * array (16 bytes a bucket) for max_entries up front, BPF_F_NO_PREALLOC
 * or not: 64 KB here, where BW_ALLOW_MAX would cost 16.8 MB on every
 * interface. The CLI sizes it from the allow names with room
 * (bw_allow_names_room), and a reload that needs more makes a larger one.
 */
#define BW_ALLOW_NAMES_MIN 4096
/* Verify mode keeps two exact tries: the live one and the next one. */
#define BW_EXACT_SLOTS 2

/*
 * The record area: blocks after the last region (from block
 * hdr->region_end[BW_REGIONS - 1] on, to the end of the map) that only the
 * CLI reads, so what it keeps about a filter (the entries added at run
 * time, the lists and options it was built from) is swapped in with the
 * filter in the same atomic step, and dies with it. The data path never
 * reads past its regions. A filter without the area ends at its last
 * region, or has only zero blocks there.
 *
 *   block region_end[7]     struct bw_rec_area
 *   the blocks after it     the records, bytes records_len, back to back:
 *                           each a struct bw_rec_head, then len bytes of
 *                           body, then zeros to the next multiple of 8
 *
 * A reader skips record types it does not know (by len), so a new type
 * needs no new version; a change to an existing type's body does. Every
 * length is bounded by the map's size: a reader refuses an area whose
 * lengths point past it.
 */
#define BW_REC_MAGIC 0x43455242 /* "BREC" read as a little-endian __u32 */
#define BW_REC_VERSION 1
#define BW_REC_ALIGN 8
/* len rounded up to a record's alignment. */
static inline __u64 bw_rec_padded(__u64 len)
{
	return (len + BW_REC_ALIGN - 1) & ~(__u64)(BW_REC_ALIGN - 1);
}

/*
 * The least room an area keeps for its add log, in bytes: some 6,500
 * addresses added one at a time (a fail2ban's bans) before a rebuild
 * folds the log.
 */
#define BW_REC_LOG_ROOM 262144

struct bw_rec_area {
	__u32 magic;
	__u16 version;
	__u16 pad;
	__u32 nrecords;
	/*
	 * Entries marked BW_REC_PREFIX_GONE or BW_REC_NAME_GONE in place
	 * since the area was written (0 as written): a daemon that keeps the
	 * added entries live reads the area again when it moves.
	 */
	__u32 marks;
	__u64 records_len; /* bytes of records after this block */
};

struct bw_rec_head {
	__u16 type;  /* enum bw_rec_type */
	__u16 flags; /* zero: for later use */
	__u32 len;   /* bytes of the body that follows, unpadded */
};

enum bw_rec_type {
	/* Entries added by 'bloomwall add': an array of struct bw_rec_prefix. */
	BW_REC_ADDED = 1,
	/* The build options of the filter: one struct bw_rec_build. */
	BW_REC_BUILD = 2,
	/* One list file the filter was built from: its path, no NUL. */
	BW_REC_LIST = 3,
	/*
	 * Names added by 'bloomwall add': entries back to back, each a __u8
	 * kind (enum bw_name_region, | BW_REC_NAME_GONE), a __u8 length,
	 * then that many bytes of the checked, folded, dotted name.
	 */
	BW_REC_ADDED_NAMES = 4,
	/*
	 * One list the filter was built from, as it was read: a struct
	 * bw_rec_source, then its path (no NUL) to the end of the body.
	 * Written in place of BW_REC_LIST, which older filters hold.
	 */
	BW_REC_SOURCE = 5,
	/* When and how the filter was built: one struct bw_rec_origin. */
	BW_REC_ORIGIN = 6,
	/*
	 * The DNS options of the filter: one struct bw_rec_dns. Kept also
	 * when the filter has no names (no DNS block to hold them), so that
	 * a later rebuild that brings names in answers as the operator said.
	 */
	BW_REC_DNS = 7,
	/*
	 * One allowlist file (--allow FILE) the running allowlist was read
	 * from, as it was read: the body of BW_REC_SOURCE. A filter without
	 * these records has none recorded (an older bloomwall built it).
	 */
	BW_REC_ALLOW_SOURCE = 8,
	/*
	 * The last change to the filter since it was built (add, remove,
	 * allow, unallow): one struct bw_rec_change. BW_REC_ORIGIN keeps
	 * saying how it was built; a rebuild drops this record.
	 */
	BW_REC_CHANGE = 9,
	/* The keys the regions were sized for at build: struct bw_rec_sized. */
	BW_REC_SIZED = 10,
	/*
	 * When added entries end ('add --timeout'): an array of struct
	 * bw_rec_expiry, one for each BW_REC_ADDED entry that expires, by
	 * its prefix (an entry without one never expires). Apart from
	 * BW_REC_ADDED so that an older bloomwall reads the entries (as
	 * permanent) and carries this record over; one naming no added
	 * entry (an older bloomwall removed it) is ignored.
	 */
	BW_REC_ADDED_EXPIRES = 11,
	/*
	 * The image the filter came from: one struct bw_rec_image. 'build
	 * -o' writes its serial and time; 'load' stamps who signed it.
	 */
	BW_REC_IMAGE = 12,
	/*
	 * When added names end ('add --timeout'): entries back to back, each
	 * a __u8 kind (enum bw_name_region), a __u8 length, that many bytes
	 * of the name as BW_REC_ADDED_NAMES holds it, then the __u64 expiry
	 * (Unix seconds, 1 to BW_REC_EXPIRES_MAX, host order, unaligned: a
	 * reader copies it out). One for each added name that expires (a
	 * name without one never expires). Apart from BW_REC_ADDED_NAMES,
	 * as BW_REC_ADDED_EXPIRES is from BW_REC_ADDED and for the same
	 * reasons: an older bloomwall reads the names as permanent and
	 * carries this record over; one naming no added name is ignored.
	 */
	BW_REC_ADDED_NAME_EXPIRES = 13,
	/*
	 * The add log: entries a running watch added in place, after the
	 * area was written (see "The add log" below). An array of struct
	 * bw_rec_expiry, expires 0 meaning never; the family byte may get
	 * BW_REC_PREFIX_GONE.
	 */
	BW_REC_LOG_ADDED = 14,
	/*
	 * The add log's names: entries back to back, each as in
	 * BW_REC_ADDED_NAME_EXPIRES (kind, length, name, __u64 expiry), but
	 * with an expiry of 0 meaning never and a kind that may get
	 * BW_REC_NAME_GONE.
	 */
	BW_REC_LOG_NAMES = 15,
	/*
	 * The owners of added prefixes ('add --owner'): an array of struct
	 * bw_rec_owner, each one owner's claim on a BW_REC_ADDED entry,
	 * with that owner's end. An entry with no claims has the anonymous
	 * owner alone (an add without --owner); one with claims ends at the
	 * latest of them (its BW_REC_ADDED_EXPIRES says so too, for an
	 * older bloomwall, which carries this record over). A claim naming
	 * no added entry is ignored.
	 */
	BW_REC_OWNERS = 16,
	/*
	 * The add log's owners: as BW_REC_OWNERS, appended with the
	 * BW_REC_LOG_ADDED record of their entries, right after it. An
	 * entry's claims are those after its last log entry (a log entry
	 * without them: the anonymous owner alone), or the area's when the
	 * log does not name it.
	 */
	BW_REC_LOG_OWNERS = 17,
};

/*
 * The add log: room the area keeps after its records (bw_records_blocks
 * sizes a map for it), where a running watch appends the entries that
 * 'bloomwall add' hands it, in place, with no swap. Each log record is a
 * struct bw_rec_head and its body, padded, written past records_len:
 * the body first, then the head by one aligned 8-byte store, so that a
 * reader sees a record whole or not at all (a writer killed before the
 * head leaves nothing). The log ends at the first zero head. A reader
 * applies the log after the records, in order: an entry's last
 * occurrence decides whether it is added (gone marks it out) and when it
 * ends. The next writer of the area folds the log into the records. An
 * older bloomwall stops at records_len and reads the filter without the
 * log.
 */

/* A prefix of either family; addr in network byte order, IPv4 first 4. */
struct bw_rec_prefix {
	__u8 family; /* BW_V4 or BW_V6, | BW_REC_PREFIX_GONE */
	__u8 plen;
	__u8 pad[6];
	__u8 addr[16];
};

/*
 * In a BW_REC_ADDED entry's family: the entry was taken out of the running
 * filter in place ('bloomwall remove' with a watch running), by this one
 * byte's store, so that a reader sees it in or out, never torn, and a CLI
 * killed between two entries leaves each whole. A reader skips it (an
 * older bloomwall refuses the area: a family it does not know), the next
 * writer of the area leaves it out; its BW_REC_ADDED_EXPIRES entry, if
 * any, then names no added entry and is ignored.
 */
#define BW_REC_PREFIX_GONE 0x80

/*
 * In a BW_REC_ADDED_NAMES entry's kind: the name was taken out of the
 * running filter in place, as BW_REC_PREFIX_GONE says of an entry, by one
 * byte's store. A reader skips it (an older bloomwall refuses the area: a
 * kind it does not know), the next writer leaves it out; its
 * BW_REC_ADDED_NAME_EXPIRES entry, if any, then names no added name and is
 * ignored.
 */
#define BW_REC_NAME_GONE 0x80

/* An added entry's end: Unix seconds, 1 to BW_REC_EXPIRES_MAX. */
struct bw_rec_expiry {
	struct bw_rec_prefix prefix;
	__u64 expires;
};

/* The longest owner's name: 1 to this many of [A-Za-z0-9._-]. */
#define BW_REC_OWNER_MAX 32

/* One owner's claim on an added prefix (BW_REC_OWNERS). */
struct bw_rec_owner {
	struct bw_rec_prefix prefix;
	__u64 expires;		     /* the owner's end, 0: never */
	char name[BW_REC_OWNER_MAX]; /* NUL-padded; all zero: anonymous */
};

/* 9999-12-31T23:59:59Z: anything later is no time a reader can print. */
#define BW_REC_EXPIRES_MAX 253402300799ULL

/* The options a rebuild without new lists reuses (not the seed). */
struct bw_rec_build {
	__u64 fpr_bits; /* the --fpr double's bits, host order */
	__u16 flags;	/* BW_F_MATCH_*, BW_F_MONITOR, BW_F_VERIFY */
	__u8 max_lengths[BW_FAMILIES]; /* 0: the default */
	__u8 opts;		       /* BW_REC_OPT_* */
	__u8 pad[3];
};

/*
 * What a list was when the filter was built from it (provenance: status
 * tells whether the file has changed since, query --why reads it again).
 * hash: XXH3-128 of the file's bytes, canonical (big-endian) form.
 */
struct bw_rec_source {
	__u64 size;	/* bytes read */
	__u64 mtime_ns; /* the file's mtime, ns since the epoch; 0: a pipe */
	__u64 lines;
	__u64 entries; /* entries the list gave, before merging */
	__u8 hash[16];
};

/* How a filter came to be (bw_rec_origin.how). */
enum bw_origin {
	BW_ORIGIN_ATTACH = 1,
	BW_ORIGIN_RELOAD = 2,
	BW_ORIGIN_LOAD = 3,   /* from an image; image_hash says which */
	BW_ORIGIN_WATCH = 4,  /* a reload by `bloomwall watch` */
	BW_ORIGIN_CHANGE = 5, /* add, remove, allow, unallow: a changed copy */
};

struct bw_rec_origin {
	__u64 time_ns; /* CLOCK_REALTIME when built */
	__u8 how;      /* enum bw_origin */
	__u8 pad[7];
	__u8 image_hash[16]; /* XXH3-128 of the image file; zero if none */
};

/* The command of the last change (bw_rec_change.verb). */
enum bw_change_verb {
	BW_CHANGE_ADD = 1,
	BW_CHANGE_REMOVE = 2,
	BW_CHANGE_ALLOW = 3,
	BW_CHANGE_UNALLOW = 4,
};

struct bw_rec_change {
	__u64 time_ns; /* CLOCK_REALTIME of the last change */
	__u8 how;      /* BW_ORIGIN_CHANGE */
	__u8 verb;     /* enum bw_change_verb */
	__u8 pad[2];
	__u32 changes; /* changes since the build, this one included */
};

/*
 * What a build sized the regions for: the keys of each region then, their
 * sum, and the name keys (bw_info counts keys added since too).
 */
struct bw_rec_sized {
	__u64 entries;	    /* address keys */
	__u64 name_entries; /* name keys */
	__u32 region_entries[BW_REGIONS];
	__u32 name_region_entries[BW_NAME_REGIONS];
};

/*
 * What an image is, for the rollback check and for status: its serial
 * (--serial, else its lists' newest mtime in seconds) and time (in ns:
 * SOURCE_DATE_EPOCH, else that mtime), which the builder writes with
 * signer and flags zero; load fills those in for the running filter.
 */
struct bw_rec_image {
	__u64 serial;
	__u64 time_ns;
	__u8 signer[8]; /* key id of the key that signed the image */
	__u8 flags;	/* BW_REC_IMAGE_* */
	__u8 pad[7];
};

/* The image was signed (by signer). */
#define BW_REC_IMAGE_SIGNED (1U << 0)
/* Its signature was checked against a trusted key when it was loaded. */
#define BW_REC_IMAGE_VERIFIED (1U << 1)

#define BW_REC_OPT_MASK_HOST_BITS (1U << 0)
#define BW_REC_OPT_SKIP_INVALID (1U << 1)

/* The DNS options a rebuild without new ones reuses. */
struct bw_rec_dns {
	__u8 action; /* enum bw_dns_action */
	__u8 opts;   /* BW_REC_DNS_* */
	__u16 pad;
	__u32 ttl; /* seconds */
};

#define BW_REC_DNS_SUBDOMAINS (1U << 0) /* --subdomains */

/* Map names, the same in the BPF object, the pins and bpftool's listing. */
#define BW_MAP_BLOCKS blocks
#define BW_MAP_STATS stats
#define BW_MAP_ALLOW allow
#define BW_MAP_EXACT exact
#define BW_MAP_ALLOW_NAMES allow_names
#define BW_MAP_DNS_STATS dns_stats
#define BW_MAP_DNS_DROPS dns_drops
#define BW_MAP_LOG_RING log_ring
#define BW_MAP_LOG_STATS log_stats
/* The TC egress program's own maps (the others it shares with XDP's). */
#define BW_MAP_EGRESS_STATS egress_stats
#define BW_MAP_EGRESS_WHO egress_who
/* Egress DNS counters (struct bw_dns_stats): queries leaving the host. */
#define BW_MAP_EGRESS_DNS egress_dns
/* The XDP program's who tried, for --match dst. */
#define BW_MAP_INGRESS_WHO ingress_who
#define BW_PIN_ROOT "/sys/fs/bpf/bloomwall"

#define __bw_str(x) #x
#define bw_textify(x) __bw_str(x)

/*
 * The header and the info block each live in one map value. Both are
 * exactly one block today: a new header field takes the room of pad; the
 * info block is full, so more there means a new format version.
 */
_Static_assert(BW_BLOCK_BYTES * 8 == BW_BLOCK_BITS, "block bytes vs bits");
_Static_assert(BW_BLOCK_WORDS * 64 == BW_BLOCK_BITS, "block words vs bits");
_Static_assert(sizeof(struct bw_block) == BW_BLOCK_BYTES,
	       "struct bw_block is one map value");
_Static_assert(sizeof(struct bw_hdr) <= BW_BLOCK_BYTES,
	       "struct bw_hdr fits block 0");
_Static_assert(sizeof(struct bw_info) <= BW_BLOCK_BYTES,
	       "struct bw_info fits block 1");
_Static_assert(sizeof(struct bw_dns_hdr) == BW_BLOCK_BYTES,
	       "struct bw_dns_hdr is one block");
_Static_assert(sizeof(struct bw_dns_stats) % sizeof(__u64) == 0,
	       "struct bw_dns_stats is whole __u64 counters");
/* The CLI sums and names the counters as an array of __u64. */
_Static_assert(sizeof(struct bw_stats) % sizeof(__u64) == 0,
	       "struct bw_stats is whole __u64 counters");
_Static_assert(sizeof(struct bw_log_event) % sizeof(__u64) == 0,
	       "struct bw_log_event is 8-byte aligned in the ring");
_Static_assert(BW_LOG_COUNTERS * sizeof(__u64) ==
		       __builtin_offsetof(struct bw_log_stats, credit),
	       "the log counters come first");
/* The LPM trie's key_size: prefix length, family word, 16 of address. */
_Static_assert(sizeof(struct bw_lpm_key) == 24, "struct bw_lpm_key size");
_Static_assert(sizeof(struct bw_who_key) == 24, "struct bw_who_key size");
_Static_assert(sizeof(struct bw_who_latest) == 24, "struct bw_who_latest size");
_Static_assert(sizeof(struct bw_egress_stats) ==
		       sizeof(struct bw_stats) +
			       2 * sizeof(struct bw_who_latest),
	       "struct bw_egress_stats size");
_Static_assert(__builtin_offsetof(struct bw_lpm_key, addr) * 8 ==
		       32 + BW_LPM_ADDR_OFFSET,
	       "the address starts BW_LPM_ADDR_OFFSET bits into the prefix");
_Static_assert(sizeof(struct bw_rec_area) <= BW_BLOCK_BYTES,
	       "struct bw_rec_area fits its block");
_Static_assert(sizeof(struct bw_rec_head) == BW_REC_ALIGN &&
		       sizeof(struct bw_rec_prefix) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_build) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_source) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_origin) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_dns) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_change) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_sized) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_expiry) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_image) % BW_REC_ALIGN == 0 &&
		       sizeof(struct bw_rec_owner) % BW_REC_ALIGN == 0,
	       "records stay 8-byte aligned");
/* region_end holds block numbers up to BW_MAX_BLOCKS in a __u32. */
_Static_assert(BW_MAX_BLOCKS <= 0xffffffffU - BW_HDR_BLOCKS,
	       "block numbers fit region_end");
_Static_assert(BW_MAX_LENGTHS <= 255 && BW_MAX_PROBES <= 255,
	       "nlengths and probes are __u8");

#endif /* __BW_LAYOUT_H */
