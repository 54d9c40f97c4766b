/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The sections of an image, one by one: the lists it carries beside the
 * filter (image.h says the layout).
 */
#ifndef __BW_IMAGE_SEC_H
#define __BW_IMAGE_SEC_H

#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "lists/list.h"

/* The sections, in file order; bit 1 << i of the header's flags. */
enum {
	BW_IMAGE_EXACT, /* verify mode: the merged prefixes */
	BW_IMAGE_ALLOW, /* --allow: the allowlist, prefixes and names */
	BW_IMAGE_NAMES, /* the lists' @@||name^ entries */
	BW_IMAGE_NSEC,
};

#define BW_IMAGE_S_ALL ((1U << BW_IMAGE_NSEC) - 1)
/* The sections' bytes a reader takes at most: 100 million prefixes. */
#define BW_IMAGE_SEC_MAX (4ULL << 30)

/*
 * A section: its list's IPv4 prefixes (__u64 (addr << 8) | plen each),
 * IPv6 prefixes (struct bw_v6key each), both in bw_list_finish()'s order,
 * then its names (a length byte, a flags byte of BW_DOM_*, the checked
 * name), zero-padded to 8 bytes.
 */
struct bw_image_sec {
	__u32 type;	   /* 1 << its index */
	__u32 crc;	   /* zlib's crc32 of the payload */
	__u64 n4;	   /* IPv4 prefixes */
	__u64 n6;	   /* IPv6 prefixes */
	__u64 ndom;	   /* names */
	__u64 names_bytes; /* of the names' records */
	__u64 bytes;	   /* of the payload, padding included */
};

_Static_assert(sizeof(struct bw_image_sec) == 48, "section header is 48 bytes");

/* An image's sections as lists; present has bit 1 << i for each carried. */
struct bw_image_lists {
	__u32 present;
	struct bw_list l[BW_IMAGE_NSEC];
};

/* "exact prefix set", "allowlist", "name allow entries". */
const char *bw_image_sec_name(int i);

/* Bytes of l as a section, its header included. */
size_t bw_image_sec_bytes(const struct bw_list *l);

/* Writes l as section i at at (bw_image_sec_bytes(l) of room); its size. */
size_t bw_image_sec_put(void *at, int i, const struct bw_list *l);

/*
 * Checks the sections present names, from off to len, in buf: each
 * header, its sizes, crc and entries (prefixes valid and in order, names
 * checked), and that they end at len. 0 with sec[] pointing at them, or
 * -EINVAL with why saying which is wrong.
 */
int bw_image_sec_check(const void *buf, __u64 len, __u64 off, __u32 present,
		       const struct bw_image_sec **sec, char *why,
		       size_t errlen);

/* A checked section's entries appended to l (initialised). -ENOMEM. */
int bw_image_sec_read(const struct bw_image_sec *s, struct bw_list *l);

void bw_image_lists_init(struct bw_image_lists *ls);
void bw_image_lists_free(struct bw_image_lists *ls);

#endif /* __BW_IMAGE_SEC_H */
