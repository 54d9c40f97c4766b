/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Lists in memory. A list holds prefixes of both families and domain
 * names; addresses are in host byte order (see include/bw_layout.h). IPv4
 * entries are packed as one __u64 each, (addr << 8) | plen, so that sorting
 * and de-duplicating ten million of them is a radix sort. Names are kept
 * checked, case-folded and dotted (no trailing dot) in one arena, each
 * entry 8 bytes beside it: about 30 bytes a name for real lists.
 *
 * Errors: int functions return 0 or -errno and, for a bad line, print
 * "file:line: reason" through pr_warn.
 */
#ifndef __BW_LIST_H
#define __BW_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* One prefix of either family. IPv4: hi = 0, lo = address in the low 32. */
struct bw_prefix {
	__u64 hi;
	__u64 lo;
	__u8 family; /* BW_V4 or BW_V6 */
	__u8 plen;
};

static inline bool bw_prefix_same(const struct bw_prefix *a,
				  const struct bw_prefix *b)
{
	return a->family == b->family && a->plen == b->plen && a->hi == b->hi &&
	       a->lo == b->lo;
}

struct bw_v6key {
	__u64 hi;
	__u64 lo;
	__u32 plen;
	__u32 pad;
};

/* A domain entry: what it covers, and whether it blocks or allows. */
enum {
	BW_DOM_SUBTREE = 1, /* the name and every name under it */
	BW_DOM_ALLOW = 2,   /* an allow entry (adblock's @@||name^) */
};

struct bw_domain {
	__u32 off;  /* of the name in bw_list.names */
	__u8 len;   /* 1..BW_NAME_MAX */
	__u8 flags; /* BW_DOM_*; 0 is an exact block entry */
	__u16 pad;
};

struct bw_list {
	__u64 *v4; /* (addr << 8) | plen */
	size_t n4, cap4;
	struct bw_v6key *v6;
	size_t n6, cap6;
	struct bw_domain *dom;
	size_t ndom, capdom;
	char *names; /* the arena: names back to back, not NUL-terminated */
	size_t names_len, names_cap;
	size_t local;	/* hosts files' local entries (localhost...) skipped */
	size_t lines;	/* entry lines read, all files */
	size_t skipped; /* bad lines skipped under skip_invalid */
	size_t duplicates; /* removed by bw_list_finish() */
	size_t mapped;	   /* IPv4-mapped IPv6 entries taken as IPv4 */
};

/*
 * Sees every byte a load reads, in order (provenance.c hashes them), and
 * is told the lines read at the end.
 */
struct bw_list_tap {
	void (*bytes)(void *ctx, const void *buf, size_t len);
	void *ctx;
	size_t lines; /* set by the load: the file's lines */
};

struct bw_list_opts {
	bool skip_invalid;   /* warn and go on instead of failing the build */
	bool mask_host_bits; /* mask a.b.c.d/len with host bits set, warn */
	/* Say (in err, as a warning) when ::ffff:a.b.c.d is taken as IPv4. */
	bool note_mapped;
	/*
	 * Keep domain entries. Without it a domain line is still read and
	 * its names checked (a bad name says why), then refused as a bad
	 * line: a filter that cannot match names must not take a domain list
	 * for an empty one.
	 */
	bool domains;
	struct bw_list_tap *tap; /* NULL: none */
	/*
	 * Threads reading a regular file of 1 MiB or more: 1, or 2 (its
	 * second half parsed beside the first; the list comes out the
	 * same). 0: 2 where there are two CPUs or more.
	 */
	unsigned int threads;
};

/* Room for any message about one line, bad bytes escaped. */
#define BW_ERRLEN 256

/*
 * The longest list line read, in bytes without the newline. No entry needs
 * more than about 60 (hosts files' lines are short too); the bound is what
 * keeps a list with no newline in sight (/dev/zero with a newline
 * somewhere, a 600 MB line) from being read into memory whole.
 */
#define BW_LINE_MAX 4096

/* --skip-invalid: the bad lines of a file shown one by one; then a count. */
#define BW_SKIP_SHOWN 5

static inline __u64 bw_v4key(__u32 addr, __u32 plen)
{
	return ((__u64)addr << 8) | plen;
}

static inline __u32 bw_v4key_addr(__u64 key)
{
	return (__u32)(key >> 8);
}

static inline __u32 bw_v4key_plen(__u64 key)
{
	return (__u32)(key & 0xff);
}

void bw_list_init(struct bw_list *l);
void bw_list_free(struct bw_list *l);

/* Room for n4, n6 and ndom more entries and names_len bytes of names. */
int bw_list_reserve(struct bw_list *l, size_t n4, size_t n6, size_t ndom,
		    size_t names_len);

/* Appends one prefix; -ENOMEM on failure. */
int bw_list_push(struct bw_list *l, const struct bw_prefix *p);

/*
 * Sorts both families and the domain entries and removes duplicates
 * (counted in l->duplicates). Domain entries differ by name, kind and
 * allow mark: "example.com" and "*.example.com" are two entries.
 */
void bw_list_finish(struct bw_list *l);

/* The orders bw_list_finish() sorts v4 and v6 in (qsort/bsearch style). */
int bw_v4key_cmp(const void *a, const void *b);
int bw_v6key_cmp(const void *a, const void *b);

static inline const char *bw_domain_name(const struct bw_list *l,
					 const struct bw_domain *d)
{
	return l->names + d->off;
}

/* Appends a checked, folded name; -ENOMEM, or -E2BIG past 4 GiB of names. */
int bw_domain_push(struct bw_list *l, const char *name, size_t len, __u8 flags);

/*
 * --subdomains: every entry covers its subtree. Call bw_list_finish()
 * after it: an exact entry beside its subtree twin becomes a duplicate.
 */
void bw_domains_subtree(struct bw_list *l);

/* Domain entries by kind: exact and subtree blocks, allow entries. */
struct bw_domain_counts {
	size_t exact, subtree, allow;
};

void bw_domains_count(const struct bw_list *l, struct bw_domain_counts *c);

#endif /* __BW_LIST_H */
