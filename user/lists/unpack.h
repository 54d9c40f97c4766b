/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A list's bytes unpacked by what they are, not by their name: a stream
 * that begins with gzip's magic (1f 8b) is inflated (zlib), xz's
 * (fd 37 7a 58 5a 00) decoded (liblzma), bzip2's ("BZh") decoded
 * (libbz2); any other goes through as it is. A server names a FireHOL
 * .netset.gz as text/plain or application/octet-stream, and a mirror
 * renames: the name proves nothing. Fed in pieces as they arrive (a
 * download), bounded: past max_out unpacked bytes is -EFBIG (a small
 * download may unpack into gigabytes), and so is a stream that unpacks to
 * more than max_ratio times the bytes fed so far, once past
 * BW_UNPACK_RATIO_FLOOR (a decompression bomb: ended within its first
 * mebibytes, not after max_out of them); a compressed stream that stops
 * before its end is -EPIPE (a cut download), a corrupt one -EBADMSG.
 */
#ifndef __BW_UNPACK_H
#define __BW_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum bw_pack {
	BW_PACK_UNKNOWN,
	BW_PACK_NONE,
	BW_PACK_GZIP,
	BW_PACK_XZ,
	BW_PACK_BZIP2
};

/* Where unpacked bytes go: 0 goes on, -errno ends the stream with it. */
typedef int (*bw_unpack_out)(void *ctx, const void *buf, size_t len);

/* Unpacked bytes below which the ratio is not judged: a small list is. */
#define BW_UNPACK_RATIO_FLOOR (1ULL << 20)

struct bw_unpack {
	enum bw_pack kind;
	unsigned char head[6]; /* the first bytes, until they decide */
	size_t nhead;
	void *z;   /* the decoder's state */
	int ended; /* the compressed stream came to its end */
	__u64 max_out, out;
	__u64 in;	 /* bytes fed */
	__u64 max_ratio; /* out / in at most (past the floor); 0: no bound */
	bool bomb;	 /* -EFBIG came from max_ratio */
	bw_unpack_out cb;
	void *ctx;
};

void bw_unpack_init(struct bw_unpack *u, __u64 max_out, bw_unpack_out cb,
		    void *ctx);
/* More input. 0 or -errno (-EFBIG, -EBADMSG, -ENOMEM, the callback's). */
int bw_unpack_feed(struct bw_unpack *u, const void *buf, size_t len);
/* The input ended: 0, or -EPIPE for a compressed stream cut short. */
int bw_unpack_end(struct bw_unpack *u);
void bw_unpack_free(struct bw_unpack *u);

/* "plain", "gzip", "xz", "bzip2". */
const char *bw_pack_name(enum bw_pack kind);

#endif /* __BW_UNPACK_H */
