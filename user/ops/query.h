/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * query: what the running filter of an interface says of addresses and
 * names, read from the program its hook runs (the filter mapped read-only,
 * the flags it was loaded with, its allowlists and exact list), so the
 * answer is the one a packet would get; with --why also the lists it was
 * built from, scanned again. Reads only: no lock.
 */
#ifndef __BW_QUERY_H
#define __BW_QUERY_H

#include <stdbool.h>

#include "bloomwall.h"
#include "filter/records.h"
#include "filter/why.h"
#include "lists/list.h"

/* One argument: an address or a name, and what the program's maps say. */
struct bw_query_arg {
	bool is_name;
	struct bw_prefix addr; /* a host address */
	char name[BW_NAME_MAX];
	int len; /* the name's, checked and folded */
	/* Filled by bw_query_open(): */
	bool in_exact; /* verify mode: the exact list holds the address */
	bool in_allow; /* the address allowlist (BW_F_ALLOW) covers it */
	/* The name allowlist's entry the name meets (allow_sub: a subtree) */
	bool name_allowed, allow_sub;
	int allow_labels;
};

struct bw_query_req {
	const char *iface;
	int ifindex;
	struct bw_query_arg *q; /* n of them, parsed */
	int n;
	char **why; /* --why: the n arguments as given; NULL: no --why */
};

struct bw_running;

struct bw_query_result {
	const char *iface;
	const void *mem;	/* the running filter, mapped until closed */
	struct bw_hdr prog_hdr; /* the header the program was loaded with */
	struct bw_records rec;	/* its records: the entries added at run time */
	struct bw_why why;	/* --why: what the scan of the lists found */
	struct bw_prefix *allow; /* --why: the address allowlist's entries */
	size_t nallow;
	struct bw_running *run; /* what keeps mem mapped */
};

/*
 * Opens what rq's interface runs and fills in rq->q's lookups (verify
 * mode: until the hook ran the same program before and after them, so
 * they saw its exact list whole, not a rebuild's half-filled trie), and
 * for --why scans the lists. 0, or -errno (said). res is the caller's to
 * close either way.
 */
int bw_query_open(const struct bw_query_req *rq, struct bw_query_result *res);
void bw_query_close(struct bw_query_result *res);

#endif /* __BW_QUERY_H */
