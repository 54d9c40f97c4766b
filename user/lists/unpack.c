// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Unpacking a list by its magic bytes (unpack.h).
 */
#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lists/unpack.h"

#define OUT_CHUNK 65536

static const char *const pack_names[] = {
	[BW_PACK_UNKNOWN] = "plain", [BW_PACK_NONE] = "plain",
	[BW_PACK_GZIP] = "gzip",     [BW_PACK_XZ] = "xz",
	[BW_PACK_BZIP2] = "bzip2",
};

const char *bw_pack_name(enum bw_pack kind)
{
	return kind <= BW_PACK_BZIP2 ? pack_names[kind] : "plain";
}

void bw_unpack_init(struct bw_unpack *u, __u64 max_out, bw_unpack_out cb,
		    void *ctx)
{
	memset(u, 0, sizeof(*u));
	u->max_out = max_out;
	u->cb = cb;
	u->ctx = ctx;
}

static int emit(struct bw_unpack *u, const void *buf, size_t len)
{
	if (!len)
		return 0;
	if (u->max_out && u->out + len > u->max_out)
		return -EFBIG;
	if (u->max_ratio && u->out + len > BW_UNPACK_RATIO_FLOOR &&
	    u->out + len > u->max_ratio * u->in) {
		u->bomb = true;
		return -EFBIG;
	}
	u->out += len;
	return u->cb(u->ctx, buf, len);
}

static enum bw_pack magic(const unsigned char *h, size_t n)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return BW_PACK_GZIP;
	if (n >= 6 && !memcmp(h, xz, 6))
		return BW_PACK_XZ;
	if (n >= 4 && h[0] == 'B' && h[1] == 'Z' && h[2] == 'h' &&
	    h[3] >= '1' && h[3] <= '9')
		return BW_PACK_BZIP2;
	return BW_PACK_NONE;
}

static int start(struct bw_unpack *u)
{
	switch (u->kind) {
	case BW_PACK_GZIP:
		u->z = calloc(1, sizeof(z_stream));
		/* 15 + 32: a gzip or zlib header, told by zlib. */
		if (!u->z || inflateInit2((z_stream *)u->z, 15 + 32) != Z_OK)
			return -ENOMEM;
		return 0;
	case BW_PACK_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;

		u->z = malloc(sizeof(lzma_stream));
		if (!u->z)
			return -ENOMEM;
		memcpy(u->z, &init, sizeof(init));
		return lzma_stream_decoder(u->z, UINT64_MAX, 0) == LZMA_OK
			       ? 0
			       : -ENOMEM;
	}
	case BW_PACK_BZIP2:
		u->z = calloc(1, sizeof(bz_stream));
		if (!u->z || BZ2_bzDecompressInit(u->z, 0, 0) != BZ_OK)
			return -ENOMEM;
		return 0;
	default:
		return 0;
	}
}

static void stop(struct bw_unpack *u)
{
	if (!u->z)
		return;
	if (u->kind == BW_PACK_GZIP)
		inflateEnd(u->z);
	else if (u->kind == BW_PACK_XZ)
		lzma_end(u->z);
	else if (u->kind == BW_PACK_BZIP2)
		BZ2_bzDecompressEnd(u->z);
	free(u->z);
	u->z = NULL;
}

/* Another member after the end of one (gzip -c a b, pbzip2): goes on. */
static int restart(struct bw_unpack *u)
{
	stop(u);
	u->ended = 0;
	return start(u);
}

static int gz(struct bw_unpack *u, const unsigned char *in, size_t len)
{
	unsigned char out[OUT_CHUNK];
	z_stream *z = u->z;
	int rc, err;

	while (len) {
		if (u->ended && (err = restart(u)))
			return err;
		z = u->z;
		z->next_in = (unsigned char *)in;
		z->avail_in = (uInt)(len > (1U << 30) ? 1U << 30 : len);
		do {
			z->next_out = out;
			z->avail_out = sizeof(out);
			rc = inflate(z, Z_NO_FLUSH);
			if (rc != Z_OK && rc != Z_STREAM_END &&
			    rc != Z_BUF_ERROR)
				return rc == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
			err = emit(u, out, sizeof(out) - z->avail_out);
			if (err)
				return err;
			if (rc == Z_STREAM_END) {
				u->ended = 1;
				break;
			}
		} while (z->avail_out == 0 || (z->avail_in && rc == Z_OK));
		len -= (size_t)(z->next_in - in);
		in = z->next_in;
		if (!u->ended && z->avail_in)
			return -EBADMSG;
	}
	return 0;
}

