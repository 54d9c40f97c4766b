/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What cidr.c and its cost report share: a prefix of either family held
 * left-aligned in 128 bits (an IPv4 address in the top 32), read from and
 * written to a list's arrays; a merged family's plan (prefixes per length,
 * the target of each length); and the report itself, said when the
 * expansion is over the key cap (cidr.h).
 */
#ifndef __BW_CIDR_REPORT_H
#define __BW_CIDR_REPORT_H

#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/cidr_choose.h"
#include "lists/list.h"

typedef unsigned __int128 u128;

struct cpfx {
	u128 a;
	unsigned int plen;
};

static inline const char *fam_name(int f)
{
	return f == BW_V4 ? "IPv4" : "IPv6";
}

static inline size_t fam_count(const struct bw_list *l, int f)
{
	return f == BW_V4 ? l->n4 : l->n6;
}

static inline struct cpfx get_pfx(const struct bw_list *l, int f, size_t i)
{
	struct cpfx p;

	if (f == BW_V4) {
		p.a = (u128)bw_v4key_addr(l->v4[i]) << 96;
		p.plen = bw_v4key_plen(l->v4[i]);
	} else {
		p.a = (u128)l->v6[i].hi << 64 | l->v6[i].lo;
		p.plen = l->v6[i].plen;
	}
	return p;
}

static inline void put_pfx(__u64 *v4, struct bw_v6key *v6, int f, size_t i,
			   struct cpfx p)
{
	if (f == BW_V4) {
		v4[i] = bw_v4key((__u32)(p.a >> 96), p.plen);
		return;
	}
	v6[i].hi = (__u64)(p.a >> 64);
	v6[i].lo = (__u64)p.a;
	v6[i].plen = p.plen;
	v6[i].pad = 0;
}

static inline void put_list(struct bw_list *l, int f, size_t i, struct cpfx p)
{
	put_pfx(l->v4, l->v6, f, i, p);
}

/*
 * bw_cidr_prepare's private copy keeps, beside each merged prefix, the
 * shortest length listed inside it, in bits the entry does not use (an
 * IPv4 key's top byte, an IPv6 key's pad): a /31 made of two listed /32s
 * is the operator's own entries, expanded back, not a short prefix. The
 * keys written out never carry it.
 */
static inline unsigned int get_origin(const struct bw_list *l, int f, size_t i)
{
	return f == BW_V4 ? (unsigned int)(l->v4[i] >> 40) & 0xff
			  : l->v6[i].pad;
}

static inline void put_origin(struct bw_list *l, int f, size_t i,
			      unsigned int o)
{
	if (f == BW_V4)
		l->v4[i] = (l->v4[i] & ((1ULL << 40) - 1)) | (__u64)o << 40;
	else
		l->v6[i].pad = o;
}

/* Network bits of a prefix of length plen (plen 0: none). */
static inline u128 net_mask(unsigned int plen)
{
	return plen ? ~(u128)0 << (BW_CIDR_MAXW - plen) : 0;
}

/* Lowest address bit that a prefix of length plen (>= 1) still fixes. */
static inline u128 len_bit(unsigned int plen)
{
	return (u128)1 << (BW_CIDR_MAXW - plen);
}

static inline struct bw_prefix to_prefix(int f, struct cpfx p)
{
	struct bw_prefix out = { .family = (__u8)f, .plen = (__u8)p.plen };

	if (f == BW_V4) {
		out.lo = (__u32)(p.a >> 96);
	} else {
		out.hi = (__u64)(p.a >> 64);
		out.lo = (__u64)p.a;
	}
	return out;
}

struct fam_plan {
	__u64 count[BW_CIDR_MAXW + 1]; /* merged prefixes per length */
	unsigned int tgt[BW_CIDR_MAXW + 1];
};

/*
 * Says which lengths of family f in the merged list l cost the most keys,
 * with an example of each, and what to do: merged prefixes expand to
 * expanded keys at nlengths target lengths, k allowed. Through pr_warn.
 */
void bw_cidr_report_cost(const struct bw_list *l, int f,
			 const struct fam_plan *fp, __u64 merged,
			 __u64 expanded, unsigned int nlengths, unsigned int k);

#endif /* __BW_CIDR_REPORT_H */
