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

/* A CrowdSec decision covering an address, as the watch holds it. */
struct bw_cs_why_dec {
	long long id;
	long long until; /* Unix seconds */
	char origin[64], scenario[256], scope[8], value[64], type[32];
};

/* query --why's CrowdSec side: the interface's watch's "why". */
struct bw_cs_why {
	bool source; /* a watch with a CrowdSec source answered */
	char url[256];
	struct bw_cs_why_addr {
		struct bw_cs_why_dec *d; /* n of them */
		size_t n;
		long long more; /* covering it, not listed */
	} * addr;		/* one per address asked, in order */
	size_t n;
};

/*
 * Asks iface's watch which CrowdSec decisions cover addrs (n of them,
 * host addresses; a NULL one is skipped, its entry empty): 0 with w
 * filled (no watch, or one without a source: w->source false), -errno
 * when the watch did not answer (said). w is the caller's to free either
 * way.
 */
int bw_query_cs_why(const char *iface, const char *const *addrs, size_t n,
		    struct bw_cs_why *w);
void bw_query_cs_why_free(struct bw_cs_why *w);

struct bw_running;

struct bw_query_result {
	const char *iface;
	const void *mem;	/* the running filter, mapped until closed */
	struct bw_hdr prog_hdr; /* the header the program was loaded with */
	bool egress; /* the TC egress hook runs it too (attach --egress) */
	struct bw_records rec; /* its records: the entries added at run time */
	struct bw_why why;     /* --why: what the scan of the lists found */
	struct bw_cs_why cs;   /* --why: the decisions, one per argument */
	struct bw_prefix *allow; /* --why: the address allowlist's entries */
	size_t nallow;
	struct bw_running *run; /* what keeps mem mapped */
};

/*
 * Opens what rq's interface runs and fills in rq->q's lookups (verify
 * mode: until the hook ran the same program before and after them, so
 * they saw its exact list whole, not a rebuild's half-filled trie), and
 * for --why scans the lists and asks the watch for its decisions. 0, or
 * -errno (said). res is the caller's to
 * close either way.
 */
int bw_query_open(const struct bw_query_req *rq, struct bw_query_result *res);
void bw_query_close(struct bw_query_result *res);

#endif /* __BW_QUERY_H */
