// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Merging and controlled prefix expansion (see cidr.h for the contract).
 *
 * Both families run through the same code: a prefix is held left-aligned in
 * 128 bits (an IPv4 address in the top 32), so masks, siblings and strides
 * do not depend on the family; only reading and writing the list's arrays
 * does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "base/log.h"
#include "lists/cidr.h"
#include "lists/cidr_choose.h"
#include "lists/cidr_report.h"

struct bw_prefix bw_cidr_key(const struct bw_prefix *p, unsigned int tlen,
			     __u64 j)
{
	struct cpfx k;

	if (p->family == BW_V4)
		k.a = (u128)(__u32)p->lo << 96;
	else
		k.a = (u128)p->hi << 64 | p->lo;
	/* A /0 target has one key, and no bit for len_bit() to name. */
	if (tlen)
		k.a += (u128)j * len_bit(tlen);
	k.plen = tlen;
	return to_prefix(p->family, k);
}

/* Both families, host bits cleared, lengths checked, into a private copy. */
static int copy_masked(const struct bw_list *in, struct bw_list *l)
{
	size_t i;
	int f;

	bw_list_init(l);
	l->v4 = malloc((in->n4 ? in->n4 : 1) * sizeof(*l->v4));
	l->v6 = malloc((in->n6 ? in->n6 : 1) * sizeof(*l->v6));
	if (!l->v4 || !l->v6) {
		bw_list_free(l);
		return -ENOMEM;
	}
	l->cap4 = l->n4 = in->n4;
	l->cap6 = l->n6 = in->n6;
	for (f = 0; f < BW_FAMILIES; f++) {
		for (i = 0; i < fam_count(in, f); i++) {
			struct cpfx p = get_pfx(in, f, i);

			if (p.plen > BW_CIDR_WIDTH(f)) {
				pr_warn("%s prefix length /%u is too long\n",
					fam_name(f), p.plen);
				bw_list_free(l);
				return -EINVAL;
			}
			p.a &= net_mask(p.plen);
			put_list(l, f, i, p);
		}
	}
	return 0;
}

static bool covers(struct cpfx outer, struct cpfx p)
{
	return outer.plen <= p.plen && (p.a & net_mask(outer.plen)) == outer.a;
}

/* x and y (x first) are the two halves of one shorter prefix. */
static bool siblings(struct cpfx x, struct cpfx y)
{
	return x.plen == y.plen && x.plen && (x.a ^ y.a) == len_bit(x.plen);
}

/*
 * One family of a sorted list, in place. The kept prefixes form a stack at
 * the front of the array; they are disjoint and in address order, so only
 * the top can cover the next prefix, and only the top two can be siblings.
 * With origin, each kept prefix notes its shortest listed length.
 */
static size_t merge_family(struct bw_list *l, int f, bool origin)
{
	size_t i, top = 0, n = fam_count(l, f);
	struct cpfx p, left;
	unsigned int o;

	for (i = 0; i < n; i++) {
		p = get_pfx(l, f, i);
		/* A covered prefix is longer than its cover: no new origin. */
		if (top && covers(get_pfx(l, f, top - 1), p))
			continue;
		o = p.plen;
		while (top) {
			left = get_pfx(l, f, top - 1);
			if (!siblings(left, p))
				break;
			if (origin && get_origin(l, f, top - 1) < o)
				o = get_origin(l, f, top - 1);
			p = (struct cpfx){ left.a, left.plen - 1 };
			top--;
		}
		put_list(l, f, top, p);
		if (origin)
			put_origin(l, f, top, o);
		top++;
	}
	return top;
}

static void merge_list(struct bw_list *l, bool origin, struct bw_cidr_stats *st)
{
	size_t n4 = l->n4, n6 = l->n6;

	bw_list_finish(l);
	l->n4 = merge_family(l, BW_V4, origin);
	l->n6 = merge_family(l, BW_V6, origin);
	if (!st)
		return;
	st->fam[BW_V4].source = n4;
	st->fam[BW_V4].merged = l->n4;
	st->fam[BW_V6].source = n6;
	st->fam[BW_V6].merged = l->n6;
}

