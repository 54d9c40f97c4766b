// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A filter's record area read (records_read.h): every length checked
 * against the map's size, the records, then the add log applied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/rec_expiry.h"
#include "filter/rec_log.h"
#include "filter/rec_names.h"
#include "filter/rec_prefix.h"
#include "filter/records.h"
#include "filter/records_read.h"

/* ---- reading ------------------------------------------------------------- */

static int read_added(struct bw_records *r, const __u8 *body, __u32 len)
{
	struct bw_rec_prefix o;
	struct bw_prefix p;
	bool gone;
	__u32 off;

	if (len % sizeof(o))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(o)) {
		memcpy(&o, body + off, sizeof(o));
		if (bw_rec_added_read(&o, &p, &gone))
			return -EINVAL;
		/* An entry taken out in place: said by r->gone, not added. */
		if (bw_entries_push(gone ? &r->gone : &r->added,
				    bw_key_prefix(&p), 0))
			return -ENOMEM;
	}
	return 0;
}

/* Owners' claims (BW_REC_OWNERS), each set: 0, -EINVAL or -ENOMEM. */
static int read_owners(struct bw_owners *o, const __u8 *body, __u32 len)
{
	char name[BW_REC_OWNER_MAX + 1];
	struct bw_rec_owner c;
	struct bw_prefix p;
	__u32 off;

	if (len % sizeof(c))
		return -EINVAL;
	for (off = 0; off < len; off += sizeof(c)) {
		memcpy(&c, body + off, sizeof(c));
		if (bw_rec_owner_read(&c, &p, name))
			return -EINVAL;
		if (bw_owners_claim(o, bw_key_prefix(&p), name, c.expires))
			return -ENOMEM;
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

/* exp: the expiries gathered while reading, matched up at the end. */
static int read_one(struct bw_records *r, struct bw_entries *exp,
		    const struct bw_rec_head *h, const __u8 *rec)
{
	const __u8 *body = rec + sizeof(*h);

	switch (h->type) {
	case BW_REC_ADDED_EXPIRES:
		return bw_rec_expiries_read(exp, body, h->len);
	case BW_REC_ADDED_NAME_EXPIRES:
		return bw_rec_name_expiries_read(exp, body, h->len);
	case BW_REC_ADDED:
		return read_added(r, body, h->len);
	case BW_REC_OWNERS:
		return read_owners(&r->owners, body, h->len);
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
		return bw_rec_names_read(&r->added, &r->gone, body, h->len);
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
 * Drops the names listed before (hostile: add never writes a name twice),
 * keeping the order and the first of each; an address listed twice stays
 * (the watch takes it once). 0 or -ENOMEM.
 */
static int dedup_names(struct bw_entries *s)
{
	bool *drop = calloc(s->n ?: 1, sizeof(*drop));
	size_t i;

	if (!drop || bw_entries_index(s)) {
		free(drop);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++)
		drop[i] = bw_entry_is_name(&s->v[i]) &&
			  bw_entries_find(s, bw_entries_key(s, i)) != (long)i;
	bw_entries_filter(s, drop);
	free(drop);
	return 0;
}

/*
 * Each added entry's expiry from the pairs exp holds, in O(n): -EINVAL
 * when they name an entry twice; an entry listed twice expires once, the
 * first.
 */
static int take_expiries(struct bw_records *r, struct bw_entries *exp)
{
	struct bw_entry_key k;
	size_t i;
	long j;

	if (bw_entries_index(exp))
		return -ENOMEM;
	for (i = 0; i < exp->n; i++)
		if (bw_entries_find(exp, bw_entries_key(exp, i)) != (long)i)
			return -EINVAL;
	for (i = 0; i < r->added.n; i++) {
		k = bw_entries_key(&r->added, i);
		j = bw_entries_find(exp, k);
		if (j < 0)
			continue;
		/* Taken: every pair has an expiry, so 0 marks it given. */
		r->added.v[i].expires = exp->v[j].expires;
		exp->v[j].expires = 0;
	}
	return 0;
}

/* The records, len bytes that the caller checked lie inside the map. */
static int read_records(struct bw_records *r, const __u8 *p, __u64 len,
			__u32 nrecords)
{
	struct bw_entries exp;
	struct bw_rec_head h;
	__u64 off = 0;
	__u32 n;
	int err = 0;

	bw_entries_init(&exp);
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
		err = dedup_names(&r->added) ?: take_expiries(r, &exp);
	bw_entries_free(&exp);
	return err;
}

/* ---- the add log (rec_log.h) --------------------------------------------- */

/*
 * The log (l, in order) applied to the records in O(n): an entry's last
 * log entry says whether it is added and until when; one the records did
 * not hold is appended in the order of its first log entry; one taken
 * out is said in r->gone.
 */
static int apply_log(struct bw_records *r, struct bw_rec_log *l)
{
	size_t n = r->added.n, i;
	bool *drop = calloc(n ?: 1, sizeof(*drop));
	struct bw_entries fresh;
	bool *fgone = calloc(l->e.n ?: 1, sizeof(*fgone));
	struct bw_entry_key k;
	int err = drop && fgone ? 0 : -ENOMEM;
	long at;

	bw_entries_init(&fresh);
	if (!err)
		err = bw_entries_index(&r->added) ?: bw_entries_index(&fresh);
	for (i = 0; !err && i < l->e.n; i++) {
		k = bw_entries_key(&l->e, i);
		at = bw_entries_find(&r->added, k);
		if (at >= 0 && (size_t)at < n) {
			drop[at] = l->gone[i];
			r->added.v[at].expires = l->e.v[i].expires;
			continue;
		}
		at = bw_entries_find(&fresh, k);
		if (at < 0) {
			err = bw_entries_push(&fresh, k, 0);
			at = (long)fresh.n - 1;
		}
		if (!err) {
			fgone[at] = l->gone[i];
			fresh.v[at].expires = l->e.v[i].expires;
		}
	}
	for (i = 0; !err && i < n; i++)
		if (drop[i])
			err = bw_entries_push(&r->gone,
					      bw_entries_key(&r->added, i), 0);
	if (!err)
		bw_entries_filter(&r->added, drop);
	for (i = 0; !err && i < fresh.n; i++)
		err = bw_entries_push(fgone[i] ? &r->gone : &r->added,
				      bw_entries_key(&fresh, i),
				      fgone[i] ? 0 : fresh.v[i].expires);
	bw_entries_free(&fresh);
	free(drop);
	free(fgone);
	return err;
}

/*
 * The log's claims applied, in order with its entries: a log entry of a
 * prefix clears its claims, those after it set them again.
 */
static int apply_log_owners(struct bw_records *r, const struct bw_rec_log *l)
{
	const struct bw_rec_log_claim *c;
	size_t i, j = 0;

	for (i = 0; i <= l->e.n; i++) {
		for (; j < l->nclaims && l->claims[j].seq == i; j++) {
			c = &l->claims[j];
			if (bw_owners_claim(&r->owners, bw_key_prefix(&c->p),
					    c->name, c->expires))
				return -ENOMEM;
		}
		if (i < l->e.n && !bw_entry_is_name(&l->e.v[i]))
			bw_owners_clear(&r->owners, bw_entries_key(&l->e, i));
	}
	return 0;
}

/* The add log past the records (len bytes of room in all) read, applied. */
static int read_log(struct bw_records *r, const __u8 *p, __u64 len, __u64 room)
{
	struct bw_rec_log l;
	int err;

	bw_rec_log_init(&l);
	err = bw_rec_log_read(&l, p, len, room);
	if (!err && l.e.n)
		err = apply_log(r, &l) ?: apply_log_owners(r, &l);
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
		err = read_log(r, blk + BW_BLOCK_BYTES, a.records_len, room);
	/* Where the log appended an address after a name. */
	if (!err)
		err = bw_entries_group(&r->added) ?: bw_entries_group(&r->gone);
	/* Claims on entries no longer added went with them. */
	if (!err)
		err = bw_owners_prune(&r->owners, &r->added);
	if (err)
		bw_records_free(r);
	else
		bw_records_visits += r->added.n + r->gone.n;
	return err;
}
