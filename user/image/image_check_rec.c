// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The record area of an image's filter held to what a build writes
 * (image_check_rec.h): records_write.c's area and builder.c's records,
 * stated as checks; and the checks' shared pieces.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/bloom.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "image/image_check_rec.h"

const char *const bw_check_fam_names[BW_FAMILIES] = { "IPv4", "IPv6" };

int bw_check_fail(char *why, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A rate --fpr takes; NaN and subnormals fail isnormal. */
static bool fpr_ok(double f)
{
	return isnormal(f) && f >= BW_MIN_FPR && f < 0.5;
}

double bw_check_fpr_of(__u64 bits)
{
	double f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

int bw_check_rate(const char *what, __u64 bits, char *why, size_t errlen)
{
	if (fpr_ok(bw_check_fpr_of(bits)))
		return 0;
	return bw_check_fail(
		why, errlen,
		"%s is %g (bits 0x%016llx); a build takes a rate from %g to 0.5",
		what, bw_check_fpr_of(bits), (unsigned long long)bits,
		BW_MIN_FPR);
}

const struct bw_info *bw_check_info_of(const void *mem)
{
	return (const struct bw_info *)bw_block_at(mem, 1);
}

/* The header flags a build record keeps (builder.c, make_records). */
#define BUILD_FLAGS \
	(BW_F_MATCH_SRC | BW_F_MATCH_DST | BW_F_MONITOR | BW_F_VERIFY)
#define BUILD_OPTS (BW_REC_OPT_MASK_HOST_BITS | BW_REC_OPT_SKIP_INVALID)

/* The area's place: right after the regions, ending the filter. */
static int check_area(const void *mem, __u32 nblocks, char *why, size_t errlen)
{
	__u32 start = bw_records_start(mem);
	struct bw_rec_area a;
	__u64 room;

	if (start >= nblocks)
		return bw_check_fail(
			why, errlen,
			"record area: none (the regions end at block %u, the filter's end); a build always writes one",
			start);
	memcpy(&a, bw_block_at(mem, start), sizeof(a));
	if (a.magic != BW_REC_MAGIC)
		return bw_check_fail(
			why, errlen,
			"record area: magic 0x%08x at block %u (where the regions end), not 0x%08x (\"BREC\")",
			a.magic, start, BW_REC_MAGIC);
	if (a.version != BW_REC_VERSION)
		return bw_check_fail(
			why, errlen,
			"record area: version %u; this bloomwall reads %u",
			a.version, BW_REC_VERSION);
	room = (__u64)(nblocks - start - 1) * BW_BLOCK_BYTES;
	if (a.records_len > room)
		return bw_check_fail(
			why, errlen,
			"record area: records_len %llu, past the %llu bytes to the filter's end",
			(unsigned long long)a.records_len,
			(unsigned long long)room);
	if (room - a.records_len >= BW_BLOCK_BYTES)
		return bw_check_fail(
			why, errlen,
			"record area: records_len %llu, but %llu bytes follow its block: the filter has blocks after its records",
			(unsigned long long)a.records_len,
			(unsigned long long)room);
	return 0;
}

static int check_build_rec(const struct bw_records *rec, const void *mem,
			   char *why, size_t errlen)
{
	const struct bw_hdr *h = mem;
	const struct bw_info *info = bw_check_info_of(mem);
	const struct bw_rec_build *b = &rec->build;
	int f, err;

	if (!rec->have_build)
		return bw_check_fail(
			why, errlen,
			"record area: no build record (type %d); a build always writes one",
			BW_REC_BUILD);
	err = bw_check_rate("build record: fpr", b->fpr_bits, why, errlen);
	if (err)
		return err;
	if (info->fpr_hi &&
	    b->fpr_bits != ((__u64)info->fpr_hi << 32 | info->fpr_lo))
		return bw_check_fail(
			why, errlen,
			"build record: fpr %g, but the filter info's is %g",
			bw_check_fpr_of(b->fpr_bits), bw_info_fpr(info));
	if (b->flags != (h->flags & BUILD_FLAGS))
		return bw_check_fail(
			why, errlen,
			"build record: flags 0x%04x, but the filter header's are 0x%04x",
			b->flags, h->flags & BUILD_FLAGS);
	for (f = 0; f < BW_FAMILIES; f++)
		if (b->max_lengths[f] > BW_MAX_LENGTHS)
			return bw_check_fail(
				why, errlen,
				"build record: max_lengths[%s] is %u; at most %d",
				bw_check_fam_names[f], b->max_lengths[f],
				BW_MAX_LENGTHS);
	if (b->opts & ~BUILD_OPTS)
		return bw_check_fail(
			why, errlen,
			"build record: opts 0x%02x: bits 0x%02x are none this bloomwall knows",
			b->opts, b->opts & ~BUILD_OPTS);
	return 0;
}

static int check_dns_rec(const struct bw_records *rec, const void *mem,
			 char *why, size_t errlen)
{
	const struct bw_dns_hdr *d = bw_filter_dns(mem);
	const struct bw_rec_dns *r = &rec->dns;

	if (!rec->have_dns)
		return 0;
	if (r->ttl > BW_MAX_DNS_TTL)
		return bw_check_fail(
			why, errlen,
			"DNS record: ttl %u; --dns-ttl takes 0 to %u seconds",
			r->ttl, BW_MAX_DNS_TTL);
	if (r->opts & ~BW_REC_DNS_SUBDOMAINS)
		return bw_check_fail(
			why, errlen,
			"DNS record: opts 0x%02x: bits 0x%02x are none this bloomwall knows",
			r->opts, r->opts & ~BW_REC_DNS_SUBDOMAINS);
	if (d && (d->action != r->action || d->ttl != r->ttl))
		return bw_check_fail(
			why, errlen,
			"DNS record: action %u, ttl %u, but the DNS block's are %u, %u",
			r->action, r->ttl, d->action, d->ttl);
	return 0;
}

/* The counts the regions were sized for are the info block's own. */
static int check_sized_rec(const struct bw_records *rec, const void *mem,
			   char *why, size_t errlen)
{
	const struct bw_info *info = bw_check_info_of(mem);
	const struct bw_dns_hdr *d = bw_filter_dns(mem);
	const struct bw_rec_sized *s = &rec->sized;
	int i;

	if (!rec->have_sized)
		return 0;
	if (s->entries != info->entries)
		return bw_check_fail(
			why, errlen,
			"sizing record: entries %llu, but the filter info's are %llu",
			(unsigned long long)s->entries,
			(unsigned long long)info->entries);
	for (i = 0; i < BW_REGIONS; i++)
		if (s->region_entries[i] != info->region_entries[i])
			return bw_check_fail(
				why, errlen,
				"sizing record: region_entries[%d] %u, but the filter info's is %u",
				i, s->region_entries[i],
				info->region_entries[i]);
	for (i = 0; i < BW_NAME_REGIONS; i++)
		if (s->name_region_entries[i] != (d ? d->region_entries[i] : 0))
			return bw_check_fail(
				why, errlen,
				"sizing record: name_region_entries[%d] %u, but the DNS block's is %u",
				i, s->name_region_entries[i],
				d ? d->region_entries[i] : 0);
	return 0;
}

/* The image record as a build writes it: who signed it is load's to say. */
static int check_image_rec(const struct bw_records *rec, char *why,
			   size_t errlen)
{
	static const __u8 zero[sizeof(rec->image.signer)];
	const struct bw_rec_image *r = &rec->image;
	size_t i;

	if (!rec->have_image)
		return 0;
	if (memcmp(r->signer, zero, sizeof(zero)) || r->flags)
		return bw_check_fail(
			why, errlen,
			"image record: signer or flags set (0x%02x), which only a load writes",
			r->flags);
	for (i = 0; i < sizeof(r->pad); i++)
		if (r->pad[i])
			return bw_check_fail(
				why, errlen,
				"image record: pad[%zu] is not zero", i);
	return 0;
}

int bw_image_check_records(const void *mem, __u32 nblocks, char *why,
			   size_t errlen)
{
	struct bw_records rec;
	int err;

	err = check_area(mem, nblocks, why, errlen);
	if (err)
		return err;
	if (bw_records_read(mem, nblocks, &rec))
		return bw_check_fail(
			why, errlen,
			"record area: its records are malformed (a length past the area, a duplicate or an unknown field)");
	err = check_build_rec(&rec, mem, why, errlen);
	if (!err)
		err = check_dns_rec(&rec, mem, why, errlen);
	if (!err)
		err = check_sized_rec(&rec, mem, why, errlen);
	if (!err)
		err = check_image_rec(&rec, why, errlen);
	bw_records_free(&rec);
	return err;
}