void bw_cidr_merge(struct bw_list *l, struct bw_cidr_stats *st)
{
	merge_list(l, false, st);
}

void bw_cidr_opts_init(struct bw_cidr_opts *o)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		o->max_lengths[f] = BW_MAX_LENGTHS;
		o->extra[f] = NULL;
	}
	o->max_keys = BW_CIDR_MAX_KEYS;
	o->cap_why = NULL;
}

/* Target of every length 0..width: the nearest target at or above it. */
static void target_map(const struct bw_cidr_family_stats *fs,
		       unsigned int width, unsigned int *tgt)
{
	unsigned int len, i;

	for (len = 0; len <= width; len++) {
		tgt[len] = 0;
		for (i = 0; i < fs->nlengths; i++)
			if (fs->plen[i] >= len)
				tgt[len] = fs->plen[i];
	}
}

/* Lengths, targets and key counts of one merged family. */
/* Keys of count[0..width] per target length of fs, into keys. */
static __u64 keys_at(const struct bw_cidr_family_stats *fs,
		     const unsigned int *tgt, const __u64 *count,
		     unsigned int width, __u64 *keys)
{
	__u64 total = 0, c;
	unsigned int i, j;

	for (i = 0; i < fs->nlengths; i++)
		keys[i] = 0;
	for (j = 0; count && j <= width; j++) {
		for (i = 0; i < fs->nlengths; i++) {
			if (!count[j] || fs->plen[i] != tgt[j])
				continue;
			c = bw_sat_shl(count[j], tgt[j] - j);
			keys[i] = bw_sat_add(keys[i], c);
			total = bw_sat_add(total, c);
		}
	}
	return total;
}

static int plan_family(const struct bw_list *l, int f, unsigned int k,
		       const __u64 *extra, struct fam_plan *fp,
		       struct bw_cidr_family_stats *fs)
{
	unsigned int width = BW_CIDR_WIDTH(f);
	size_t j, n = fam_count(l, f);
	__u64 all[BW_CIDR_MAXW + 1];
	int err;

	memset(fp->count, 0, sizeof(fp->count));
	for (j = 0; j < n; j++)
		fp->count[get_pfx(l, f, j).plen]++;
	/* The extra prefixes choose target lengths with the lists'. */
	for (j = 0; j <= width; j++)
		all[j] = bw_sat_add(fp->count[j], extra ? extra[j] : 0);
	err = bw_cidr_choose(all, width, k, fs->plen, &fs->nlengths,
			     &fs->expanded);
	if (err)
		return err;
	target_map(fs, width, fp->tgt);
	fs->expanded = keys_at(fs, fp->tgt, fp->count, width, fs->keys);
	keys_at(fs, fp->tgt, extra, width, fs->extra_keys);
	fs->shortest = fs->nlengths ? fs->plen[fs->nlengths - 1] : 0;
	for (j = width + 1; j-- > 0;)
		if (fp->count[j])
			fs->shortest = (unsigned int)j;
	return 0;
}

/* Writes the expanded keys of one merged family into fresh arrays. */
static int expand_family(const struct bw_list *l, int f,
			 const struct fam_plan *fp, __u64 nkeys,
			 struct bw_list *out)
{
	size_t i, o = 0, n = fam_count(l, f);
	__u64 *v4 = NULL;
	struct bw_v6key *v6 = NULL;
	void *mem;

	mem = malloc((nkeys ? nkeys : 1) *
		     (f == BW_V4 ? sizeof(*v4) : sizeof(*v6)));
	if (!mem)
		return -ENOMEM;
	if (f == BW_V4)
		v4 = mem;
	else
		v6 = mem;
	for (i = 0; i < n; i++) {
		struct cpfx p = get_pfx(l, f, i);
		unsigned int t = fp->tgt[p.plen];
		u128 step = t ? len_bit(t) : 0, j, cnt;

		cnt = (u128)1 << (t - p.plen);
		for (j = 0; j < cnt; j++, p.a += step)
			put_pfx(v4, v6, f, o++, (struct cpfx){ p.a, t });
	}
	if (f == BW_V4) {
		out->v4 = v4;
		out->n4 = out->cap4 = o;
	} else {
		out->v6 = v6;
		out->n6 = out->cap6 = o;
	}
	return 0;
}

