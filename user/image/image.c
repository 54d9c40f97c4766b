// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter images in plain memory (image.h): encoding, and the checks a
 * reader makes before it trusts one (files: image_file.c; signatures:
 * image_sign.c). No bpf().
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/log.h"
#include "filter/bloom.h"
#include "image/crc.h"
#include "image/image.h"
#include "image/image_check.h"
#include "image/image_sec.h"

/*
 * crc32 of an image with its crc field taken as zero: of its len bytes,
 * those before a signature section (whose header said how many).
 */
static __u32 image_crc(const void *buf, size_t len)
{
	return bw_crc32_hole(buf, len, offsetof(struct bw_image_hdr, crc));
}

int bw_image_encode(const void *mem, __u32 nblocks, void **out, size_t *len)
{
	return bw_image_encode_lists(mem, nblocks, NULL, out, len);
}

int bw_image_encode_lists(const void *mem, __u32 nblocks,
			  const struct bw_image_lists *ls, void **out,
			  size_t *len)
{
	size_t fbytes = (size_t)nblocks * BW_BLOCK_BYTES, off;
	__u32 present = ls ? ls->present & BW_IMAGE_S_ALL : 0;
	struct bw_image_hdr *h;
	int i;

	*len = sizeof(*h) + fbytes;
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		if (present & (1U << i))
			*len += bw_image_sec_bytes(&ls->l[i]);
	*out = calloc(1, *len);
	if (!*out)
		return -ENOMEM;
	h = *out;
	memcpy(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic));
	h->bom = BW_IMAGE_BOM;
	h->version = BW_IMAGE_VERSION;
	h->hdr_bytes = sizeof(*h);
	/* The filter's own: a format 2 filter stays one in its image. */
	h->filter_version = ((const struct bw_hdr *)mem)->version;
	h->nblocks = nblocks;
	h->filter_bytes = fbytes;
	h->image_bytes = *len;
	h->flags = present;
	memcpy((char *)*out + sizeof(*h), mem, fbytes);
	off = sizeof(*h) + fbytes;
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		if (present & (1U << i))
			off += bw_image_sec_put((char *)*out + off, i,
						&ls->l[i]);
	h->crc = image_crc(*out, *len);
	return 0;
}

static int why_set(char *why, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* Sizes that agree with each other, before any length of the file. */
static int check_sizes(const struct bw_image_hdr *h, char *why, size_t errlen)
{
	__u64 min = sizeof(*h) + h->filter_bytes;

	if (h->nblocks < BW_HDR_BLOCKS || h->nblocks > BW_MAX_BLOCKS)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: nblocks %u; a filter has %u to %u blocks",
			h->nblocks, BW_HDR_BLOCKS, BW_MAX_BLOCKS);
	if (h->filter_bytes != (__u64)h->nblocks * BW_BLOCK_BYTES)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: filter_bytes %llu, where %u blocks are %llu",
			(unsigned long long)h->filter_bytes, h->nblocks,
			(unsigned long long)h->nblocks * BW_BLOCK_BYTES);
	if (h->image_bytes < min)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: image_bytes %llu, less than the header and filter's %llu",
			(unsigned long long)h->image_bytes,
			(unsigned long long)min);
	/* Format 1 has no sections: its filter ends the file. */
	if (h->version == 1 && h->image_bytes != min)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: image_bytes %llu in a format 1 image, which ends with its filter at %llu",
			(unsigned long long)h->image_bytes,
			(unsigned long long)min);
	if ((h->flags & BW_IMAGE_F_SIG) &&
	    h->image_bytes - min < BW_IMAGE_SIG_BYTES)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: image_bytes %llu, too few for the filter and the signature section its flags say",
			(unsigned long long)h->image_bytes);
	if (h->image_bytes - min > BW_IMAGE_SEC_MAX)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt header: image_bytes %llu, %llu bytes of sections where an image has at most %llu",
			(unsigned long long)h->image_bytes,
			(unsigned long long)(h->image_bytes - min),
			(unsigned long long)BW_IMAGE_SEC_MAX);
	return 0;
}

/* The fields that need nothing but the header. */
static int check_fields(const struct bw_image_hdr *h, char *why, size_t errlen)
{
	size_t i;

	if (h->bom == __builtin_bswap32(BW_IMAGE_BOM))
		return why_set(
			why, errlen, -EPROTO,
			"written on a host of the other byte order (its byte-order mark reads 0x%08x here); build it on a host of this one",
			h->bom);
	if (h->bom != BW_IMAGE_BOM)
		return why_set(why, errlen, -EINVAL,
			       "corrupt header: byte-order mark 0x%08x",
			       h->bom);
	if (h->version < BW_IMAGE_VERSION_MIN || h->version > BW_IMAGE_VERSION)
		return why_set(
			why, errlen, -EPROTO,
			"image format version %u; this bloomwall reads versions %u to %u",
			h->version, BW_IMAGE_VERSION_MIN, BW_IMAGE_VERSION);
	if (h->hdr_bytes != sizeof(*h))
		return why_set(why, errlen, -EINVAL,
			       "corrupt header: header size %u, not %zu",
			       h->hdr_bytes, sizeof(*h));
	if ((h->flags & ~(BW_IMAGE_S_ALL | BW_IMAGE_F_SIG)) ||
	    (h->version == 1 && h->flags))
		return why_set(
			why, errlen, -EPROTO,
			"has sections this bloomwall does not know (flags 0x%x; format %u knows 0x%x)",
			h->flags, h->version,
			h->version == 1 ? 0 : BW_IMAGE_S_ALL | BW_IMAGE_F_SIG);
	for (i = 0; i < sizeof(h->pad); i++)
		if (h->pad[i])
			return why_set(
				why, errlen, -EINVAL,
				"corrupt header: pad[%zu] is 0x%02x, not zero",
				i, h->pad[i]);
	/* Every filter format from BW_VERSION_MIN on loads: the data path reads each. */
	if (h->filter_version < BW_VERSION_MIN ||
	    h->filter_version > BW_VERSION)
		return why_set(
			why, errlen, -EPROTO,
			"holds a filter of format version %u; this bloomwall reads %u to %u",
			h->filter_version, BW_VERSION_MIN, BW_VERSION);
	return check_sizes(h, why, errlen);
}

