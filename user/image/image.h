/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Filter images: a filter's bytes in a file, as the filter map holds them
 * (header, info, regions, the record area with the build options and list
 * paths), behind a fixed header and under a crc32 (zlib) of the whole
 * file. 'bloomwall build' writes one, 'inspect' and 'load' read it. No
 * bpf() here: an image is made and checked without root and without a
 * kernel.
 *
 *   offset 0    struct bw_image_hdr (64 bytes)
 *   offset 64   the filter: nblocks blocks of BW_BLOCK_BYTES
 *   then        the sections its flags name (format 2), in this order:
 *               the exact prefix set of verify mode (what attach and
 *               reload put into the exact trie), the allowlist of --allow
 *               files (prefixes and names), the lists' allow entries for
 *               names (@@||name^); each struct bw_image_sec and its
 *               payload, 8-byte aligned, under a crc32 of its own
 *   last        a signed image's signature section (image_sign.h, flag
 *               BW_IMAGE_F_SIG), over every byte before it
 *
 * Format 1 images (header and filter, no sections) still read.
 *
 * Every field is in the byte order of the host that wrote it, as the
 * filter's own words are; bom tells a reader of the other order. crc is
 * zlib's crc32 of the whole file with the crc field zero (of the bytes
 * before the signature section in a signed image). A reader checks
 * every field before it trusts the filter, then the filter itself
 * (bw_filter_check, the record area): a truncated, corrupted, wrong-version
 * or wrong-endian image is refused with a message saying which.
 */
#ifndef __BW_IMAGE_H
#define __BW_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomwall.h"
#include "image/image_sec.h"
#include "image/sign_key.h"
#include "lists/list.h"

#define BW_IMAGE_MAGIC "BWIMAGE" /* 8 bytes with its NUL */
#define BW_IMAGE_VERSION 2
#define BW_IMAGE_VERSION_MIN 1 /* no sections */
#define BW_IMAGE_BOM 0x01020304U

struct bw_image_hdr {
	char magic[8];
	__u32 bom;	      /* BW_IMAGE_BOM in the writer's byte order */
	__u16 version;	      /* BW_IMAGE_VERSION */
	__u16 hdr_bytes;      /* sizeof(struct bw_image_hdr) */
	__u32 filter_version; /* BW_VERSION of the filter it holds */
	__u32 nblocks;	      /* the filter's blocks */
	__u64 filter_bytes;   /* nblocks * BW_BLOCK_BYTES */
	__u64 image_bytes;    /* the whole file: header, filter, sections */
	__u32 crc;	      /* crc32 of the file with this field zero */
	__u32 flags;	      /* the sections that follow the filter */
	__u8 pad[16];	      /* zero */
};

_Static_assert(sizeof(struct bw_image_hdr) == 64, "image header is 64 bytes");

/* The header flag of the signature section (image_sign.h), and its size. */
#define BW_IMAGE_F_SIG (1U << 3)
#define BW_IMAGE_SIG_BYTES 112

/* What a checked image's signature is (bw_image_check_keys). */
struct bw_image_sig {
	bool present;  /* the image is signed */
	bool verified; /* by one of the trusted keys the reader required */
	__u8 key_id[BW_KEY_ID_BYTES];
	char source[320]; /* the trusted keys' source, when verified */
};

/* An image read and checked: filter points into buf. */
struct bw_image {
	void *buf;
	size_t len;
	const struct bw_image_hdr *hdr;
	void *filter; /* nblocks blocks, 8-byte aligned */
	__u32 nblocks;
	/* The sections, checked, in buf; NULL for one it does not carry. */
	const struct bw_image_sec *sec[BW_IMAGE_NSEC];
	/* Whether, and by whom, it is signed: bw_image_check_keys says. */
	struct bw_image_sig sig;
};

/*
 * The image of a filter of nblocks at mem: a new buffer (*out, *len; free
 * it). -ENOMEM.
 */
int bw_image_encode(const void *mem, __u32 nblocks, void **out, size_t *len);

/*
 * The same with the sections of ls that it says are present (ls may be
 * NULL: none), written as their lists are (finished, for a reader checks
 * the order). -ENOMEM.
 */
int bw_image_encode_lists(const void *mem, __u32 nblocks,
			  const struct bw_image_lists *ls, void **out,
			  size_t *len);

/*
 * Checks an image's header alone against the len bytes of its file
 * (bw_image_check begins with this): magic, byte order, versions, sizes
 * that agree with each other and with len, flags and padding. 0, or
 * -EINVAL (-EPROTO for a version, byte order or section this bloomwall
 * does not read) with why naming the field and its value.
 */
int bw_image_check_hdr(const struct bw_image_hdr *h, __u64 len, char *why,
		       size_t errlen);

/*
 * Checks the len bytes at buf (8-byte aligned) as an image: 0 with img
 * pointing into buf, or -EINVAL (-EPROTO for a version or byte order this
 * bloomwall does not read) with why (size errlen) saying what is wrong.
 */
int bw_image_check(void *buf, size_t len, struct bw_image *img, char *why,
		   size_t errlen);

/*
 * The bytes of an image before its signature section: all of them
 * (image_bytes) for an unsigned one. bw_image_check takes a signed
 * image's section as its last BW_IMAGE_SIG_BYTES, unread: the signature
 * is image_sign.h's to check (bw_image_check_keys).
 */
__u64 bw_image_signed_bytes(const struct bw_image_hdr *h);

void bw_image_free(struct bw_image *img);

/* A checked image's sections into ls (initialised here). -ENOMEM. */
int bw_image_lists_read(const struct bw_image *img, struct bw_image_lists *ls);

#endif /* __BW_IMAGE_H */
