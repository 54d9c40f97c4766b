/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query --why: which list entries cover an address or a name. The lists
 * the running filter recorded (records.h, provenance.h) are read again
 * only when asked, each once for every argument together, line by line
 * through the lists' own parser (bw_fmt_line into a scratch list):
 * a single pass, no index, no cost on attach or on the data path.
 *
 * Each list is hashed while it is read, so the answer says whether the
 * file is still what the filter was built from; a changed file is
 * answered from as it is now, marked; a missing one is said and skipped.
 * why_out.c turns the findings and the running filter's verdict into the
 * answer (entries, runtime adds, allowlist, or a Bloom false positive).
 */
#ifndef __BW_WHY_H
#define __BW_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "filter/provenance.h"
#include "filter/records.h"
#include "lists/list.h"

/* What is asked about: an address or a name (checked, folded, no dot). */
struct bw_why_target {
	bool is_name;
	struct bw_prefix addr; /* a host address */
	char name[BW_NAME_MAX + 1];
	size_t name_len;
};

/* Longest line text kept for the answer. */
#define BW_WHY_TEXT 160

/* One list line that covers one target. */
struct bw_why_hit {
	int target;
	int list; /* index into the scanned lists */
	__u64 line;
	char text[BW_WHY_TEXT + 1]; /* the line, trimmed */
	/* The entry that covers it: "10.0.0.0/8", "example.com", ... */
	char entry[BW_NAME_MAX + 3];
	/* Names: the entry covers the subtree and matched on this suffix. */
	bool subtree;
	bool allow; /* an allow entry (@@||name^): it lets the name pass */
	char suffix[BW_NAME_MAX + 1];
	/* An address entry: the prefix (the entry above, as a prefix). */
	struct bw_prefix prefix;
};

/* A list as the scan found it. */
struct bw_why_list {
	const char *path;
	enum bw_prov_state state; /* unchanged, changed, missing, ... */
	bool recorded;		  /* its source was recorded: state compared */
	/* An allowlist file (--allow FILE): its every entry lets pass. */
	bool allow;
	__u64 lines;
};

struct bw_why {
	struct bw_why_target *t;
	int nt;
	struct bw_why_list *lists;
	int nlists;
	struct bw_why_hit *hits;
	size_t nhits, cap;
};

/*
 * Parses s as an address (host, either family) or else a domain name.
 * 0, or -EINVAL with the reason in err.
 */
int bw_why_target(const char *s, struct bw_why_target *t, char *err,
		  size_t errlen);

/*
 * Scans the n lists (their recorded sources in src, NULL or unknown
 * entries: nothing to compare) for every target. 0 or -ENOMEM; a list
 * that cannot be read is not an error: its state says why.
 */
int bw_why_scan(struct bw_why *w, const struct bw_why_target *t, int nt,
		const char *const *paths, const struct bw_rec_src *src, int n);

/*
 * bw_why_scan of the block lists rec records, then its allowlist files
 * (lists[k].allow; every hit in one is an allow hit).
 */
int bw_why_scan_records(struct bw_why *w, const struct bw_why_target *t, int nt,
			const struct bw_records *rec);

void bw_why_free(struct bw_why *w);

/* Whether an entry (prefix) covers a host address of its family. */
bool bw_why_covers(const struct bw_prefix *entry, const struct bw_prefix *a);

/*
 * Whether a domain entry covers name: exact, or as its subtree (at a label
 * boundary: ads.example.com under example.com, not badexample.com).
 */
bool bw_why_name_covers(const char *entry, size_t elen, bool subtree,
			const char *name, size_t nlen);

#endif /* __BW_WHY_H */