int bw_image_check_hdr(const struct bw_image_hdr *h, __u64 len, char *why,
		       size_t errlen)
{
	int err;

	if (memcmp(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic)))
		return why_set(why, errlen, -EINVAL,
			       "not a bloomwall image (no magic; %llu bytes)",
			       (unsigned long long)len);
	err = check_fields(h, why, errlen);
	if (err)
		return err;
	if (h->image_bytes > len)
		return why_set(
			why, errlen, -EINVAL,
			"truncated: %llu bytes of the %llu its header says",
			(unsigned long long)len,
			(unsigned long long)h->image_bytes);
	if (h->image_bytes < len)
		return why_set(
			why, errlen, -EINVAL,
			"%llu bytes where its header says %llu: data after the image",
			(unsigned long long)len,
			(unsigned long long)h->image_bytes);
	return 0;
}

/*
 * The filter's flags and the sections agree: verify mode has its exact
 * set (and only verify mode), an allowlist flag its allowlist, a name
 * allowlist flag the entries for it.
 */
static int check_agree(const struct bw_image_hdr *h, const struct bw_hdr *fh,
		       const void *mem, char *why, size_t errlen)
{
	const struct bw_dns_hdr *dns = bw_filter_dns(mem);
	bool exact = h->flags & (1U << BW_IMAGE_EXACT);

	if (!(fh->flags & BW_F_VERIFY) != !exact)
		return why_set(
			why, errlen, -EINVAL,
			exact ? "carries an exact prefix set, but its filter is not in verify mode"
			      : "the filter asks for verify mode, but the image carries no exact prefix set");
	if ((fh->flags & BW_F_ALLOW) && !(h->flags & (1U << BW_IMAGE_ALLOW)))
		return why_set(
			why, errlen, -EINVAL,
			"the filter asks for an allowlist, but the image carries none");
	if (dns && (dns->flags & BW_DNS_F_ALLOW) &&
	    !(h->flags & (1U << BW_IMAGE_ALLOW | 1U << BW_IMAGE_NAMES)))
		return why_set(
			why, errlen, -EINVAL,
			"the filter asks for a name allowlist, but the image carries no allow entries");
	return 0;
}

/* The filter inside, once the crc says it is what was written. */
static int check_filter(const struct bw_image_hdr *h, void *mem, char *why,
			size_t errlen)
{
	const struct bw_hdr *fh = mem;
	int err;

	if (fh->version != h->filter_version)
		return why_set(
			why, errlen, -EINVAL,
			"corrupt: the image header says filter format %u, the filter's own header %u",
			h->filter_version, fh->version);
	err = bw_image_check_filter(mem, h->nblocks, why, errlen);
	return err ?: check_agree(h, fh, mem, why, errlen);
}

__u64 bw_image_signed_bytes(const struct bw_image_hdr *h)
{
	if (!(h->flags & BW_IMAGE_F_SIG))
		return h->image_bytes;
	return h->image_bytes - BW_IMAGE_SIG_BYTES;
}

int bw_image_check(void *buf, size_t len, struct bw_image *img, char *why,
		   size_t errlen)
{
	const struct bw_image_hdr *h = buf;
	__u64 body;
	__u32 crc;
	int err;

	memset(img, 0, sizeof(*img));
	if (len < sizeof(h->magic) ||
	    memcmp(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic)))
		return why_set(
			why, errlen, -EINVAL,
			len < sizeof(h->magic)
				? "truncated: %zu bytes, not even a magic"
				: "not a bloomwall image (no magic; %zu bytes)",
			len);
	if (len < sizeof(*h))
		return why_set(
			why, errlen, -EINVAL,
			"truncated: %zu bytes, shorter than the %zu-byte header",
			len, sizeof(*h));
	err = bw_image_check_hdr(h, len, why, errlen);
	if (err)
		return err;
	body = bw_image_signed_bytes(h);
	crc = image_crc(buf, body);
	if (crc != h->crc)
		return why_set(
			why, errlen, -EINVAL,
			"corrupted: crc32 0x%08x, its header says 0x%08x", crc,
			h->crc);
	err = check_filter(h, (char *)buf + sizeof(*h), why, errlen);
	if (!err)
		err = bw_image_sec_check(
			buf, body, sizeof(*h) + h->filter_bytes,
			h->flags & BW_IMAGE_S_ALL, img->sec, why, errlen);
	if (err) {
		memset(img, 0, sizeof(*img));
		return err;
	}
	img->buf = buf;
	img->len = len;
	img->hdr = h;
	img->filter = (char *)buf + sizeof(*h);
	img->nblocks = h->nblocks;
	return 0;
}

void bw_image_free(struct bw_image *img)
{
	free(img->buf);
	memset(img, 0, sizeof(*img));
}

int bw_image_lists_read(const struct bw_image *img, struct bw_image_lists *ls)
{
	int i, err;

	bw_image_lists_init(ls);
	for (i = 0; i < BW_IMAGE_NSEC; i++) {
		if (!img->sec[i])
			continue;
		err = bw_image_sec_read(img->sec[i], &ls->l[i]);
		if (err) {
			bw_image_lists_free(ls);
			return err;
		}
		ls->present |= 1U << i;
	}
	return 0;
}
