// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The sections of a filter image after its filter (image.h): the exact
 * prefix set of verify mode, the allowlist of --allow files and the lists'
 * allow entries for names, each a list (prefixes of both families and
 * names) under a crc32 of its own. Writing one, checking one the way a
 * reader must before it trusts a byte of it, and reading it back into a
 * list. No bpf().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/crc.h"
#include "image/image_sec.h"
#include "lists/names.h"

static const char *const sec_names[BW_IMAGE_NSEC] = {
	[BW_IMAGE_EXACT] = "exact prefix set",
	[BW_IMAGE_ALLOW] = "allowlist",
	[BW_IMAGE_NAMES] = "name allow entries",
};

const char *bw_image_sec_name(int i)
{
	return i >= 0 && i < BW_IMAGE_NSEC ? sec_names[i] : "section";
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A name's record: its length, its flags, its bytes. */
static size_t names_bytes(const struct bw_list *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->ndom; i++)
		n += 2 + l->dom[i].len;
	return n;
}

size_t bw_image_sec_bytes(const struct bw_list *l)
{
	return sizeof(struct bw_image_sec) +
	       pad8(l->n4 * sizeof(*l->v4) + l->n6 * sizeof(*l->v6) +
		    names_bytes(l));
}

size_t bw_image_sec_put(void *at, int i, const struct bw_list *l)
{
	struct bw_image_sec *s = at;
	unsigned char *p = (unsigned char *)(s + 1), *start = p;
	size_t k;

	memset(s, 0, sizeof(*s));
	s->type = 1U << i;
	s->n4 = l->n4;
	s->n6 = l->n6;
	s->ndom = l->ndom;
	s->names_bytes = names_bytes(l);
	if (l->n4)
		memcpy(p, l->v4, l->n4 * sizeof(*l->v4));
	p += l->n4 * sizeof(*l->v4);
	if (l->n6)
		memcpy(p, l->v6, l->n6 * sizeof(*l->v6));
	p += l->n6 * sizeof(*l->v6);
	for (k = 0; k < l->ndom; k++) {
		*p++ = l->dom[k].len;
		*p++ = l->dom[k].flags;
		memcpy(p, bw_domain_name(l, &l->dom[k]), l->dom[k].len);
		p += l->dom[k].len;
	}
	s->bytes = pad8((size_t)(p - start));
	memset(p, 0, s->bytes - (size_t)(p - start));
	s->crc = bw_crc32(start, s->bytes);
	return sizeof(*s) + s->bytes;
}

