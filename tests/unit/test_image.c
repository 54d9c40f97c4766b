// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter images (user/image.c): what is encoded reads back byte for byte,
 * through a file too; every truncation, every single-byte change of the
 * header, a changed byte in the blocks, the other byte order and another
 * version are refused, with a reason that says which.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloom.h"
#include "bloomwall.h"
#include "image.h"
#include "list.h"
#include "records.h"
#include "test_helpers.h"

/* A small filter with a record area (a list path, the options). */
static void *small_filter(__u32 *nblocks)
{
	struct bw_build_opts o = { .fpr = 0.001,
				   .seed = 11,
				   .flags = BW_F_MATCH_SRC };
	struct bw_list_opts lo = { .allow_cidr = true };
	const char *const lists[] = { "/etc/bloomwall/a.list" };
	char err[BW_ERRLEN];
	struct bw_records rec;
	struct bw_plan plan;
	struct bw_list l;
	void *mem = NULL;

	bw_list_init(&l);
	bw_records_init(&rec);
	bw_list_parse_line(&l, "10.0.0.1", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "192.0.2.0/24", &lo, err, sizeof(err));
	bw_list_parse_line(&l, "2001:db8::/48", &lo, err, sizeof(err));
	bw_list_finish(&l);
	rec.have_build = true;
	if (!bw_records_set_lists(&rec, lists, 1) &&
	    !bw_plan_filter(&l, &o, &plan)) {
		*nblocks = plan.nblocks + bw_records_blocks(&rec);
		mem = calloc(*nblocks, BW_BLOCK_BYTES);
		if (mem) {
			bw_fill_filter(mem, &plan, &l);
			bw_records_write(mem, *nblocks, &rec);
		}
	}
	bw_records_free(&rec);
	bw_list_free(&l);
	return mem;
}

/* The check of len bytes of img, from a buffer of exactly that size. */
static int check_copy(const void *img, size_t len, char *why, size_t n)
{
	struct bw_image out;
	void *buf = malloc(len ?: 1);
	int err;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, img, len);
	err = bw_image_check(buf, len, &out, why, n);
	free(buf);
	return err;
}

static void *small_image(size_t *len)
{
	void *mem, *img = NULL;
	__u32 nblocks = 0;

	mem = small_filter(&nblocks);
	if (mem && bw_image_encode(mem, nblocks, &img, len))
		img = NULL;
	free(mem);
	return img;
}

BW_TEST(test_image_round_trip)
{
	char path[] = "/tmp/bw-image-test.XXXXXX", why[256] = "";
	void *mem, *img = NULL, *img2 = NULL;
	struct bw_image in, back;
	size_t len = 0, len2 = 0;
	__u32 nblocks = 0;
	int fd;

	mem = small_filter(&nblocks);
	ASSERT_OK_PTR(mem, "small filter");
	if (!mem)
		return;
	ASSERT_OK(bw_image_encode(mem, nblocks, &img, &len), "encode");
	ASSERT_OK(bw_image_encode(mem, nblocks, &img2, &len2), "encode again");
	ASSERT_EQ_U64(len,
		      sizeof(struct bw_image_hdr) +
			      (__u64)nblocks * BW_BLOCK_BYTES,
		      "image size");
	ASSERT_TRUE(len == len2 && !memcmp(img, img2, len),
		    "the same filter gives the same bytes");
	ASSERT_OK(bw_image_check(img, len, &in, why, sizeof(why)), why);
	ASSERT_EQ(in.nblocks, nblocks, "blocks read back");
	ASSERT_TRUE(!memcmp(in.filter, mem, (size_t)nblocks * BW_BLOCK_BYTES),
		    "the filter reads back byte for byte");

	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0, "temporary file");
	if (fd >= 0)
		close(fd);
	ASSERT_OK(bw_image_write_file(path, img, len), "write the file");
	ASSERT_OK(bw_image_read_file(path, &back), "read the file");
	ASSERT_TRUE(back.len == len && !memcmp(back.buf, img, len),
		    "the file holds the image byte for byte");
	bw_image_free(&back);
	unlink(path);
	free(img2);
	free(img);
	free(mem);
}

