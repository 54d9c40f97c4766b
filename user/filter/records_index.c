// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* An index of a running filter's record area (records_index.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/records_gone.h"
#include "filter/records_index.h"
#include "filter/records_log.h"

void bw_rec_index_init(struct bw_rec_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	bw_entries_init(&ix->keys);
	bw_owners_init(&ix->owners);
}

void bw_rec_index_free(struct bw_rec_index *ix)
{
	bw_entries_free(&ix->keys);
	free(ix->first);
	free(ix->occ);
	bw_owners_free(&ix->owners);
	bw_rec_index_init(ix);
}

void bw_rec_index_forget(struct bw_rec_index *ix)
{
	ix->valid = false;
	ix->mem = NULL;
}

/* Key k's place, added if new (taken out, no occurrence): -1 no memory. */
static long key_at(struct bw_rec_index *ix, struct bw_entry_key k)
{
	long x = bw_entries_find(&ix->keys, k);
	size_t cap;
	__u32 *f;

	if (x >= 0)
		return x;
	if (ix->keys.n >= BW_REC_OCC_NONE)
		return -1;
	if (ix->keys.n == ix->first_cap) {
		cap = ix->first_cap ? 2 * ix->first_cap : 64;
		f = realloc(ix->first, cap * sizeof(*f));
		if (!f)
			return -1;
		ix->first = f;
		ix->first_cap = cap;
	}
	if (bw_entries_push(&ix->keys, k, BW_REC_INDEX_OUT) ||
	    !ix->keys.indexed)
		return -1;
	x = (long)ix->keys.n - 1;
	ix->first[x] = BW_REC_OCC_NONE;
	return x;
}

/* An unmarked occurrence of key x at off, the newest: 0 or -ENOMEM. */
static int occ_push(struct bw_rec_index *ix, long x, __u64 off)
{
	size_t cap;
	void *p;

	if (ix->nocc >= BW_REC_OCC_NONE)
		return -ENOMEM;
	if (ix->nocc == ix->occ_cap) {
		cap = ix->occ_cap ? 2 * ix->occ_cap : 64;
		p = realloc(ix->occ, cap * sizeof(*ix->occ));
		if (!p)
			return -ENOMEM;
		ix->occ = p;
		ix->occ_cap = cap;
	}
	ix->occ[ix->nocc] =
		(struct bw_rec_occ){ .off = off, .next = ix->first[x] };
	ix->first[x] = (__u32)ix->nocc++;
	return 0;
}

/* A walked occurrence; a failure says so in ix->valid. */
static void walked(void *ctx, struct bw_entry_key k, __u64 off)
{
	struct bw_rec_index *ix = ctx;
	long x = key_at(ix, k);

	if (x < 0 || occ_push(ix, x, off))
		ix->valid = false;
}

/* The entries of s into the keys, each with its state (end or out). */
static int keys_of(struct bw_rec_index *ix, const struct bw_entries *s,
		   bool added)
{
	long x;
	size_t i;

	for (i = 0; i < s->n; i++) {
		x = key_at(ix, bw_entries_key(s, i));
		if (x < 0)
			return -ENOMEM;
		/* A prefix recorded twice (hostile): the first, as read. */
		if (added && ix->keys.v[x].expires == BW_REC_INDEX_OUT)
			ix->keys.v[x].expires = s->v[i].expires;
	}
	return 0;
}

int bw_rec_index_build(struct bw_rec_index *ix, const void *mem, __u32 nblocks,
		       const struct bw_records *r, __u32 marks)
{
	long long end = bw_records_log_end(mem, nblocks);
	int err;

	bw_rec_index_free(ix);
	if (end < 0)
		return -EINVAL;
	err = bw_entries_index(&ix->keys) ?: keys_of(ix, &r->added, true) ?:
					     keys_of(ix, &r->gone, false) ?:
					     bw_owners_copy(&ix->owners, &r->owners);
	if (err) {
		bw_rec_index_free(ix);
		return err;
	}
	ix->valid = true;
	err = bw_records_each_added(mem, nblocks, walked, ix);
	if (err || !ix->valid) {
		bw_rec_index_free(ix);
		return err ?: -ENOMEM;
	}
	ix->mem = mem;
	ix->nblocks = nblocks;
	ix->marks = marks;
	ix->end = (__u64)end;
	ix->subdomains = r->have_dns && (r->dns.opts & BW_REC_DNS_SUBDOMAINS);
	return 0;
}

bool bw_rec_index_current(const struct bw_rec_index *ix, const void *mem,
			  __u32 nblocks)
{
	return ix->valid && ix->mem == mem && ix->nblocks == nblocks &&
	       bw_records_marks(mem, nblocks) == ix->marks &&
	       bw_records_log_ends_at(mem, nblocks, ix->end);
}

/* Appended entry i of s, at off, into the index: 0 or -ENOMEM. */
static int follow(struct bw_rec_index *ix, const struct bw_entries *s, size_t i,
		  __u64 off)
{
	__u64 exp = s->v[i].expires;
	long x = key_at(ix, bw_entries_key(s, i));

	if (x < 0 || occ_push(ix, x, off))
		return -ENOMEM;
	/* As the log holds it: its last occurrence decides. */
	ix->keys.v[x].expires =
		exp < BW_REC_EXPIRES_MAX ? exp : BW_REC_EXPIRES_MAX;
	bw_records_visits++;
	return 0;
}

