/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * zlib's crc32 over any length: images and their sections carry one, and
 * the image seed is one over the lists.
 */
#ifndef __BW_CRC_H
#define __BW_CRC_H

#include <stddef.h>
#include <linux/types.h>

/* crc continued over len bytes at buf. */
__u32 bw_crc32_more(__u32 crc, const void *buf, size_t len);

/* The crc32 of len bytes at buf. */
__u32 bw_crc32(const void *buf, size_t len);

/*
 * The crc32 of len bytes at buf with the 4 bytes at off (a crc field,
 * off + 4 <= len) taken as zero.
 */
__u32 bw_crc32_hole(const void *buf, size_t len, size_t off);

#endif /* __BW_CRC_H */
