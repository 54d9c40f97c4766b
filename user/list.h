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
	size_t mapped;	   /* IPv4-mapped IPv6 entries taken as IPv4 */
};

struct bw_list_opts {
	bool skip_invalid;   /* warn and go on instead of failing the build */
	bool allow_cidr;     /* prefixes shorter than a host address */
	bool mask_host_bits; /* mask a.b.c.d/len with host bits set, warn */
	/* Say (in err, as a warning) when ::ffff:a.b.c.d is taken as IPv4. */
	bool note_mapped;
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

/* Appends one prefix; -ENOMEM on failure. */
int bw_list_push(struct bw_list *l, const struct bw_prefix *p);

/*
 * Parses one list line (no newline needed; CR, blanks, comments handled).
 * Appends what it holds to l (nothing for a blank or comment line). On a
 * bad line returns -EINVAL with the reason in err (no file:line prefix;
 * the line's bytes quoted, those outside printable ASCII escaped). It may
 * also succeed with a warning (host bits masked under mask_host_bits) or a
 * note (an IPv4-mapped address under note_mapped): then it returns 0 with
 * the text in err, so callers clear err first and print it when it is not
 * empty.
 *
 * An IPv6 prefix inside ::ffff:0:0/96 (::ffff:a.b.c.d, ::ffff:10.0.0.0/104)
 * is the IPv4 prefix it maps (10.0.0.0/8): packets carry the IPv4 source,
 * so as IPv6 it would never match. l->mapped counts them.
 */
int bw_list_parse_line(struct bw_list *l, const char *line,
		       const struct bw_list_opts *opts, char *err,
		       size_t errlen);

/*
 * Reads a whole file ("-" is standard input) into l. A bad line fails with
 * -EINVAL after printing "path:line: reason", unless opts->skip_invalid
 * (then the first BW_SKIP_SHOWN bad lines are printed, and a count of the
 * others at the end). A line over BW_LINE_MAX bytes is a bad line, read no
 * further than the bound. Fails closed: a missing or unreadable file, one
 * that is not a regular file or a pipe (a device, a directory, a socket),
 * a read error at any point, a NUL byte (not a text list) or no memory for
 * the entries prints what and why and returns -errno, whatever was read
 * before it. A FIFO is read like a pipe: opening one blocks until it has a
 * writer. One note per file for IPv4-mapped addresses.
 */
int bw_list_load(struct bw_list *l, const char *path,
		 const struct bw_list_opts *opts);

/*
 * The same from an open descriptor (not closed), named name in messages:
 * what bw_list_load() does once the file is open.
 */
int bw_list_load_fd(struct bw_list *l, int fd, const char *name,
		    const struct bw_list_opts *opts);

/* Sorts both families and removes duplicates (counted in l->duplicates). */
void bw_list_finish(struct bw_list *l);

/*
 * Parses one address or prefix as typed on the command line ("10.0.0.1",
 * "2001:db8::1", "10.0.0.0/8"); plen defaults to the host length.
 * Returns 0 or -EINVAL with the reason in err. An IPv4-mapped address is
 * taken as IPv4 and succeeds with a note in err (print it when not empty).
 */
int bw_parse_prefix(const char *s, struct bw_prefix *p, char *err,
		    size_t errlen);

/* Formats a prefix ("10.0.0.0/8", "2001:db8::1") into buf. */
const char *bw_prefix_str(const struct bw_prefix *p, char *buf, size_t len);

#endif /* __BW_LIST_H */
