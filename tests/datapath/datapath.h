/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Shared fixture of the datapath tests: the loaded skeleton, a packet
 * builder, BPF_PROG_TEST_RUN with counter deltas, and filters committed into
 * the program's outer map (built by user/filter/builder.c or by hand).
 *
 * Packet addresses in struct bw_prefix are host byte order, as in
 * user/lists/list.h; the builder writes them to the wire in network order.
 */
#ifndef __BW_DATAPATH_H
#define __BW_DATAPATH_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <linux/types.h>

#include <linux/bpf.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "lists/list.h"
#include "kernel/egress.h"
#include "kernel/stats.h"
#include "kernel/swap.h"

/*
 * Largest frame most tests build, and the least a buffer for the builder
 * holds (test_frags.c gives it a larger one for its jumbo frames).
 */
#define BW_PKT_MAX 512
/* .ihl that writes a literal 0 (a zero .ihl means the default 5). */
#define BW_PKT_IHL_ZERO 0x10
/* Tags the builder writes: one more than the program parses. */
#define BW_PKT_TAGS 3

struct bw_dp {
	struct bloomwall *skel;
	int prog_fd;
	int allow_fd; /* an allowlist a swap gave the program, else -1 */
	int stats_fd;
	struct bw_maps maps; /* the skeleton's, for bw_filter_commit */
	struct bw_installer installer; /* makes prog_fd the committed one */
	int owned_fd;		       /* prog_fd once a commit replaced it */
	int ncpus;
	/*
	 * bw_dp_open_egress(): the runs go through the TC egress program,
	 * its actions read as XDP's (TC_ACT_SHOT as XDP_DROP, TC_ACT_OK as
	 * XDP_PASS), its counters are egress_stats, and every commit loads
	 * an egress program for the filter with these maps.
	 */
	bool tc;
	struct bw_egress egress;
};

/*
 * Opens and loads the skeleton (fresh maps: empty filter slot, zero
 * counters). Marks the test skipped and returns false when not root; a
 * failed load is an assertion failure.
 */
bool bw_dp_open(struct bw_dp *dp);

/* bw_dp_open(), with the runs through the egress program (tc above). */
bool bw_dp_open_egress(struct bw_dp *dp);
void bw_dp_close(struct bw_dp *dp);

/* Sum of the per-CPU counters. 0 or -errno. */
int bw_dp_stats(struct bw_dp *dp, struct bw_stats *sum);

/* One BPF_PROG_TEST_RUN of the frame. 0 or -errno; XDP action in *retval. */
int bw_dp_run(struct bw_dp *dp, const void *pkt, size_t len, __u32 *retval);

/*
 * The outcome of one packet: an action and exactly which counters move.
 * Every one passes (+1 passed and the counter it names) but the drops.
 */
enum bw_outcome {
	BW_OUT_PASS, /* tested, not listed (a Bloom miss) */
	BW_OUT_NOT_IP,
	BW_OUT_MALFORMED,
	BW_OUT_NO_FILTER,
	BW_OUT_MONITOR,
	BW_OUT_ALLOWED,	  /* a hit the allowlist passed */
	BW_OUT_FALSE_POS, /* a hit verify mode's exact trie refused */
	BW_OUT_DROP_V4,	  /* +1 dropped_v4 only */
	BW_OUT_DROP_V6,	  /* +1 dropped_v6 only */
};

const char *bw_outcome_str(enum bw_outcome o);

/* The counters an outcome moves: +1 in passed or a dropped_*, and its reason. */
void bw_outcome_delta(enum bw_outcome o, struct bw_stats *d);

/*
 * Runs the frame once and asserts its action and that the counters moved
 * by exactly the outcome's delta (+1 in passed or a dropped_*, and in the
 * reason it names).
 */
bool bw_dp_expect(struct bw_dp *dp, const char *name, const void *pkt,
		  size_t len, enum bw_outcome want);

/* Runs the frame and returns its outcome from the action alone (bulk runs). */
int bw_dp_verdict(struct bw_dp *dp, const void *pkt, size_t len);

/*
 * Packet recipe. Zeroed fields take defaults: no tags, IPv4/IPv6 from the
 * source's family, ihl 5, version 4 or 6, a UDP header and payload bytes.
 */
struct bw_pkt_spec {
	const char *src;	 /* text address; its family picks IPv4/IPv6 */
	const char *dst;	 /* default: 192.0.2.1 or 2001:db8::1 */
	__u16 tpid[BW_PKT_TAGS]; /* VLAN TPIDs, outer first; 0 ends the list */
	__u16 ethertype;	 /* non-IP frames: this, and nothing after */
	__u8 ihl;	   /* IPv4 header words, 0 = 5; options are NOPs */
	__u8 version;	   /* override the IP version nibble */
	__u16 frag;	   /* IPv4 frag_off field, host order: flags | offset */
	bool v6_frag;	   /* IPv6: add a Fragment extension header */
	__u16 v6_frag_off; /* its offset field, host order: offset << 3 | M */
	__u16 payload;	   /* bytes after the UDP header (or fragment data) */
};

/* Parses a text address; aborts the test binary on a typo in a test. */
struct bw_prefix bw_addr(const char *text);

/* Builds the frame into buf (BW_PKT_MAX bytes); returns its length. */
size_t bw_pkt_build(const struct bw_pkt_spec *s, void *buf);

/* The same, with numeric addresses (the bulk list tests). */
size_t bw_pkt_build_addr(const struct bw_pkt_spec *s,
			 const struct bw_prefix *src,
			 const struct bw_prefix *dst, void *buf);

/* Bytes of the headers that the XDP program must see to judge the frame. */
size_t bw_pkt_needed(const struct bw_pkt_spec *s);

/*
 * Loads the program for filter m as its header is now and puts it in
 * place (bw_filter_commit with the fixture's maps and installer): how a
 * test makes a header it wrote by hand take effect. 0 or -errno.
 */
int bw_dp_commit(struct bw_dp *dp, const struct bw_filter_map *m);

/*
 * Builds a filter for a finished list with user/filter/builder.c, fills it into a
 * new block map and commits it. m stays open (mmapped) for
 * bw_filter_lookup(); the caller closes it. 0 or -errno.
 */
int bw_dp_commit_list(struct bw_dp *dp, const struct bw_list *l,
		      const struct bw_build_opts *o, struct bw_filter_map *m);

/*
 * The same for a NULL-terminated array of text prefixes ("10.0.0.0/8",
 * "2001:db8::1"), with a fixed seed so that verdicts are reproducible.
 */
int bw_dp_commit_addrs(struct bw_dp *dp, const char *const *addrs, __u16 flags,
		       struct bw_filter_map *m);

/*
 * Classic little-endian pcap with Ethernet frames only (test_pcap.c):
 * opens it past its header. 0 or -errno.
 */
int bw_pcap_open(const char *path, FILE **fp);

/* Next frame into buf; its length, 0 at the end, -EINVAL if cut short. */
long bw_pcap_next(FILE *fp, __u8 *buf, size_t size);

#endif /* __BW_DATAPATH_H */
