// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Domain names: the rules a listed name must meet, case folding, the wire
 * format, and the suffix hashes of include/bw_hash.h computed the way the
 * data path computes them (see names.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lists/names.h"
#include "lists/text.h"

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_';
}

/* Why byte c cannot be in a name, quoting the name. */
static int bad_char(char *err, size_t errlen, unsigned char c, const char *s,
		    size_t len)
{
	char what[64], q[BW_QUOTE_BUF];

	if (c >= 0x80)
		return bw_list_fail(
			err, errlen,
			"not ASCII: write IDN names in their xn-- form", s,
			len);
	if (c == '*')
		return bw_list_fail(err, errlen,
				    "a wildcard is only \"*.\" before a name",
				    s, len);
	snprintf(what, sizeof(what), "bad character \"%s\" in name",
		 bw_quote(q, sizeof(q), (const char *)&c, 1));
	return bw_list_fail(err, errlen, what, s, len);
}

int bw_name_check(const char *s, size_t len, char *out, char *err,
		  size_t errlen)
{
	size_t n = len, i, lab = 0;
	bool digits = true;
	unsigned char c;

	if (n && s[n - 1] == '.')
		n--;
	if (!n)
		return bw_list_fail(err, errlen, "empty name", s, len);
	if (n > BW_NAME_MAX)
		return bw_list_fail(err, errlen, "name longer than 253 bytes",
				    s, len);
	for (i = 0; i < n; i++) {
		c = bw_name_fold((unsigned char)s[i]);
		if (c == '.') {
			if (!lab)
				break;
			lab = 0;
			digits = true;
		} else {
			if (!name_char(c))
				return bad_char(err, errlen, c, s, len);
			if (++lab > BW_NAME_LABEL_MAX)
				return bw_list_fail(
					err, errlen,
					"label longer than 63 bytes in name", s,
					len);
			digits &= c >= '0' && c <= '9';
		}
		out[i] = (char)c;
	}
	if (!lab)
		return bw_list_fail(err, errlen, "empty label in name", s, len);
	/* An all-digit top label (RFC 3696 2) is an address gone wrong. */
	if (digits)
		return bw_list_fail(err, errlen,
				    "top-level label all digits: not a name", s,
				    len);
	return (int)n;
}

bool bw_name_is_local(const char *s, size_t len)
{
	static const char *const local[] = {
		"localhost", "localhost.localdomain", "local", "broadcasthost",
		"0.0.0.0",
	};
	size_t i;

	if (len && s[len - 1] == '.')
		len--;
	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (strlen(local[i]) == len && !strncasecmp(s, local[i], len))
			return true;
	/* ip6-localhost, ip6-loopback, ip6-allnodes...: one label each. */
	return len > 4 && !strncasecmp(s, "ip6-", 4) && !memchr(s, '.', len);
}

size_t bw_name_to_wire(const char *name, size_t len, __u8 *wire)
{
	size_t i, lab = 0, w = 1;

	for (i = 0; i <= len; i++) {
		if (i == len || name[i] == '.') {
			wire[lab] = (__u8)(w - lab - 1);
			lab = w++;
			continue;
		}
		wire[w++] = (__u8)bw_name_fold((unsigned char)name[i]);
	}
	wire[lab] = 0;
	return lab + 1;
}

/*
 * Walks a wire-format name: calls back with each label, returns the number
 * of labels or -EINVAL. What a query's name may not hold fails here.
 */
static int wire_labels(const __u8 *wire, size_t len,
		       int (*fn)(void *ctx, const __u8 *p, __u32 n), void *ctx)
{
	size_t off = 0;
	int n = 0, ret;
	__u8 lab;

	for (;;) {
		if (off >= len || off >= BW_WIRE_MAX)
			return -EINVAL;
		lab = wire[off];
		if (!lab)
			return n;
		/* 0xc0: a compression pointer; 0x40, 0x80: reserved types. */
		if (lab > BW_NAME_LABEL_MAX || off + 1 + lab >= BW_WIRE_MAX)
			return -EINVAL;
		if (off + 1 + lab > len)
			return -EINVAL;
		ret = fn(ctx, wire + off + 1, lab);
		if (ret)
			return ret;
		n++;
		off += 1 + lab;
	}
}

struct dotted {
	char *out;
	size_t len;
};

static int add_dotted(void *ctx, const __u8 *p, __u32 n)
{
	struct dotted *d = ctx;
	__u32 i;

	if (d->len)
		d->out[d->len++] = '.';
	for (i = 0; i < n; i++)
		d->out[d->len++] = (char)bw_name_fold(p[i]);
	return 0;
}

int bw_name_from_wire(const __u8 *wire, size_t len, char *out)
{
	struct dotted d = { .out = out };
	int n = wire_labels(wire, len, add_dotted, &d);

	return n < 0 ? n : (int)d.len;
}

int bw_name_hashes(const char *name, size_t len, __u32 seed, __u64 *keys,
		   size_t max)
{
	__u64 h = bw_name_hash_init(seed);
	size_t end = len, start, n = 0;

	if (end && name[end - 1] == '.')
		end--;
	if (!end)
		return -EINVAL;
	for (;;) {
		for (start = end; start && name[start - 1] != '.'; start--)
			;
		if (start == end || end - start > BW_NAME_LABEL_MAX)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		h = bw_name_hash_step(
			h, bw_name_label_hash((const __u8 *)name + start,
					      (__u32)(end - start)));
		keys[n++] = h;
		if (!start)
			return (int)n;
		end = start - 1;
	}
}

struct label_hashes {
	__u64 l[BW_NAME_LABELS_MAX];
	size_t n;
};

static int add_label_hash(void *ctx, const __u8 *p, __u32 n)
{
	struct label_hashes *lh = ctx;

	/* 127 labels fill 255 bytes; wire_labels() stops any more. */
	if (lh->n == BW_NAME_LABELS_MAX)
		return -EINVAL;
	lh->l[lh->n++] = bw_name_label_hash(p, n);
	return 0;
}

int bw_name_wire_hashes(const __u8 *wire, size_t len, __u32 seed, __u64 *keys,
			size_t max)
{
	struct label_hashes lh = { .n = 0 };
	__u64 h = bw_name_hash_init(seed);
	int n = wire_labels(wire, len, add_label_hash, &lh);
	size_t k;

	if (n <= 0)
		return n ? n : -EINVAL; /* the root is no entry's name */
	if ((size_t)n > max)
		return -E2BIG;
	for (k = 0; k < (size_t)n; k++) {
		h = bw_name_hash_step(h, lh.l[n - 1 - k]);
		keys[k] = h;
	}
	return n;
}

const char *bw_name_suffix(const char *name, size_t len, int labels)
{
	size_t i = len;
	int n = 0;

	while (i > 0) {
		if (name[i - 1] == '.' && ++n == labels)
			return name + i;
		i--;
	}
	return name;
}
