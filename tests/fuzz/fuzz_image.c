// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the image reader (user/image/image.c): any bytes are
 * checked without reading out of bounds; an image that passes has its
 * sections read back as lists, is re-encoded from its filter and those
 * lists to the same bytes, and its filter answers lookups. Each input is
 * tried as it is and with its crcs made right, so that the checks behind
 * them (the sections' sizes, prefixes and names) meet fuzzed bytes too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "filter/bloom.h"
#include "filter/records.h"
#include "image/image.h"
#include "image/image_sec.h"
#include "lists/list.h"

static void one(const uint8_t *data, size_t size)
{
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	struct bw_image_lists ls;
	struct bw_records rec;
	struct bw_image img;
	char why[256];
	void *buf, *again = NULL;
	size_t len;

	buf = malloc(size ?: 1);
	if (!buf)
		return;
	memcpy(buf, data, size);
	if (!bw_image_check(buf, size, &img, why, sizeof(why))) {
		if (bw_image_lists_read(&img, &ls))
			abort(); /* checked sections read (no allocation fails) */
		if (ls.present != img.hdr->flags)
			abort();
		if (bw_image_encode_lists(img.filter, img.nblocks, &ls, &again,
					  &len))
			abort();
		/*
		 * An accepted image is what its filter and sections encode
		 * (format 1's header aside: it is written as format 2's).
		 */
		if (len != size ||
		    memcmp((char *)again + sizeof(*img.hdr),
			   data + sizeof(*img.hdr), size - sizeof(*img.hdr)) ||
		    (img.hdr->version == BW_IMAGE_VERSION &&
		     memcmp(again, data, size)))
			abort();
		bw_image_lists_free(&ls);
		if (bw_records_read(img.filter, img.nblocks, &rec))
			abort(); /* the check read the same area */
		bw_records_free(&rec);
		bw_filter_lookup(img.filter, &p, NULL);
		free(again);
	}
	free(buf);
}

static __u32 crc_of(const void *p, size_t n)
{
	return (__u32)crc32(crc32(0, NULL, 0), p, (uInt)n);
}

/*
 * The same bytes with every crc made right (each section's as far as the
 * bytes go, then the file's): what lies behind the crcs gets fuzzed too.
 */
static void with_crcs(const uint8_t *data, size_t size)
{
	struct bw_image_hdr *h;
	struct bw_image_sec *s;
	__u64 off, n;
	uint8_t *b;
	int i;

	if (size < sizeof(*h))
		return;
	b = malloc(size);
	if (!b)
		return;
	memcpy(b, data, size);
	h = (struct bw_image_hdr *)b;
	off = sizeof(*h) + h->filter_bytes;
	for (i = 0; i < BW_IMAGE_NSEC && off >= sizeof(*h); i++) {
		if (!(h->flags & (1U << i)))
			continue;
		if (off > size || size - off < sizeof(*s))
			break;
		s = (struct bw_image_sec *)(b + off);
		n = s->bytes < size - off - sizeof(*s)
			    ? s->bytes
			    : size - off - sizeof(*s);
		s->crc = crc_of(s + 1, n);
		off += sizeof(*s) + n;
	}
	h->crc = 0;
	h->crc = crc_of(b, size);
	one(b, size);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	with_crcs(data, size);
	return 0;
}
