/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The filter builder: blocklist files in, a planned filter out, then its
 * bytes written into whatever memory the caller gives (a mmapped filter
 * map, or a plain buffer for an image or a test). It never calls bpf(): a
 * filter can be built without root and without a kernel.
 *
 * A build reads every list, merges and expands the prefixes to at most
 * --max-lengths target lengths per family (cidr.h), sizes the filter
 * (bloom.h) and keeps, for verify mode, the merged prefix set: the entries
 * an exact trie needs to confirm every hit. After the Bloom part the
 * filter records what it was built from (records.h): the entries added at
 * run time it was given, the list files (absolute paths) and the options,
 * so that a later rebuild (bloomwall remove) can build it again. What the
 * build came to outlives it in its figures (struct bw_build_figures).
 *
 * Errors are printed where they are known ("file:line: reason" for a bad
 * line, "LABEL: reason" for the rest) and returned as -errno.
 */
#ifndef __BW_BUILDER_H
#define __BW_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "filter/bloom.h"
#include "filter/build_req.h"
#include "filter/records.h"
#include "lists/cidr.h"
#include "lists/list.h"

/* What a build made of its lists, for the verbs to print. */
struct bw_build_summary {
	__u64 source_entries; /* list entries, duplicates removed */
	__u64 merged;	      /* after merging overlapping prefixes */
	__u64 entries;	      /* keys at the target lengths */
	size_t duplicates;
	size_t skipped; /* bad lines skipped (--skip-invalid) */
	/* Families whose lists merged into a /0: every packet is dropped. */
	bool everything[BW_FAMILIES];
	/* Domain entries by kind (allow: the lists' @@ lines), local skipped. */
	struct bw_domain_counts names;
	size_t local;
	size_t name_duplicates; /* in duplicates' place for names */
	/*
	 * Of the keys, those of the entries added at run time (built in or
	 * live): what the lists hold is the rest (a watch's shrink guard).
	 */
	__u64 added_keys;
};

struct bw_build {
	struct bw_plan plan; /* header, info and size of the Bloom part */
	/* The record area: the added entries, the lists and options. */
	struct bw_records rec;
	struct bw_list keys;  /* the keys at their target lengths */
	struct bw_list exact; /* verify mode: the merged prefixes, else empty */
	/* The lists' allow entries (@@||name^): for the name allowlist map. */
	struct bw_list allow_names;
	struct bw_build_summary sum;
};

/*
 * Lays out the filter for a finished list (bw_list_finish): one region per
 * prefix length per family, longest first, each sized for its share of the
 * target by the model; a small region is then filled on trial with the
 * plan's seed and grown until its own fill (bw_region_fill) meets its
 * share, so that for a given seed the plan is always the same; then the
 * name regions (bloom_names.h). -E2BIG when the list has more lengths than
 * BW_MAX_LENGTHS for a family (expansion is the caller's job) or the
 * filter would be too large; -ENOMEM.
 */
int bw_plan_filter(const struct bw_list *l, const struct bw_build_opts *o,
		   struct bw_plan *plan);

/* Writes header, info and every key's bits into mem (zeroed, plan size). */
void bw_fill_filter(void *mem, const struct bw_plan *plan,
		    const struct bw_list *l);

/*
 * Reads the lists and plans the filter: b->plan says how many blocks it
 * needs. On failure b is freed. 0 or -errno.
 */
int bw_build_plan(const struct bw_build_req *req, struct bw_build *b);

/* Blocks of b's filter: the Bloom part, then the record area. */
__u32 bw_build_blocks(const struct bw_build *b);

/* Blocks of b's filter as a running map: with its add log's room. */
__u32 bw_build_map_blocks(const struct bw_build *b);

/* Writes b's filter into mem: zeroed, bw_build_blocks(b) blocks. */
void bw_build_fill(const struct bw_build *b, void *mem);

void bw_build_free(struct bw_build *b);

/*
 * What a build came to, for its report (out/build_report.h) and for
 * watch's log line: a copy that outlives the bw_build. A filter taken
 * from an image has only its plan and image set.
 */
struct bw_build_figures {
	const char *label; /* the request's */
	const char *image; /* the image file the filter came from, or NULL */
	struct bw_plan plan;
	struct bw_build_summary sum;
	double fpr;
	__u8 dns_action;
	__u32 dns_ttl;
	bool subdomains;
	bool exact_trie;     /* verify mode's trie was made in the kernel */
	__u64 exact_entries; /* its prefixes */
};

/* f from req and b (exact_trie false: the kernel side sets it). */
void bw_build_figures_get(const struct bw_build_req *req,
			  const struct bw_build *b, struct bw_build_figures *f);

/* The entries a report names: keys at target lengths, or an image's. */
__u64 bw_build_figures_entries(const struct bw_build_figures *f);

/* The lists held no entries: the filter passes everything. */
bool bw_build_figures_empty(const struct bw_build_figures *f);

/*
 * Reads allowlist files (the list formats, no expansion) into l, finished.
 * Bad lines: file:line, -EINVAL. More than BW_ALLOW_MAX entries: -E2BIG.
 * Says what failed, naming label.
 */
int bw_load_allow(const char *label, const char *const *files, int n,
		  bool mask_host_bits, struct bw_list *l);

/* bw_load_allow that notes what each file was in src[n] (provenance.h). */
int bw_load_allow_src(const char *label, const char *const *files, int n,
		      bool mask_host_bits, struct bw_list *l,
		      struct bw_rec_source *src);

#endif /* __BW_BUILDER_H */
