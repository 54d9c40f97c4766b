// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's record area read (records_read.h): every length checked
 * against the map's size, the records, then the add log applied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/rec_log.h"
#include "filter/rec_names.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_read.h"

/* ---- reading ------------------------------------------------------------- */

/* An entry taken out in place: said by r->gone, not added. */
static int push_gone(struct bw_records *r, const struct bw_prefix *p)
{
	struct bw_prefix *n = realloc(r->gone, (r->ngone + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->gone = n;
	r->gone[r->ngone++] = *p;
	return 0;
}

static int read_added(struct bw_records *r, const __u8 *body, __u32 len)
{
	struct bw_rec_prefix o;
	struct bw_prefix p;
	bool gone;
	__u32 off;
	int err;

	if (len % sizeof(o))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(o)) {
		memcpy(&o, body + off, sizeof(o));
		gone = o.family & BW_REC_PREFIX_GONE;
		o.family &= (__u8)~BW_REC_PREFIX_GONE;
		err = bw_rec_prefix_read(&o, &p);
		if (!err)
			err = gone ? push_gone(r, &p)
				   : bw_records_push_added(r, &p);
		if (err)
			return err;
	}
	return 0;
}

/* Paths and what each was: the block lists, or the allowlist files. */
struct paths {
	char ***paths;
	struct bw_rec_src **src;
	int *n;
};

static struct paths lists_of(struct bw_records *r, bool allow)
{
	if (allow)
		return (struct paths){ &r->allow, &r->allow_src, &r->nallow };
	return (struct paths){ &r->lists, &r->src, &r->nlists };
}

/* A list's path, and what it was when read if src (BW_REC_SOURCE). */
static int read_list(struct paths p, const __u8 *body, __u32 len,
		     const struct bw_rec_source *src)
{
	struct bw_rec_src *s;
	char **l;
	int n = *p.n;

	if (!len || len > BW_REC_PATH_MAX || memchr(body, '\0', len))
		return -EINVAL;
	l = realloc(*p.paths, (n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*p.paths = l;
	s = realloc(*p.src, (n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	*p.src = s;
	s[n].known = src != NULL;
	if (src)
		s[n].s = *src;
	l[n] = strndup((const char *)body, len);
	if (!l[n])
		return -ENOMEM;
	++*p.n;
	return 0;
}

static int read_source(struct paths p, const __u8 *body, __u32 len)
{
	struct bw_rec_source s;

	if (len <= sizeof(s))
		return -EINVAL;
	memcpy(&s, body, sizeof(s));
	return read_list(p, body + sizeof(s), len - sizeof(s), &s);
}

/* One fixed-size record, at most once: *have says it was read. */
static int read_fixed(bool *have, void *out, size_t size, const __u8 *body,
		      __u32 len)
{
	if (*have || len != size)
		return -EINVAL;
	memcpy(out, body, size);
	*have = true;
	return 0;
}

/* Kept as it is: a newer bloomwall's record survives an add or an allow. */
static int keep_other(struct bw_records *r, const __u8 *rec, size_t len)
{
	size_t cap = r->other_cap;
	void *n;

	/* Doubling: an area of a million tiny records reads in linear time. */
	while (cap < r->other_len + len)
		cap = cap ? 2 * cap : 256;
	if (cap != r->other_cap) {
		n = realloc(r->other, cap);
		if (!n)
			return -ENOMEM;
		r->other = n;
		r->other_cap = cap;
	}
	memcpy((char *)r->other + r->other_len, rec, len);
	r->other_len += len;
	r->nother++;
	return 0;
}

/* The expiries gathered while reading, matched up at the end. */
struct expiries {
	struct bw_rec_expiries added;
	struct bw_rec_name_expiries names;
};

static int read_one(struct bw_records *r, struct expiries *exp,
		    const struct bw_rec_head *h, const __u8 *rec)
{
	const __u8 *body = rec + sizeof(*h);

	switch (h->type) {
	case BW_REC_ADDED_EXPIRES:
		return bw_rec_expiries_read(&exp->added, body, h->len);
	case BW_REC_ADDED_NAME_EXPIRES:
		return bw_rec_name_expiries_read(&exp->names, body, h->len);
	case BW_REC_ADDED:
		return read_added(r, body, h->len);
	case BW_REC_BUILD:
		return read_fixed(&r->have_build, &r->build, sizeof(r->build),
				  body, h->len);
	case BW_REC_LIST:
		return read_list(lists_of(r, false), body, h->len, NULL);
	case BW_REC_SOURCE:
		return read_source(lists_of(r, false), body, h->len);
	case BW_REC_ALLOW_SOURCE:
		return read_source(lists_of(r, true), body, h->len);
	case BW_REC_ORIGIN:
		return read_fixed(&r->have_origin, &r->origin,
				  sizeof(r->origin), body, h->len);
	case BW_REC_CHANGE:
		return read_fixed(&r->have_change, &r->change,
				  sizeof(r->change), body, h->len);
	case BW_REC_SIZED:
		return read_fixed(&r->have_sized, &r->sized, sizeof(r->sized),
				  body, h->len);
	case BW_REC_IMAGE:
		return read_fixed(&r->have_image, &r->image, sizeof(r->image),
				  body, h->len);
	case BW_REC_ADDED_NAMES:
		return bw_rec_names_read(&r->names, &r->gone_names, body,
					 h->len);
	case BW_REC_DNS:
		if (r->have_dns || h->len != sizeof(r->dns))
			return -EINVAL;
		memcpy(&r->dns, body, sizeof(r->dns));
		if (r->dns.action >= BW_DNS_ACTIONS)
			return -EINVAL;
		r->have_dns = true;
		return 0;
	default:
		return keep_other(r, rec, sizeof(*h) + bw_rec_padded(h->len));
	}
}

/*
 * The names read, each once, and their expiries: the names are pushed as
 * read, apart from names_expires, which is made here for all at once.
 */
static int name_expiries(struct bw_records *r, struct bw_rec_name_expiries *e)
{
	struct bw_list *l = &r->names;
	size_t i;
	int err;

	err = bw_rec_names_dedup(l) ?: bw_rec_name_expiries_sort(e);
	if (err || !l->ndom)
		return err;
	r->names_expires = calloc(l->ndom, sizeof(*r->names_expires));
	if (!r->names_expires)
		return -ENOMEM;
	r->names_cap = l->ndom;
	for (i = 0; i < l->ndom; i++)
		r->names_expires[i] = bw_rec_name_expiries_take(
			e, bw_domain_name(l, &l->dom[i]), l->dom[i].len,
			l->dom[i].flags);
	return 0;
}

/* The records, len bytes that the caller checked lie inside the map. */
static int read_records(struct bw_records *r, const __u8 *p, __u64 len,
			__u32 nrecords)
{
	struct expiries exp = {};
	struct bw_rec_head h;
	__u64 off = 0;
	__u32 n;
	int err = 0;

	for (n = 0; !err && n < nrecords; n++) {
		if (len - off < sizeof(h)) {
			err = -EINVAL;
			break;
		}
		memcpy(&h, p + off, sizeof(h));
		if (h.flags || bw_rec_padded(h.len) > len - off - sizeof(h)) {
			err = -EINVAL;
			break;
		}
		err = read_one(r, &exp, &h, p + off);
		off += sizeof(h) + bw_rec_padded(h.len);
	}
	if (!err && off != len)
		err = -EINVAL;
	/* The expiries name their entries: known once every record is read. */
	if (!err)
		err = bw_rec_expiries_sort(&exp.added);
	for (n = 0; !err && n < r->nadded; n++)
		r->added_expires[n] =
			bw_rec_expiries_take(&exp.added, &r->added[n]);
	if (!err)
		err = name_expiries(r, &exp.names);
	bw_rec_expiries_free(&exp.added);
	bw_rec_name_expiries_free(&exp.names);
	return err;
}

/* ---- the add log (rec_log.h) --------------------------------------------- */

/* Log entries by prefix, each prefix's in log order: its last decides. */
static int cmp_log(const void *a, const void *b)
{
	const struct bw_rec_log_ent *x = a, *y = b;
	int c = bw_prefix_cmp(&x->p, &y->p);

	return c ?: (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_seq(const void *a, const void *b)
{
	const struct bw_rec_log_ent *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The log's prefixes (v, n of them; reordered) applied to the records,
 * in n log n: a prefix's last entry says whether it is added and until
 * when; one the records did not hold is appended in the order of its
 * first entry.
 */
static int apply_log_added(struct bw_records *r, struct bw_rec_log_ent *v,
			   size_t n)
{
	size_t *ix = bw_prefix_index(r->added, r->nadded);
	bool *drop = calloc(r->nadded ?: 1, sizeof(*drop));
	struct bw_rec_log_ent last;
	size_t i, j, k, fresh = 0;
	int err = ix && drop ? 0 : -ENOMEM;
	long at;

	if (!err)
		qsort(v, n, sizeof(*v), cmp_log);
	for (i = 0; !err && i < n; i = j) {
		for (j = i + 1; j < n && bw_prefix_same(&v[j].p, &v[i].p); j++)
			;
		last = v[j - 1];
		at = bw_prefix_index_find(r->added, ix, r->nadded, &last.p);
		if (last.gone) {
			if (at >= 0)
				drop[at] = true;
			err = push_gone(r, &last.p);
		} else if (at >= 0) {
			r->added_expires[at] = last.expires;
		} else {
			last.seq = v[i].seq;
			v[fresh++] = last;
		}
	}
	for (i = 0, k = 0; !err && i < r->nadded; i++) {
		if (drop[i])
			continue;
		r->added[k] = r->added[i];
		r->added_expires[k++] = r->added_expires[i];
	}
	if (!err)
		r->nadded = k;
	if (!err)
		qsort(v, fresh, sizeof(*v), cmp_seq);
	for (i = 0; !err && i < fresh; i++) {
		err = bw_records_push_added(r, &v[i].p);
		if (!err)
			r->added_expires[r->nadded - 1] = v[i].expires;
	}
	free(ix);
	free(drop);
	return err;
}

/* One logged name applied, in order: its last entry decides. */
static int apply_log_name(struct bw_records *r, const struct bw_rec_log_ent *e)
{
	long k = bw_records_find_name(r, e->name, e->len, e->flags);
	struct bw_list *l = &r->names;

	if (!e->gone && k >= 0) {
		r->names_expires[k] = e->expires;
		return 0;
	}
	if (!e->gone) {
		if (bw_records_push_name(r, e->name, e->len, e->flags))
			return -ENOMEM;
		r->names_expires[l->ndom - 1] = e->expires;
		return 0;
	}
	if (k >= 0) {
		memmove(&l->dom[k], &l->dom[k + 1],
			(l->ndom - (size_t)k - 1) * sizeof(l->dom[0]));
		memmove(&r->names_expires[k], &r->names_expires[k + 1],
			(l->ndom - (size_t)k - 1) *
				sizeof(r->names_expires[0]));
		l->ndom--;
	}
	return bw_domain_push(&r->gone_names, e->name, e->len, e->flags)
		       ? -ENOMEM
		       : 0;
}

/* The add log past the records (len bytes of room in all) applied. */
static int apply_log(struct bw_records *r, const __u8 *p, __u64 len, __u64 room)
{
	struct bw_rec_log l = {};
	size_t i, n = 0;
	int err;

	err = bw_rec_log_read(&l, p, len, room);
	/* Names one by one, in order; the prefixes then all at once. */
	for (i = 0; !err && i < l.n; i++) {
		if (l.v[i].is_name)
			err = apply_log_name(r, &l.v[i]);
		else
			l.v[n++] = l.v[i];
	}
	if (!err && n)
		err = apply_log_added(r, l.v, n);
	bw_rec_log_free(&l);
	return err;
}

static bool all_zero(const void *p, size_t len)
{
	const __u8 *b = p;

	return !len || (!b[0] && !memcmp(b, b + 1, len - 1));
}

int bw_records_read(const void *mem, __u32 nblocks, struct bw_records *r)
{
	__u32 start = bw_records_start(mem);
	const __u8 *blk = (const __u8 *)mem + (size_t)start * BW_BLOCK_BYTES;
	struct bw_rec_area a;
	__u64 room;
	int err;

	bw_records_init(r);
	if (start > nblocks)
		return -EINVAL;
	if (start == nblocks)
		return 0;
	memcpy(&a, blk, sizeof(a));
	if (!a.magic && all_zero(blk, BW_BLOCK_BYTES))
		return 0;
	room = (__u64)(nblocks - start - 1) * BW_BLOCK_BYTES;
	if (a.magic != BW_REC_MAGIC || a.version != BW_REC_VERSION ||
	    a.records_len > room || a.records_len % BW_REC_ALIGN ||
	    a.nrecords > a.records_len / sizeof(struct bw_rec_head))
		return -EINVAL;
	err = read_records(r, blk + BW_BLOCK_BYTES, a.records_len, a.nrecords);
	if (!err)
		err = apply_log(r, blk + BW_BLOCK_BYTES, a.records_len, room);
	if (err)
		bw_records_free(r);
	return err;
}
