/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Blocklist parsing. A list holds prefixes of both families; addresses are
 * in host byte order (see include/bw_layout.h). IPv4 entries are packed as
 * one __u64 each, (addr << 8) | plen, so that sorting and de-duplicating ten
 * million of them is a radix sort.
 *
 * Errors: int functions return 0 or -errno and, for a bad line, print
 * "file:line: reason" through pr_warn.
 */
#ifndef __BW_LIST_H
#define __BW_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* One prefix of either family. IPv4: hi = 0, lo = address in the low 32. */
struct bw_prefix {
	__u64 hi;
	__u64 lo;
	__u8 family; /* BW_V4 or BW_V6 */
	__u8 plen;
};

struct bw_v6key {
	__u64 hi;
	__u64 lo;
	__u32 plen;
	__u32 pad;
};

struct bw_list {
	__u64 *v4; /* (addr << 8) | plen */
	size_t n4, cap4;
	struct bw_v6key *v6;
	size_t n6, cap6;
	size_t lines;	   /* entry lines read, all files */
	size_t skipped;	   /* bad lines skipped under skip_invalid */
	size_t duplicates; /* removed by bw_list_finish() */
};

struct bw_list_opts {
	bool skip_invalid;   /* warn and go on instead of failing the build */
	bool allow_cidr;     /* prefixes shorter than a host address */
	bool mask_host_bits; /* mask a.b.c.d/len with host bits set, warn */
};

#define BW_ERRLEN 160

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

/* Appends one prefix; -ENOMEM on failure. */
int bw_list_push(struct bw_list *l, const struct bw_prefix *p);

/*
 * Parses one list line (no newline needed; CR, blanks, comments handled).
 * Appends what it holds to l (nothing for a blank or comment line). On a
 * bad line returns -EINVAL with the reason in err (no file:line prefix).
 * It may also succeed with a warning (host bits masked under mask_host_bits):
 * then it returns 0 with the warning in err, so callers clear err first and
 * print it when it is not empty.
 */
int bw_list_parse_line(struct bw_list *l, const char *line,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen);

/*
 * Reads a whole file ("-" is standard input) into l. A bad line fails with
 * -EINVAL after printing "path:line: reason", unless opts->skip_invalid.
 * A missing or unreadable file prints what and why and returns -errno.
 */
int bw_list_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts);

/* Sorts both families and removes duplicates (counted in l->duplicates). */
void bw_list_finish(struct bw_list *l);

/*
 * Parses one address or prefix as typed on the command line ("10.0.0.1",
 * "2001:db8::1", "10.0.0.0/8"); plen defaults to the host length.
 * Returns 0 or -EINVAL with the reason in err.
 */
int bw_parse_prefix(const char *s, struct bw_prefix *p, char *err,
		    size_t errlen);

/* Formats a prefix ("10.0.0.0/8", "2001:db8::1") into buf. */
const char *bw_prefix_str(const struct bw_prefix *p, char *buf, size_t len);

#endif /* __BW_LIST_H */