static int fail(char *why, size_t errlen, int i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t errlen, int i, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(why, errlen,
			     "corrupt %s section: ", bw_image_sec_name(i));
	if (n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(why + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Host bits set below plen: not what a writer writes. */
static bool v4_ok(__u64 key)
{
	__u32 plen = bw_v4key_plen(key), addr = bw_v4key_addr(key);

	if (key >> 40 || plen > 32)
		return false;
	return plen == 32 || !(addr & (0xffffffffU >> plen));
}

static bool v6_ok(const struct bw_v6key *k)
{
	__u64 hm, lm;

	if (k->pad || k->plen > 128)
		return false;
	hm = k->plen >= 64 ? 0 : ~0ULL >> k->plen;
	lm = k->plen <= 64    ? ~0ULL
	     : k->plen >= 128 ? 0
			      : ~0ULL >> (k->plen - 64);
	return !(k->hi & hm) && !(k->lo & lm);
}

/* Prefixes valid and in bw_list_finish()'s order, none twice. */
static int check_prefixes(const unsigned char *p, const struct bw_image_sec *s,
			  int i, char *why, size_t errlen)
{
	struct bw_v6key a, b;
	__u64 k, prev = 0;
	size_t j;

	for (j = 0; j < s->n4; j++, p += sizeof(k)) {
		memcpy(&k, p, sizeof(k));
		if (!v4_ok(k))
			return fail(why, errlen, i,
				    "IPv4 prefix %zu is malformed", j);
		if (j && k <= prev)
			return fail(why, errlen, i,
				    "IPv4 prefix %zu out of order", j);
		prev = k;
	}
	for (j = 0; j < s->n6; j++, p += sizeof(b)) {
		memcpy(&b, p, sizeof(b));
		if (!v6_ok(&b))
			return fail(why, errlen, i,
				    "IPv6 prefix %zu is malformed", j);
		if (j && bw_v6key_cmp(&a, &b) >= 0)
			return fail(why, errlen, i,
				    "IPv6 prefix %zu out of order", j);
		a = b;
	}
	return 0;
}

/* Each name checked and folded as a list's, with flags a list gives. */
static int check_names(const unsigned char *p, const struct bw_image_sec *s,
		       int i, char *why, size_t errlen)
{
	const unsigned char *end = p + s->names_bytes;
	__u8 ok = BW_DOM_SUBTREE | BW_DOM_ALLOW;
	char out[BW_NAME_MAX], err[BW_ERRLEN];
	size_t j, len;

	for (j = 0; j < s->ndom; j++) {
		if (end - p < 2 || (size_t)(end - p - 2) < p[0])
			return fail(why, errlen, i, "name %zu runs past it", j);
		len = p[0];
		if (!len || len > BW_NAME_MAX || (p[1] & ~ok) ||
		    (i == BW_IMAGE_NAMES && !(p[1] & BW_DOM_ALLOW)) ||
		    bw_name_check((const char *)p + 2, len, out, err,
				  sizeof(err)) != (int)len ||
		    memcmp(out, p + 2, len))
			return fail(why, errlen, i, "name %zu is malformed", j);
		p += 2 + len;
	}
	if (p != end)
		return fail(
			why, errlen, i,
			"%llu bytes of names where its header says %llu",
			(unsigned long long)(s->names_bytes - (__u64)(end - p)),
			(unsigned long long)s->names_bytes);
	return 0;
}

/* The counts in s agree with its size, which fits in room bytes. */
static int check_sizes(const struct bw_image_sec *s, int i, __u64 room,
		       char *why, size_t errlen)
{
	__u64 body;

	if (s->bytes > room - sizeof(*s) || s->n4 > s->bytes / 8 ||
	    s->n6 > s->bytes / sizeof(struct bw_v6key) ||
	    s->names_bytes > s->bytes || s->ndom > s->names_bytes / 3)
		return fail(why, errlen, i,
			    "sizes past the end of the image (%llu bytes)",
			    (unsigned long long)s->bytes);
	body = s->n4 * 8 + s->n6 * sizeof(struct bw_v6key) + s->names_bytes;
	if (s->bytes != pad8(body))
		return fail(
			why, errlen, i,
			"%llu bytes for %llu IPv4, %llu IPv6 prefixes and %llu bytes of names",
			(unsigned long long)s->bytes, (unsigned long long)s->n4,
			(unsigned long long)s->n6,
			(unsigned long long)s->names_bytes);
	if ((i == BW_IMAGE_EXACT && s->ndom) ||
	    (i == BW_IMAGE_NAMES && (s->n4 || s->n6)))
		return fail(why, errlen, i, "entries of a kind it never holds");
	if (i == BW_IMAGE_ALLOW && s->n4 + s->n6 > BW_ALLOW_MAX)
		return fail(why, errlen, i, "more than %u entries",
			    BW_ALLOW_MAX);
	return 0;
}

static int check_one(const void *at, int i, __u64 room, char *why,
		     size_t errlen)
{
	const struct bw_image_sec *s = at;
	const unsigned char *p = (const unsigned char *)(s + 1), *pad;
	int err;

	if (room < sizeof(*s))
		return fail(why, errlen, i, "its header runs past the image");
	if (s->type != 1U << i)
		return fail(why, errlen, i, "type 0x%x", s->type);
	err = check_sizes(s, i, room, why, errlen);
	if (err)
		return err;
	if (bw_crc32(p, s->bytes) != s->crc)
		return fail(why, errlen, i,
			    "crc32 0x%08x, its header says 0x%08x",
			    bw_crc32(p, s->bytes), s->crc);
	err = check_prefixes(p, s, i, why, errlen);
	pad = p + s->n4 * 8 + s->n6 * sizeof(struct bw_v6key);
	if (!err)
		err = check_names(pad, s, i, why, errlen);
	for (pad += s->names_bytes; !err && pad < p + s->bytes; pad++)
		if (*pad)
			err = fail(why, errlen, i, "padding not zero");
	return err;
}

int bw_image_sec_check(const void *buf, __u64 len, __u64 off, __u32 present,
		       const struct bw_image_sec **sec, char *why,
		       size_t errlen)
{
	const struct bw_image_sec *s;
	int i, err;

	for (i = 0; i < BW_IMAGE_NSEC; i++) {
		sec[i] = NULL;
		if (!(present & (1U << i)))
			continue;
		s = (const void *)((const char *)buf + off);
		err = check_one(s, i, len - off, why, errlen);
		if (err)
			return err;
		sec[i] = s;
		off += sizeof(*s) + s->bytes;
	}
	if (off != len) {
		snprintf(why, errlen,
			 "corrupt image: %llu bytes after its last section",
			 (unsigned long long)(len - off));
		return -EINVAL;
	}
	return 0;
}

/* A checked section back into l (initialised, left as it was written). */
int bw_image_sec_read(const struct bw_image_sec *s, struct bw_list *l)
{
	const unsigned char *p = (const unsigned char *)(s + 1);
	size_t j;
	int err;

	l->v4 = malloc(s->n4 ? s->n4 * sizeof(*l->v4) : 1);
	l->v6 = malloc(s->n6 ? s->n6 * sizeof(*l->v6) : 1);
	if (!l->v4 || !l->v6)
		return -ENOMEM;
	l->cap4 = l->n4 = s->n4;
	l->cap6 = l->n6 = s->n6;
	memcpy(l->v4, p, l->n4 * sizeof(*l->v4));
	p += l->n4 * sizeof(*l->v4);
	memcpy(l->v6, p, l->n6 * sizeof(*l->v6));
	p += l->n6 * sizeof(*l->v6);
	for (j = 0; j < s->ndom; j++) {
		err = bw_domain_push(l, (const char *)p + 2, p[0], p[1]);
		if (err)
			return err;
		p += 2 + p[0];
	}
	return 0;
}

void bw_image_lists_init(struct bw_image_lists *ls)
{
	int i;

	ls->present = 0;
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		bw_list_init(&ls->l[i]);
}

void bw_image_lists_free(struct bw_image_lists *ls)
{
	int i;

	for (i = 0; i < BW_IMAGE_NSEC; i++)
		bw_list_free(&ls->l[i]);
	ls->present = 0;
}
