// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * zlib's crc32 takes a uInt length: it is fed in bounded pieces, which
 * gives the crc of the whole.
 */
#include <zlib.h>

#include "image/crc.h"

__u32 bw_crc32_more(__u32 crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t n;

	while (len) {
		n = len > (1U << 30) ? (1U << 30) : len;
		crc = (__u32)crc32(crc, p, (uInt)n);
		p += n;
		len -= n;
	}
	return crc;
}

__u32 bw_crc32(const void *buf, size_t len)
{
	return bw_crc32_more((__u32)crc32(0, NULL, 0), buf, len);
}

__u32 bw_crc32_hole(const void *buf, size_t len, size_t off)
{
	static const __u8 zero[4];
	const char *p = buf;
	__u32 crc = bw_crc32(p, off);

	crc = bw_crc32_more(crc, zero, sizeof(zero));
	return bw_crc32_more(crc, p + off + sizeof(zero),
			     len - off - sizeof(zero));
}
