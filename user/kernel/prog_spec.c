// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The program made for one filter (prog_spec.h): its header, region, DNS
 * and drop log constants in .rodata before the load.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "bloomwall.h"
#include "bloomwall.skel.h"
#include "filter/bloom.h"
#include "kernel/prog_spec.h"

/* Block idx of filter m (its mapping or a map lookup). 0 or -errno. */
static int read_block(const struct bw_filter_map *m, __u32 idx,
		      struct bw_block *blk)
{
	if (m->mem && ((size_t)idx + 1) * BW_BLOCK_BYTES <= m->len) {
		memcpy(blk, (const char *)m->mem + (size_t)idx * BW_BLOCK_BYTES,
		       sizeof(*blk));
		return 0;
	}
	return bpf_map_lookup_elem(m->fd, &idx, blk) ? -errno : 0;
}

/*
 * dns_consts from the DNS block of a filter with BW_F_DNS, zeros without:
 * a header that says names but has no DNS block in the map (or name
 * regions past its end) is no filter to load.
 */
static int specialise_dns(struct bloomwall *skel, const struct bw_hdr *hdr,
			  const struct bw_filter_map *m, __u32 nblocks)
{
	struct bw_dns_consts *dc =
		(struct bw_dns_consts *)&skel->rodata->dns_consts;
	struct bw_dns_hdr dns;
	struct bw_block blk;
	__u32 at = bw_dns_block(hdr);
	int err;

	skel->rodata->prog_variant &= ~BW_VARIANT_NAMES;
	if (!(hdr->flags & BW_F_DNS)) {
		bw_dns_consts_init(hdr, NULL, dc);
		return 0;
	}
	if (at >= nblocks)
		return -EINVAL;
	err = read_block(m, at, &blk);
	if (err)
		return err;
	memcpy(&dns, &blk, sizeof(dns));
	if (dns.magic != BW_DNS_MAGIC ||
	    dns.region_end[BW_NAME_REGIONS - 1] > nblocks ||
	    dns.action >= BW_DNS_ACTIONS)
		return -EINVAL;
	bw_dns_consts_init(hdr, &dns, dc);
	if (dc->nblocks[BW_NAME_EXACT] || dc->nblocks[BW_NAME_SUBTREE])
		skel->rodata->prog_variant |= BW_VARIANT_NAMES;
	return 0;
}

/* ---- the drop log's rate ------------------------------------------------- */

static long log_rate_set = -1;

void bw_prog_set_log_rate(long rate)
{
	if (rate > (long)BW_LOG_RATE_MAX)
		rate = BW_LOG_RATE_MAX;
	log_rate_set = rate;
}

__u32 bw_prog_log_rate(long known)
{
	if (log_rate_set >= 0)
		return log_rate_set;
	if (known >= 0)
		return known > (long)BW_LOG_RATE_MAX ? BW_LOG_RATE_MAX : known;
	return BW_LOG_RATE_DEFAULT;
}

/*
 * The kernel's ticks a second (HZ): the coarse clocks' resolution is one
 * tick. 250, Debian's, if it cannot be read.
 */
__u32 bw_kernel_hz(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) || res.tv_sec ||
	    res.tv_nsec <= 0)
		return 250;
	return (__u32)((1000000000L + res.tv_nsec / 2) / res.tv_nsec);
}

/*
 * The bucket holds one second of events: a burst as large as the rate,
 * so a quiet CPU logs the first rate drops of a flood at once and then
 * rate a second. Credit is counted in 2^-BW_LOG_CREDIT_SHIFT jiffies: one
 * event costs a second's worth (HZ jiffies) divided by the rate.
 */
void bw_log_consts_init(__u32 rate, struct bw_log_consts *lc)
{
	memset(lc, 0, sizeof(*lc));
	if (!rate)
		return;
	lc->rate = rate;
	lc->burst = rate;
	lc->cost = ((__u64)bw_kernel_hz() << BW_LOG_CREDIT_SHIFT) / rate;
	lc->cap = lc->cost * lc->burst;
}

void bw_prog_specialise_log(struct bloomwall *skel, __u32 rate)
{
	bw_log_consts_init(rate,
			   (struct bw_log_consts *)&skel->rodata->log_consts);
	if (rate)
		skel->rodata->prog_variant |= BW_VARIANT_LOG;
	else
		skel->rodata->prog_variant &= ~BW_VARIANT_LOG;
}

int bw_prog_specialise(struct bloomwall *skel, const struct bw_filter_map *m)
{
	struct bw_hdr *dst = (struct bw_hdr *)&skel->rodata->filter_hdr;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), r;
	struct bw_block blk;
	int err;

	if (bpf_obj_get_info_by_fd(m->fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY ||
	    info.value_size != BW_BLOCK_BYTES ||
	    info.max_entries < BW_HDR_BLOCKS)
		return -EINVAL;
	err = read_block(m, 0, &blk);
	if (err)
		return err;
	memcpy(dst, &blk, sizeof(*dst));
	/*
	 * Without a valid header the program would load and pass
	 * everything: refuse it, so that a commit never swaps a working
	 * filter for none. The program trusts this copy's regions (judge.h:
	 * a region in use with 0 probes would drop everything).
	 */
	if (bw_hdr_check(dst))
		return -EINVAL;
	skel->rodata->prog_variant |= BW_VARIANT_FILTER;
	for (r = 0; r < BW_REGIONS; r++)
		bw_region_consts_init(dst, r,
				      (struct bw_region_consts *)&skel->rodata
					      ->region_consts[r]);
	bw_prog_specialise_log(skel, bw_prog_log_rate(-1));
	return specialise_dns(skel, dst, m, info.max_entries);
}
