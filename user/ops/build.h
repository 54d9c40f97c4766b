/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Building from lists into the kernel: the operator's build options, a
 * new filter map (and in verify mode its exact trie) built from them, and
 * the name allowlist staged around the swap that puts it in. attach,
 * reload and build use it.
 */
#ifndef __BW_BUILD_H
#define __BW_BUILD_H

#include <stdbool.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/builder.h"
#include "kernel/swap.h"

/* --allow may be given this many times. */
#define BW_MAX_ALLOW_FILES 32

/* What the operator asked of a build: the options attach and reload share. */
struct bw_build_args {
	double fpr;
	__u32 seed;
	__u16 match; /* BW_F_MATCH_* bits, 0 when not given */
	bool fpr_set;
	bool seed_set;
	bool skip_invalid;
	bool monitor;
	bool enforce; /* reload only: leave monitor mode */
	bool mask_host_bits;
	bool verify;
	bool forget_added; /* reload only: drop the entries kept from add */
	/* DNS: each kept from the running filter unless given. */
	bool dns_action_set;
	__u8 dns_action; /* enum bw_dns_action */
	bool dns_ttl_set;
	__u32 dns_ttl;
	bool subdomains;    /* --subdomains */
	bool no_subdomains; /* --no-subdomains (reload) */
	/* --max-lengths per family; 0 when not given */
	unsigned int max_lengths[BW_FAMILIES];
	const char *allow[BW_MAX_ALLOW_FILES]; /* --allow FILE, in order */
	int nallow;
};

/*
 * A build request from the operator's options: fpr (when --fpr is not
 * given), filter flags (BW_F_VERIFY added with --verify) and generation
 * come from the caller.
 */
void bw_build_req_from_args(struct bw_build_req *req, const char *iface,
			    const struct bw_build_args *ba,
			    const char *const *lists, int nlists, double fpr,
			    __u16 flags, __u64 generation);

/*
 * Builds req's lists into a new filter map and, in verify mode, a new
 * exact trie of the merged prefixes, and prints a one-line summary.
 * Nothing in the kernel changes: the caller commits b or closes it. On
 * failure b is closed.
 */
int bw_build_lists(const struct bw_build_req *req, struct bw_built *b);

struct bw_rec_dns;
struct bw_records;

/*
 * The DNS options a filter keeps: its BW_REC_DNS record, else its DNS
 * block, else the defaults (mem, rec may be NULL).
 */
void bw_dns_settings(const void *mem, const struct bw_records *rec,
		     struct bw_rec_dns *d);

/* d's options into req where ba does not give them. */
void bw_build_req_dns(struct bw_build_req *req, const struct bw_build_args *ba,
		      const struct bw_rec_dns *d);

/*
 * Around a swap: the lists' allow entries (and the operator's, when
 * --allow replaces them) go into the name allowlist map fd before the
 * swap, those no longer listed out after it. A program without the map
 * (fd -1) gets a warning when there were entries for it.
 */
int bw_stage_allow_names(const char *iface, int fd, const struct bw_list *lists,
			 const struct bw_list *operator);
void bw_prune_allow_names(const char *iface, int fd,
			  const struct bw_list *lists,
			  const struct bw_list *operator);

/*
 * --log-rate: the drop log's rate (events a second per CPU, 0: off) of
 * every program this process loads from now on (kernel/prog_spec.h).
 */
void bw_build_set_log_rate(__u32 rate);

#endif /* __BW_BUILD_H */
