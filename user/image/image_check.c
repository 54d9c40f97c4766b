// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The filter inside an image held to what a build writes (image_check.h):
 * the rules below are those of bloom_size.c's and bloom_names.c's plans,
 * records_write.c's area and builder.c's records, stated as checks.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/records.h"
#include "image/image_check.h"
#include "image/image_check_rec.h"

#define KNOWN_FLAGS                                                     \
	(BW_F_MATCH_SRC | BW_F_MATCH_DST | BW_F_MONITOR | BW_F_VERIFY | \
	 BW_F_ALLOW | BW_F_DNS)
/* Format 2's rate in parts per billion, below 0.5. */
#define PPB_MAX 499999999U

static bool probes_ok(unsigned int p)
{
	return p && p <= BW_MAX_PROBES && !(p % BW_ROUND_PROBES);
}

static bool all_zero(const void *p, size_t n)
{
	const __u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static int check_hdr(const struct bw_hdr *h, char *why, size_t errlen)
{
	if (h->magic != BW_MAGIC)
		return bw_check_fail(
			why, errlen,
			"filter header: magic 0x%08x, not 0x%08x (\"BLOM\")",
			h->magic, BW_MAGIC);
	if (h->version < BW_VERSION_MIN || h->version > BW_VERSION)
		return bw_check_fail(
			why, errlen,
			"filter header: version %u; this bloomwall reads %u to %u",
			h->version, BW_VERSION_MIN, BW_VERSION);
	if (h->flags & ~KNOWN_FLAGS)
		return bw_check_fail(
			why, errlen,
			"filter header: flags 0x%04x: bits 0x%04x are none this bloomwall knows",
			h->flags, h->flags & ~KNOWN_FLAGS);
	if (!(h->flags & (BW_F_MATCH_SRC | BW_F_MATCH_DST)))
		return bw_check_fail(
			why, errlen,
			"filter header: flags 0x%04x match neither source (0x%x) nor destination (0x%x)",
			h->flags, BW_F_MATCH_SRC, BW_F_MATCH_DST);
	if ((h->flags & BW_F_DNS) && h->version < 3)
		return bw_check_fail(
			why, errlen,
			"filter header: flags 0x%04x name a DNS block (0x%x), which a format %u filter has not",
			h->flags, BW_F_DNS, h->version);
	if (h->exact_slot >= BW_EXACT_SLOTS)
		return bw_check_fail(
			why, errlen,
			"filter header: exact_slot %u; the slots are 0 to %d",
			h->exact_slot, BW_EXACT_SLOTS - 1);
	if (h->pad)
		return bw_check_fail(why, errlen,
				     "filter header: pad 0x%02x, not zero",
				     h->pad);
	return 0;
}

/* A region past nlengths: a build leaves it empty and all zero. */
static int check_unused(const void *mem, int f, int i, char *why, size_t errlen)
{
	const struct bw_hdr *h = mem;
	int r = f * BW_MAX_LENGTHS + i;
	__u32 blocks = h->region_end[r] - bw_region_start(h, r);

	if (!blocks && !h->plen[f][i] && !h->probes[r] &&
	    !bw_check_info_of(mem)->region_entries[r])
		return 0;
	return bw_check_fail(
		why, errlen,
		"filter header: region %d is past nlengths[%s] = %u, but has %u blocks, plen[%s][%d] %u, probes[%d] %u, region_entries[%d] %u (all 0 in a build)",
		r, bw_check_fam_names[f], h->nlengths[f], blocks,
		bw_check_fam_names[f], i, h->plen[f][i], r, h->probes[r], r,
		bw_check_info_of(mem)->region_entries[r]);
}

/* A region a build made: a length, its keys, its blocks. */
static int check_used(const void *mem, int f, int i, __u64 *sum, char *why,
		      size_t errlen)
{
	const struct bw_hdr *h = mem;
	unsigned int maxlen = f == BW_V4 ? 32 : 128, plen = h->plen[f][i];
	int r = f * BW_MAX_LENGTHS + i;
	__u32 e = bw_check_info_of(mem)->region_entries[r];

	if (plen > maxlen)
		return bw_check_fail(
			why, errlen,
			"filter header: plen[%s][%d] is %u; an %s prefix has at most %u bits",
			bw_check_fam_names[f], i, plen, bw_check_fam_names[f],
			maxlen);
	if (i && plen >= h->plen[f][i - 1])
		return bw_check_fail(
			why, errlen,
			"filter header: plen[%s][%d] is /%u after /%u: target lengths go longest first, each once",
			bw_check_fam_names[f], i, plen, h->plen[f][i - 1]);
	if (!probes_ok(h->probes[r]))
		return bw_check_fail(
			why, errlen,
			"filter header: probes[%d] is %u; a region has 8 or 16 bits per key",
			r, h->probes[r]);
	if (h->region_end[r] == bw_region_start(h, r))
		return bw_check_fail(
			why, errlen,
			"filter header: region %d (%s /%u) has no blocks (region_end[%d] %u)",
			r, bw_check_fam_names[f], plen, r, h->region_end[r]);
	if (!e)
		return bw_check_fail(
			why, errlen,
			"filter info: region_entries[%d] (%s /%u) is 0; a build makes a region only for entries",
			r, bw_check_fam_names[f], plen);
	/* A length holds at most 2^plen distinct prefixes. */
	if (plen < 32 && e > 1ULL << plen)
		return bw_check_fail(
			why, errlen,
			"filter info: region_entries[%d] is %u, more than the %llu %s prefixes of length /%u",
			r, e, 1ULL << plen, bw_check_fam_names[f], plen);
	*sum += e;
	return 0;
}

static int check_regions(const void *mem, __u32 nblocks, __u64 *sum, char *why,
			 size_t errlen)
{
	const struct bw_hdr *h = mem;
	int f, i, r, err;
	__u32 start;

	for (f = 0; f < BW_FAMILIES; f++) {
		if (h->nlengths[f] > BW_MAX_LENGTHS)
			return bw_check_fail(
				why, errlen,
				"filter header: nlengths[%s] is %u; at most %d",
				bw_check_fam_names[f], h->nlengths[f],
				BW_MAX_LENGTHS);
		for (i = 0; i < BW_MAX_LENGTHS; i++) {
			r = f * BW_MAX_LENGTHS + i;
			start = bw_region_start(h, r);
			if (h->region_end[r] < start)
				return bw_check_fail(
					why, errlen,
					"filter header: region_end[%d] is %u, before the region's start at block %u",
					r, h->region_end[r], start);
			if (h->region_end[r] > nblocks)
				return bw_check_fail(
					why, errlen,
					"filter header: region_end[%d] is %u, past the filter's %u blocks",
					r, h->region_end[r], nblocks);
			err = i < h->nlengths[f]
				      ? check_used(mem, f, i, sum, why, errlen)
				      : check_unused(mem, f, i, why, errlen);
			if (err)
				return err;
		}
	}
	return 0;
}

static int check_info(const void *mem, __u64 sum, char *why, size_t errlen)
{
	const struct bw_hdr *h = mem;
	const struct bw_info *info = bw_check_info_of(mem);

	if (!info->generation)
		return bw_check_fail(
			why, errlen,
			"filter info: generation 0; a build numbers filters from 1");
	if (info->entries != sum)
		return bw_check_fail(
			why, errlen,
			"filter info: entries %llu, but its region_entries add up to %llu",
			(unsigned long long)info->entries,
			(unsigned long long)sum);
	/* Format 2 wrote parts per billion with the top word zero. */
	if (!info->fpr_hi && h->version == 2 && info->fpr_lo &&
	    info->fpr_lo <= PPB_MAX)
		return 0;
	return bw_check_rate("filter info: fpr",
			     (__u64)info->fpr_hi << 32 | info->fpr_lo, why,
			     errlen);
}

/* Without BW_F_DNS the block after the regions is the record area's. */
static int check_no_dns(const void *mem, __u32 nblocks, char *why,
			size_t errlen)
{
	const struct bw_hdr *h = mem;
	__u32 blk = bw_dns_block(h);
	__u32 magic;

	if (blk >= nblocks)
		return 0;
	memcpy(&magic, bw_block_at(mem, blk), sizeof(magic));
	if (magic != BW_DNS_MAGIC)
		return 0;
	return bw_check_fail(
		why, errlen,
		"filter header: flags 0x%04x lack BW_F_DNS (0x%x), but block %u after the regions is a DNS block",
		h->flags, BW_F_DNS, blk);
}

static int check_dns_fields(const struct bw_dns_hdr *d, char *why,
			    size_t errlen)
{
	if (d->magic != BW_DNS_MAGIC)
		return bw_check_fail(
			why, errlen,
			"DNS block: magic 0x%08x, not 0x%08x (\"BDNS\")",
			d->magic, BW_DNS_MAGIC);
	if (d->action >= BW_DNS_ACTIONS)
		return bw_check_fail(
			why, errlen,
			"DNS block: action %u; the actions are 0 to %d (null, nxdomain, refused, drop)",
			d->action, BW_DNS_ACTIONS - 1);
	if (d->flags & ~BW_DNS_F_ALLOW)
		return bw_check_fail(
			why, errlen,
			"DNS block: flags 0x%02x: bits 0x%02x are none this bloomwall knows",
			d->flags, d->flags & ~BW_DNS_F_ALLOW);
	if (d->ttl > BW_MAX_DNS_TTL)
		return bw_check_fail(
			why, errlen,
			"DNS block: ttl %u; --dns-ttl takes 0 to %u seconds",
			d->ttl, BW_MAX_DNS_TTL);
	if (d->pad || !all_zero(d->pad2, sizeof(d->pad2)))
		return bw_check_fail(why, errlen, "DNS block: pad not zero");
	return bw_check_rate("DNS block: fpr", d->fpr_bits, why, errlen);
}

static int check_dns(const void *mem, __u32 nblocks, char *why, size_t errlen)
{
	const struct bw_hdr *h = mem;
	const struct bw_dns_hdr *d;
	__u32 prev, end;
	__u64 total = 0;
	int n, err;

	if (!(h->flags & BW_F_DNS))
		return check_no_dns(mem, nblocks, why, errlen);
	if (bw_dns_block(h) >= nblocks)
		return bw_check_fail(
			why, errlen,
			"filter header: flags 0x%04x name a DNS block at block %u, past the filter's %u blocks",
			h->flags, bw_dns_block(h), nblocks);
	d = bw_filter_dns(mem);
	err = check_dns_fields(d, why, errlen);
	if (err)
		return err;
	prev = bw_dns_block(h) + 1;
	for (n = 0; n < BW_NAME_REGIONS; n++, prev = end) {
		end = d->region_end[n];
		if (end < prev || end > nblocks)
			return bw_check_fail(
				why, errlen,
				"DNS block: region_end[%d] is %u, outside blocks %u to %u",
				n, end, prev, nblocks);
		if (!probes_ok(d->probes[n]))
			return bw_check_fail(
				why, errlen,
				"DNS block: probes[%d] is %u; a region has 8 or 16 bits per key",
				n, d->probes[n]);
		if ((end > prev) != (d->region_entries[n] > 0))
			return bw_check_fail(
				why, errlen,
				"DNS block: region_entries[%d] is %u for a region of %u blocks",
				n, d->region_entries[n], end - prev);
		total += d->region_entries[n];
	}
	if (!total)
		return bw_check_fail(
			why, errlen,
			"DNS block: both name regions are empty; a build writes the block only for names");
	return 0;
}

int bw_image_check_filter(const void *mem, __u32 nblocks, char *why,
			  size_t errlen)
{
	__u64 sum = 0;
	int err;

	if (nblocks < BW_HDR_BLOCKS)
		return bw_check_fail(
			why, errlen,
			"%u blocks: a filter has at least its header and info blocks",
			nblocks);
	err = check_hdr(mem, why, errlen);
	if (!err)
		err = check_regions(mem, nblocks, &sum, why, errlen);
	if (!err)
		err = check_info(mem, sum, why, errlen);
	if (!err)
		err = check_dns(mem, nblocks, why, errlen);
	if (!err)
		err = bw_image_check_records(mem, nblocks, why, errlen);
	/* The data path's own check, which the rules above imply. */
	if (!err && bw_filter_check(mem, nblocks))
		err = bw_check_fail(why, errlen,
				    "the filter's regions do not fit it");
	return err;
}