int bw_rec_index_add(struct bw_rec_index *ix, void *mem, __u32 nblocks,
		     const struct bw_entries *s, const struct bw_owners *own)
{
	__u64 *off, end = ix->end;
	size_t i;
	int err;

	if (!bw_rec_index_current(ix, mem, nblocks))
		return -ESTALE;
	off = calloc(s->n ?: 1, sizeof(*off));
	if (!off)
		return -ENOMEM;
	err = bw_records_log_add_at(mem, nblocks, s, own, &end, off);
	if (err) {
		free(off);
		return err;
	}
	ix->end = end;
	/* The prefixes lie first in the log: entries in their order. */
	for (i = 0; !err && i < s->n; i++) {
		if (s->v[i].kind != BW_ENTRY_PREFIX)
			continue;
		err = follow(ix, s, i, off[i])
			      ?: bw_owners_put(
					 &ix->owners, bw_entries_key(s, i),
					 own ? bw_owners_get(
						       own,
						       bw_entries_key(s, i))
					     : NULL);
	}
	for (i = 0; !err && i < s->n; i++)
		if (s->v[i].kind == BW_ENTRY_NAME)
			err = follow(ix, s, i, off[i]);
	free(off);
	if (err)
		bw_rec_index_forget(ix);
	return 0;
}

long bw_rec_index_mark(struct bw_rec_index *ix, void *mem, __u32 nblocks,
		       const struct bw_entries *s, bool *found)
{
	struct bw_entry_key k;
	bool missed = false;
	size_t i, marked = 0;
	__u32 o;
	long x;

	if (!bw_rec_index_current(ix, mem, nblocks))
		return -ESTALE;
	memset(found, 0, s->n * sizeof(*found));
	for (i = 0; i < s->n; i++) {
		k = bw_entries_key(s, i);
		x = bw_entries_find(&ix->keys, k);
		bw_records_visits++;
		if (x < 0)
			continue;
		for (o = ix->first[x]; o != BW_REC_OCC_NONE;
		     o = ix->occ[o].next) {
			if (bw_records_mark_at(mem, nblocks, ix->occ[o].off, k))
				found[i] = true;
			else
				missed = true;
		}
		ix->first[x] = BW_REC_OCC_NONE;
		ix->keys.v[x].expires = BW_REC_INDEX_OUT;
		bw_owners_clear(&ix->owners, k);
		marked += found[i];
	}
	bw_records_marks_add(mem, nblocks, (__u32)marked);
	ix->marks += (__u32)marked;
	if (missed)
		bw_rec_index_forget(ix);
	return (long)marked;
}

bool bw_rec_index_held(const struct bw_rec_index *ix, struct bw_entry_key k,
		       __u64 *expires)
{
	long x = bw_entries_find(&ix->keys, k);

	if (x < 0 || ix->keys.v[x].expires == BW_REC_INDEX_OUT)
		return false;
	*expires = ix->keys.v[x].expires;
	return true;
}

const struct bw_owned *bw_rec_index_owners(const struct bw_rec_index *ix,
					   struct bw_entry_key k)
{
	return bw_owners_get(&ix->owners, k);
}

/* Entry i of s as the index holds it, for the owners' rules. */
static struct bw_owned_entry held_at(const struct bw_rec_index *ix,
				     const struct bw_entries *s, size_t i)
{
	struct bw_entry_key k = bw_entries_key(s, i);
	struct bw_owned_entry e = { 0 };

	e.held = bw_rec_index_held(ix, k, &e.expires);
	e.cur = bw_rec_index_owners(ix, k);
	return e;
}

int bw_rec_index_plan_add(const struct bw_rec_index *ix,
			  const struct bw_entries *s, const char *owner,
			  struct bw_entries *out, struct bw_owners *own)
{
	struct bw_owned set = { 0 };
	struct bw_owned_entry e;
	struct bw_entry_key k;
	__u64 end;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->n; i++) {
		k = bw_entries_key(s, i);
		end = s->v[i].expires;
		if (s->v[i].kind == BW_ENTRY_PREFIX &&
		    ((owner && *owner) || bw_rec_index_owners(ix, k))) {
			e = held_at(ix, s, i);
			err = bw_owned_add(&e, owner, s->v[i].expires, &set,
					   &end)
				      ?: bw_owners_put(own, k, &set);
		}
		err = err ?: bw_entries_push(out, k, end);
	}
	bw_owned_free(&set);
	return err;
}

int bw_rec_index_plan_remove(const struct bw_rec_index *ix,
			     const struct bw_entries *s, const char *owner,
			     __u64 now, struct bw_entries *gone,
			     struct bw_entries *kept, struct bw_owners *own,
			     __u8 *left)
{
	struct bw_owned set = { 0 };
	struct bw_owned_entry e;
	struct bw_entry_key k;
	__u64 end = 0;
	size_t i;
	int err = 0, r;

	for (i = 0; !err && i < s->n; i++) {
		k = bw_entries_key(s, i);
		e = held_at(ix, s, i);
		r = s->v[i].kind == BW_ENTRY_PREFIX
			    ? bw_owned_remove(&e, owner, now, &set, &end)
			    : BW_OWNED_NOT;
		if (r < 0) {
			err = r;
			break;
		}
		left[i] = (__u8)r;
		if (r == BW_OWNED_GONE)
			err = bw_entries_push(gone, k, 0);
		else if (r == BW_OWNED_KEPT)
			err = bw_owners_put(own, k, &set)
				      ?: bw_entries_push(kept, k, end);
	}
	bw_owned_free(&set);
	return err;
}
