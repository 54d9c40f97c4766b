// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The false-positive rate of a running filter by the model (rate.h). */
#include "filter/bloom.h"
#include "filter/bloom_names.h"
#include "filter/bloom_size.h"
#include "filter/rate.h"

static double region_rate(__u64 keys, __u32 start, __u32 end,
			  unsigned int probes)
{
	if (!keys)
		return 0.0;
	/* Keys with no blocks to go in would all be hits. */
	return end > start ? bw_model_fpr(keys, end - start, probes) : 1.0;
}

static double family_rate(const void *mem, int f, const struct bw_rate_more *m)
{
	const struct bw_hdr *hdr = mem;
	const struct bw_info *info =
		(const void *)((const char *)mem + BW_BLOCK_BYTES);
	double sum = 0.0;
	int i, r;

	for (i = 0; i < BW_MAX_LENGTHS; i++) {
		r = f * BW_MAX_LENGTHS + i;
		sum += region_rate(info->region_entries[r] +
					   (m ? m->keys[r] : 0),
				   bw_region_start(hdr, (__u32)r),
				   hdr->region_end[r], hdr->probes[r]);
	}
	return sum < 1.0 ? sum : 1.0;
}

static double names_rate(const void *mem, const struct bw_rate_more *m)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	double rate[BW_NAME_REGIONS], sum;
	int n;

	if (!dns)
		return 0.0;
	for (n = 0; n < BW_NAME_REGIONS; n++)
		rate[n] = region_rate(dns->region_entries[n] +
					      (m ? m->names[n] : 0),
				      bw_name_region_start(mem, dns, (__u32)n),
				      dns->region_end[n], dns->probes[n]);
	sum = rate[BW_NAME_EXACT] + BW_NAME_FPR_LABELS * rate[BW_NAME_SUBTREE];
	return sum < 1.0 ? sum : 1.0;
}

double bw_rate_of(const void *mem, int part, const struct bw_rate_more *m)
{
	if (part == BW_RATE_NAMES)
		return names_rate(mem, m);
	return family_rate(mem, part, m);
}

double bw_rate_target(const void *mem, int part)
{
	const struct bw_dns_hdr *dns;

	if (part != BW_RATE_NAMES)
		return bw_info_fpr(
			(const void *)((const char *)mem + BW_BLOCK_BYTES));
	dns = bw_filter_dns(mem);
	return dns ? bw_dns_fpr(dns) : BW_DEFAULT_FPR;
}

int bw_rate_past(const void *mem, const struct bw_rate_more *m, double limit,
		 double *rate, double *target)
{
	int part;

	for (part = 0; part < BW_RATE_PARTS; part++) {
		*rate = bw_rate_of(mem, part, m);
		*target = bw_rate_target(mem, part);
		if (*rate > limit * *target)
			return part;
	}
	return -1;
}

const char *bw_rate_part_name(int part)
{
	switch (part) {
	case BW_RATE_V4:
		return "IPv4 addresses";
	case BW_RATE_V6:
		return "IPv6 addresses";
	default:
		return "names";
	}
}