static int xz(struct bw_unpack *u, const unsigned char *in, size_t len)
{
	unsigned char out[OUT_CHUNK];
	lzma_stream *s;
	lzma_ret rc;
	int err;

	while (len) {
		if (u->ended && (err = restart(u)))
			return err;
		s = u->z;
		s->next_in = in;
		s->avail_in = len;
		do {
			s->next_out = out;
			s->avail_out = sizeof(out);
			rc = lzma_code(s, LZMA_RUN);
			if (rc != LZMA_OK && rc != LZMA_STREAM_END &&
			    rc != LZMA_BUF_ERROR)
				return rc == LZMA_MEM_ERROR ? -ENOMEM
							    : -EBADMSG;
			err = emit(u, out, sizeof(out) - s->avail_out);
			if (err)
				return err;
			if (rc == LZMA_STREAM_END) {
				u->ended = 1;
				break;
			}
		} while (s->avail_out == 0 || (s->avail_in && rc == LZMA_OK));
		len -= (size_t)(s->next_in - in);
		in = s->next_in;
		if (!u->ended && s->avail_in)
			return -EBADMSG;
	}
	return 0;
}

static int bz(struct bw_unpack *u, const unsigned char *in, size_t len)
{
	char out[OUT_CHUNK];
	bz_stream *b;
	int rc, err;

	while (len) {
		if (u->ended && (err = restart(u)))
			return err;
		b = u->z;
		b->next_in = (char *)in;
		b->avail_in = (unsigned int)(len > (1U << 30) ? 1U << 30 : len);
		do {
			b->next_out = out;
			b->avail_out = sizeof(out);
			rc = BZ2_bzDecompress(b);
			if (rc != BZ_OK && rc != BZ_STREAM_END)
				return rc == BZ_MEM_ERROR ? -ENOMEM : -EBADMSG;
			err = emit(u, out, sizeof(out) - b->avail_out);
			if (err)
				return err;
			if (rc == BZ_STREAM_END) {
				u->ended = 1;
				break;
			}
		} while (b->avail_out == 0 || b->avail_in);
		len -= (size_t)((const unsigned char *)b->next_in - in);
		in = (const unsigned char *)b->next_in;
	}
	return 0;
}

static int feed_kind(struct bw_unpack *u, const void *buf, size_t len)
{
	switch (u->kind) {
	case BW_PACK_GZIP:
		return gz(u, buf, len);
	case BW_PACK_XZ:
		return xz(u, buf, len);
	case BW_PACK_BZIP2:
		return bz(u, buf, len);
	default:
		return emit(u, buf, len);
	}
}

/* The first bytes decided (or the input ended): what was held goes on. */
static int decide(struct bw_unpack *u)
{
	int err;

	u->kind = magic(u->head, u->nhead);
	err = start(u);
	return err ?: feed_kind(u, u->head, u->nhead);
}

int bw_unpack_feed(struct bw_unpack *u, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t take;
	int err;

	u->in += len;
	if (u->kind == BW_PACK_UNKNOWN) {
		take = sizeof(u->head) - u->nhead;
		take = take < len ? take : len;
		memcpy(u->head + u->nhead, p, take);
		u->nhead += take;
		p += take;
		len -= take;
		if (u->nhead < sizeof(u->head))
			return 0;
		err = decide(u);
		if (err)
			return err;
	}
	return feed_kind(u, p, len);
}

int bw_unpack_end(struct bw_unpack *u)
{
	int err;

	if (u->kind == BW_PACK_UNKNOWN) {
		err = decide(u);
		if (err)
			return err;
	}
	if (u->kind == BW_PACK_NONE)
		return 0;
	return u->ended ? 0 : -EPIPE;
}

void bw_unpack_free(struct bw_unpack *u)
{
	stop(u);
}