/*
 * Merged prefixes are disjoint and sorted, so their keys must come out
 * strictly increasing; anything else would be a bug here, not in the list.
 */
static int check_sorted(const struct bw_list *l, int f)
{
	size_t i, n = fam_count(l, f);

	for (i = 1; i < n; i++) {
		struct cpfx a = get_pfx(l, f, i - 1), b = get_pfx(l, f, i);

		if (a.a > b.a || (a.a == b.a && a.plen >= b.plen)) {
			pr_warn("internal error: %s keys overlap after expansion\n",
				fam_name(f));
			return -EFAULT;
		}
	}
	return 0;
}

static int check_opts(const struct bw_cidr_opts *o, unsigned int *k, __u64 *cap)
{
	int f;

	for (f = 0; f < BW_FAMILIES; f++) {
		k[f] = o->max_lengths[f] ? o->max_lengths[f] : BW_MAX_LENGTHS;
		if (k[f] > BW_MAX_LENGTHS) {
			pr_warn("--max-lengths %u: at most %d target lengths per family\n",
				k[f], BW_MAX_LENGTHS);
			return -EINVAL;
		}
	}
	*cap = o->max_keys ? o->max_keys : BW_CIDR_MAX_KEYS;
	return 0;
}

/* Plans both families of a merged list; -E2BIG past the key cap. */
static int plan_all(const struct bw_list *work, const unsigned int *k,
		    const struct bw_cidr_opts *o, __u64 cap,
		    struct fam_plan *fp, struct bw_cidr_stats *st)
{
	__u64 total = 0;
	int f, err;

	for (f = 0; f < BW_FAMILIES; f++) {
		err = plan_family(work, f, k[f], o->extra[f], &fp[f],
				  &st->fam[f]);
		if (err)
			return err;
		total = bw_sat_add(total, st->fam[f].expanded);
	}
	if (total <= cap)
		return 0;
	pr_warn("Prefix expansion needs %llu keys, more than the cap of %llu%s%s%s\n",
		(unsigned long long)total, (unsigned long long)cap,
		o->cap_why ? " (" : "", o->cap_why ?: "",
		o->cap_why ? ")" : "");
	for (f = 0; f < BW_FAMILIES; f++)
		if (st->fam[f].expanded > st->fam[f].merged)
			bw_cidr_report_cost(work, f, &fp[f], st->fam[f].merged,
					    st->fam[f].expanded,
					    st->fam[f].nlengths, k[f]);
	return -E2BIG;
}

int bw_cidr_prepare(const struct bw_list *in, const struct bw_cidr_opts *o,
		    struct bw_list *out, struct bw_cidr_stats *st)
{
	struct fam_plan *fp = NULL;
	struct bw_cidr_opts defaults;
	struct bw_cidr_stats local;
	struct bw_list work;
	unsigned int k[BW_FAMILIES];
	__u64 cap;
	int f, err;

	bw_list_init(out);
	if (!o) {
		bw_cidr_opts_init(&defaults);
		o = &defaults;
	}
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	err = check_opts(o, k, &cap);
	if (err)
		return err;
	err = copy_masked(in, &work);
	if (err)
		return err;
	merge_list(&work, true, st);
	st->fam[BW_V4].source = in->n4;
	st->fam[BW_V6].source = in->n6;
	fp = calloc(BW_FAMILIES, sizeof(*fp));
	err = fp ? plan_all(&work, k, o, cap, fp, st) : -ENOMEM;
	for (f = 0; f < BW_FAMILIES && !err; f++) {
		err = expand_family(&work, f, &fp[f], st->fam[f].expanded, out);
		if (!err)
			err = check_sorted(out, f);
	}
	out->lines = in->lines;
	out->skipped = in->skipped;
	out->duplicates = in->duplicates;
	free(fp);
	bw_list_free(&work);
	if (err)
		bw_list_free(out);
	return err;
}
