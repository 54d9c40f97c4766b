// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bloomwall load's build step (reload.h): an image's filter, checked
 * already (image.h), copied into a new filter map and numbered after the
 * running one, for reload's swap.
 */
#include <string.h>

#include "bloom.h"
#include "image.h"
#include "output.h"
#include "provenance.h"
#include "reload.h"

int bw_image_stage(const char *iface, const char *path,
		   const struct bw_image *img, bool allow, bool allow_names,
		   __u8 exact_slot, __u64 generation, struct bw_built *b)
{
	struct bw_dns_hdr *dns;
	struct bw_hdr *hdr;
	struct bw_info *info;
	struct bw_records rec;
	__u32 nblocks;
	__u8 hash[16];
	int err;

	/* Provenance: the image's lists as it recorded them, and its hash. */
	bw_prov_hash(img->buf, img->len, hash);
	err = bw_prov_image_records(path, img->filter, img->nblocks, hash, &rec,
				    &nblocks);
	if (err)
		return err;
	err = bw_filter_create(nblocks, &b->filter);
	if (!err) {
		memcpy(b->filter.mem, img->filter,
		       (size_t)bw_records_start(img->filter) * BW_BLOCK_BYTES);
		err = bw_records_write(b->filter.mem, nblocks, &rec);
	}
	bw_records_free(&rec);
	if (err)
		return err;
	hdr = b->filter.mem;
	info = (void *)((char *)b->filter.mem + BW_BLOCK_BYTES);
	hdr->exact_slot = exact_slot;
	bw_set_allow_flag(hdr, allow);
	/* The name allowlist the program keeps decides whether it looks. */
	dns = (struct bw_dns_hdr *)bw_filter_dns(hdr);
	if (dns && allow_names)
		dns->flags |= BW_DNS_F_ALLOW;
	info->generation = generation;

	bw_out_open_object("filter");
	bw_out_text("%s: ", iface);
	bw_out_u64("generation", "filter generation %llu ", generation);
	bw_out_string("image", "from image %s: ", path);
	bw_out_u64("entries", "%'llu entries, ", info->entries);
	bw_out_u64("blocks", "%'llu blocks ", img->nblocks);
	bw_out_u64("bytes", "(%'llu bytes), ",
		   (unsigned long long)img->nblocks * BW_BLOCK_BYTES);
	bw_out_u64("seed", "seed 0x%08llx\n", hdr->seed);
	bw_out_double("fpr", NULL, bw_info_fpr(info));
	bw_out_close_object();
	return 0;
}