BW_TEST(test_image_truncated)
{
	char why[256];
	size_t len = 0, n, refused = 0;
	void *img = small_image(&len);

	ASSERT_OK_PTR(img, "small image");
	if (!img)
		return;
	for (n = 0; n < len; n++)
		refused += check_copy(img, n, why, sizeof(why)) == -EINVAL;
	ASSERT_EQ_U64(refused, len, "every truncation length refused");
	check_copy(img, len - 1, why, sizeof(why));
	ASSERT_STRSTR(why, "truncated", "a short image is called truncated");
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), "the whole image");
	free(img);
}

BW_TEST(test_image_header_flips)
{
	char why[256];
	unsigned char *img;
	size_t len = 0, i, refused = 0;
	int x;

	img = small_image(&len);
	ASSERT_OK_PTR(img, "small image");
	if (!img)
		return;
	/* Every byte, every value it could change to by one xor of a bit set. */
	for (i = 0; i < sizeof(struct bw_image_hdr); i++) {
		for (x = 1; x < 256; x <<= 1) {
			img[i] ^= x;
			refused += check_copy(img, len, why, sizeof(why)) < 0;
			img[i] ^= x;
		}
		img[i] ^= 0xff;
		refused += check_copy(img, len, why, sizeof(why)) < 0;
		img[i] ^= 0xff;
	}
	ASSERT_EQ_U64(refused, sizeof(struct bw_image_hdr) * 9,
		      "every single-byte change of the header refused");
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), "restored");
	free(img);
}

BW_TEST(test_image_block_flip)
{
	char why[256] = "";
	unsigned char *img;
	size_t len = 0, off;

	img = small_image(&len);
	ASSERT_OK_PTR(img, "small image");
	if (!img)
		return;
	/* A byte in the first region's first block, then the last byte. */
	off = sizeof(struct bw_image_hdr) + BW_HDR_BLOCKS * BW_BLOCK_BYTES + 5;
	img[off] ^= 0x10;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "a changed bit in the blocks");
	ASSERT_STRSTR(why, "crc32", "refused by the crc");
	img[off] ^= 0x10;
	img[len - 1] ^= 0x01;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "a changed last byte");
	free(img);
}

BW_TEST(test_image_endian_version)
{
	struct bw_image_hdr *h;
	char why[256] = "";
	void *img;
	size_t len = 0;

	img = small_image(&len);
	ASSERT_OK_PTR(img, "small image");
	if (!img)
		return;
	h = img;
	h->bom = __builtin_bswap32(h->bom);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO,
		  "the other byte order");
	ASSERT_STRSTR(why, "byte order", "says byte order");
	h->bom = __builtin_bswap32(h->bom);
	h->version = BW_IMAGE_VERSION + 1;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO,
		  "another version");
	ASSERT_STRSTR(why, "version", "says version");
	h->version = BW_IMAGE_VERSION;
	memcpy(h->magic, "GARBAGE", 8);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "another magic");
	ASSERT_STRSTR(why, "not a bloomwall image", "says what it is not");
	free(img);
}

/* A format 2 filter (bloomwall 0.2) in an image still reads; 4 does not. */
BW_TEST(test_image_filter_format_2)
{
	char why[256] = "";
	void *mem, *img = NULL;
	struct bw_hdr *hdr;
	__u32 nblocks = 0;
	size_t len = 0;

	mem = small_filter(&nblocks);
	if (!ASSERT_OK_PTR(mem, "small filter"))
		return;
	hdr = mem;
	hdr->version = 2;
	ASSERT_OK(bw_image_encode(mem, nblocks, &img, &len), "encode");
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), why);
	ASSERT_EQ(((struct bw_image_hdr *)img)->filter_version, 2,
		  "the image says format 2");
	free(img);
	hdr->version = BW_VERSION + 1;
	ASSERT_OK(bw_image_encode(mem, nblocks, &img, &len), "encode");
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO,
		  "a later format is refused");
	ASSERT_STRSTR(why, "format version 4; this bloomwall reads 2 to 3",
		      "says which it reads");
	free(img);
	free(mem);
}
