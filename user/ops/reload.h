/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The reload operation: build the new filter from lists into a new filter
 * map (and, in
 * verify mode, its exact trie), stage, swap it in on the interface (swap.h)
 * and report. `reload` and `remove` use all of it; `attach` its build step.
 */
#ifndef __BW_RELOAD_H
#define __BW_RELOAD_H

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

/*
 * Prints a build's one line: "LABEL: filter generation N: ... target fpr
 * P%"; JSON the object "filter" with the same figures. Warns when the lists
 * hold no entries.
 */
void bw_build_report(const struct bw_build_req *req, const struct bw_build *b);

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

/* The options a filter records (not its seed) as a rebuild's (cmd_remove.c). */
void bw_args_from_record(const struct bw_rec_build *rb,
			 struct bw_build_args *ba);

/* Whether the recorded lists can be read again; says why not. */
int bw_check_rebuildable(const char *iface, const struct bw_records *rec);

struct bw_image;

struct bw_reload_req {
	const char *iface;
	int ifindex;
	const struct bw_build_args *args;
	const char *const *lists;
	int nlists;
	/* Kept adds to leave out of the new filter (bloomwall remove). */
	const struct bw_prefix *remove;
	size_t nremove;
	/* Kept names to leave out (domain entries), or NULL. */
	const struct bw_list *remove_names;
	/* Names to keep from now on (bloomwall add), or NULL. */
	const struct bw_list *add_names;
	/* bloomwall load: this image's filter instead of the lists' */
	const struct bw_image *image;
	const char *image_path;
	/*
	 * Provenance: how the new filter came to be (enum bw_origin; 0:
	 * BW_ORIGIN_RELOAD, BW_ORIGIN_LOAD for an image; bloomwall watch says
	 * BW_ORIGIN_WATCH). A remove
	 * or an add of names (remove, remove_names, add_names) is recorded
	 * as a change of the running filter instead (BW_REC_CHANGE).
	 */
	__u8 origin;
};

/*
 * bloomwall load: a new filter map holding img's filter, numbered
 * generation, reading the allowlist if allow (the name allowlist if
 * allow_names), its exact slot exact_slot, with the entries kept from
 * 'bloomwall add' set in it and recorded (those it has no region for are
 * taken out of kept, said, and counted in *left_out); prints one line.
 * Nothing in the kernel changes: the caller commits b or closes it. On
 * failure b is closed.
 */
struct bw_records;
int bw_image_stage(const struct bw_reload_req *rq, bool allow, bool allow_names,
		   __u8 exact_slot, __u64 generation, struct bw_records *kept,
		   size_t *left_out, struct bw_built *b);

/*
 * Rebuilds iface's filter from the lists and the entries the running
 * filter keeps from 'bloomwall add' (none with args->forget_added; less
 * r->remove), with the running filter's settings unless args change them,
 * and swaps it in under the lock; the kept adds go into the new filter's
 * records. If the running filter changed while the build ran (an add),
 * builds again under the lock. A failure at any step leaves the running
 * filter as it was, and says so.
 */
int bw_reload(const struct bw_reload_req *r);

#endif /* __BW_RELOAD_H */
