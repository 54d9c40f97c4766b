// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter images (user/image/image.c): what is encoded reads back byte for byte,
 * through a file too; every truncation, every single-byte change of the
 * header, a changed byte in the blocks, the other byte order and another
 * version are refused, with a reason that says which; format 2 sections
 * read back, are checked one by one and agree with the filter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/bloom_plan.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "image/image.h"
#include "image/image_sec.h"
#include "image/image_seed.h"
#include "lists/list.h"
#include "lists/list_parse.h"
#include "test_helpers.h"

/* Writes text to a new temporary file, whose name mkstemp puts in path. */
static bool temp_file(char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = mkstemp(path);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok;
}

/*
 * The filter 'bloomwall build' makes of a list holding text, with header
 * flags (BW_F_VERIFY, BW_F_ALLOW) beside --match src: builder.c's own
 * output, an image's request (origin 0) as cmd_build.c makes it.
 */
static void *built_filter(const char *text, __u16 flags, __u32 *nblocks)
{
	char path[] = "/tmp/bw-image-list.XXXXXX";
	const char *lists[] = { path };
	struct bw_build_req req;
	struct bw_build b;
	void *mem = NULL;

	if (!temp_file(path, text))
		return NULL;
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.seed = 11;
	req.opts.flags |= flags;
	req.origin = 0;
	if (!bw_build_plan(&req, &b)) {
		*nblocks = bw_build_blocks(&b);
		mem = calloc(*nblocks, BW_BLOCK_BYTES);
		if (mem)
			bw_build_fill(&b, mem);
		bw_build_free(&b);
	}
	unlink(path);
	return mem;
}

#define SMALL_LIST "10.0.0.1\n192.0.2.0/24\n2001:db8::/48\n"
/* The same with names of both kinds: a DNS block and two name regions. */
#define NAMES_LIST SMALL_LIST "ads.example\n*.track.example\n"

/* A small filter with a record area (the list, the options). */
static void *small_filter(__u32 *nblocks)
{
	return built_filter(SMALL_LIST, 0, nblocks);
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
	if (!ASSERT_TRUE(fd >= 0, "temporary file"))
		goto out;
	close(fd);
	if (ASSERT_OK(bw_image_write_file(path, img, len), "write the file") &&
	    ASSERT_OK(bw_image_read_file(path, &back), "read the file")) {
		ASSERT_TRUE(back.len == len && !memcmp(back.buf, img, len),
			    "the file holds the image byte for byte");
		bw_image_free(&back);
	}
	unlink(path);
out:
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

/*
 * Every byte of img's header, changed to every value one xor of a bit or
 * of all bits makes (9 a byte), each checked and put back: how many were
 * refused.
 */
static size_t header_changes_refused(unsigned char *img, size_t len)
{
	size_t i, refused = 0;
	char why[256];
	int x;

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
	return refused;
}

BW_TEST(test_image_header_flips)
{
	char why[256];
	unsigned char *img;
	size_t len = 0;

	img = small_image(&len);
	ASSERT_OK_PTR(img, "small image");
	if (!img)
		return;
	ASSERT_EQ_U64(header_changes_refused(img, len),
		      sizeof(struct bw_image_hdr) * 9,
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

/* ---- format 2: the sections ---------------------------------------------- */

/* The whole file's crc again, after a test changed a byte on purpose. */
static void fix_crc(void *img, size_t len)
{
	struct bw_image_hdr *h = img;

	h->crc = 0;
	h->crc = (__u32)crc32(crc32(0, NULL, 0), img, (uInt)len);
}

/* A section's own crc again, then the file's. */
static void fix_sec_crc(void *img, size_t len, struct bw_image_sec *s)
{
	s->crc = (__u32)crc32(crc32(0, NULL, 0), (const Bytef *)(s + 1),
			      (uInt)s->bytes);
	fix_crc(img, len);
}

static void parse_into(struct bw_list *l, const char *const *lines, size_t n)
{
	struct bw_list_opts lo = { .domains = true };
	char err[BW_ERRLEN];
	size_t i;

	for (i = 0; i < n; i++)
		bw_list_parse_line(l, lines[i], &lo, err, sizeof(err));
	bw_list_finish(l);
}

/* Verify mode's exact set, an allowlist with a name, two @@ entries. */
static void small_sections(struct bw_image_lists *ls)
{
	static const char *const exact[] = { "10.0.0.1", "192.0.2.0/24",
					     "2001:db8::/48" };
	static const char *const allow[] = { "10.0.0.9", "2001:db8::9",
					     "ok.example" };
	static const char *const names[] = { "@@||good.example^",
					     "@@||fine.example^" };

	bw_image_lists_init(ls);
	parse_into(&ls->l[BW_IMAGE_EXACT], exact, 3);
	parse_into(&ls->l[BW_IMAGE_ALLOW], allow, 3);
	parse_into(&ls->l[BW_IMAGE_NAMES], names, 2);
	ls->present = BW_IMAGE_S_ALL;
}

/* The small filter in verify mode with an allowlist, and its sections. */
static void *small_image_sec(size_t *len)
{
	struct bw_image_lists ls;
	void *mem, *img = NULL;
	__u32 nblocks = 0;

	mem = built_filter(SMALL_LIST, BW_F_VERIFY | BW_F_ALLOW, &nblocks);
	if (!mem)
		return NULL;
	small_sections(&ls);
	if (bw_image_encode_lists(mem, nblocks, &ls, &img, len))
		img = NULL;
	bw_image_lists_free(&ls);
	free(mem);
	return img;
}

static bool same_list(const struct bw_list *a, const struct bw_list *b)
{
	size_t i;

	if (a->n4 != b->n4 || a->n6 != b->n6 || a->ndom != b->ndom)
		return false;
	if ((a->n4 && memcmp(a->v4, b->v4, a->n4 * sizeof(*a->v4))) ||
	    (a->n6 && memcmp(a->v6, b->v6, a->n6 * sizeof(*a->v6))))
		return false;
	for (i = 0; i < a->ndom; i++)
		if (a->dom[i].len != b->dom[i].len ||
		    a->dom[i].flags != b->dom[i].flags ||
		    memcmp(bw_domain_name(a, &a->dom[i]),
			   bw_domain_name(b, &b->dom[i]), a->dom[i].len))
			return false;
	return true;
}

BW_TEST(test_image_sections_round_trip)
{
	struct bw_image_lists want, got;
	void *img, *again = NULL;
	struct bw_image in;
	char why[256] = "";
	size_t len = 0, len2 = 0;
	int i;

	img = small_image_sec(&len);
	if (!ASSERT_OK_PTR(img, "small image with sections"))
		return;
	ASSERT_EQ(((struct bw_image_hdr *)img)->version, 2, "format 2");
	ASSERT_EQ(((struct bw_image_hdr *)img)->flags, BW_IMAGE_S_ALL,
		  "the header names the three sections");
	ASSERT_OK(bw_image_check(img, len, &in, why, sizeof(why)), why);
	ASSERT_OK(bw_image_lists_read(&in, &got), "read the sections");
	small_sections(&want);
	ASSERT_EQ(got.present, BW_IMAGE_S_ALL, "all three read");
	for (i = 0; i < BW_IMAGE_NSEC; i++)
		ASSERT_TRUE(same_list(&got.l[i], &want.l[i]),
			    bw_image_sec_name(i));
	ASSERT_EQ_U64(got.l[BW_IMAGE_EXACT].n4, 2, "exact: 2 IPv4");
	ASSERT_EQ_U64(got.l[BW_IMAGE_ALLOW].ndom, 1, "allow: 1 name");
	ASSERT_EQ_U64(got.l[BW_IMAGE_NAMES].ndom, 2, "names: 2");
	/* What it reads encodes to the same bytes. */
	ASSERT_OK(bw_image_encode_lists(in.filter, in.nblocks, &got, &again,
					&len2),
		  "encode again");
	ASSERT_TRUE(len == len2 && !memcmp(img, again, len),
		    "the same filter and sections give the same bytes");
	bw_image_lists_free(&got);
	bw_image_lists_free(&want);
	free(again);
	free(img);
}

BW_TEST(test_image_sections_truncated_and_flipped)
{
	char why[256];
	unsigned char *img;
	size_t len = 0, n, i, refused = 0, flips = 0;
	size_t start;

	img = small_image_sec(&len);
	if (!ASSERT_OK_PTR(img, "small image with sections"))
		return;
	for (n = 0; n < len; n++)
		refused += check_copy(img, n, why, sizeof(why)) == -EINVAL;
	ASSERT_EQ_U64(refused, len, "every truncation length refused");
	check_copy(img, len - 8, why, sizeof(why));
	ASSERT_STRSTR(why, "truncated", "a short one is called truncated");
	ASSERT_EQ_U64(header_changes_refused(img, len),
		      sizeof(struct bw_image_hdr) * 9,
		      "every single-byte change of the header refused");
	/* Every byte of the sections, changed. */
	start = sizeof(struct bw_image_hdr) +
		((struct bw_image_hdr *)img)->filter_bytes;
	refused = 0;
	for (i = start; i < len; i++, flips++) {
		img[i] ^= 0x40;
		refused += check_copy(img, len, why, sizeof(why)) == -EINVAL;
		img[i] ^= 0x40;
	}
	ASSERT_EQ_U64(refused, flips, "every changed byte of the sections");
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), "restored");
	free(img);
}

/* Past the file's crc (fixed up): each section's own checks say which. */
BW_TEST(test_image_sections_checked)
{
	struct bw_image_sec *s;
	struct bw_image in;
	unsigned char *img;
	char why[256] = "";
	size_t len = 0;
	unsigned char c;
	__u64 *v4;

	img = small_image_sec(&len);
	if (!ASSERT_OK_PTR(img, "small image with sections"))
		return;
	ASSERT_OK(bw_image_check(img, len, &in, why, sizeof(why)), why);
	s = (struct bw_image_sec *)in.sec[BW_IMAGE_EXACT];
	v4 = (__u64 *)(s + 1);

	/* A payload byte with only the file's crc fixed: the section's. */
	v4[0] ^= 1ULL << 20;
	fix_crc(img, len);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "a section's own crc");
	ASSERT_STRSTR(why, "corrupt exact prefix set section: crc32",
		      "says which section");
	v4[0] ^= 1ULL << 20;

	/* Both crcs right, the entries wrong. */
	v4[0] = bw_v4key(0x0a000001, 24); /* host bits below /24 */
	fix_sec_crc(img, len, s);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL, "host bits");
	ASSERT_STRSTR(why, "IPv4 prefix 0 is malformed", "says which entry");
	v4[0] = v4[1];
	fix_sec_crc(img, len, s);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "a prefix twice");
	ASSERT_STRSTR(why, "IPv4 prefix 1 out of order", "says the order");
	free(img);

	img = small_image_sec(&len);
	if (!ASSERT_OK_PTR(img, "small image with sections"))
		return;
	ASSERT_OK(bw_image_check(img, len, &in, why, sizeof(why)), why);
	s = (struct bw_image_sec *)in.sec[BW_IMAGE_NAMES];
	c = ((unsigned char *)(s + 1))[2];
	((unsigned char *)(s + 1))[2] = 'G'; /* not folded */
	fix_sec_crc(img, len, s);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "a name not checked");
	ASSERT_STRSTR(why, "corrupt name allow entries section: name 0",
		      "says which name");
	((unsigned char *)(s + 1))[2] = c;
	fix_sec_crc(img, len, s);
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), why);
	s->n4 = 1;
	fix_crc(img, len);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "counts that disagree with the size");
	free(img);
}

/* The filter's flags and the sections must agree. */
BW_TEST(test_image_sections_agree)
{
	struct bw_image_lists ls;
	void *mem, *img = NULL;
	char why[256] = "";
	__u32 nblocks = 0;
	size_t len = 0;

	mem = built_filter(SMALL_LIST, BW_F_VERIFY, &nblocks);
	if (!ASSERT_OK_PTR(mem, "small filter in verify mode"))
		return;
	ASSERT_OK(bw_image_encode(mem, nblocks, &img, &len), "encode");
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "verify without the exact set");
	ASSERT_STRSTR(why, "carries no exact prefix set", "says so");
	free(img);
	free(mem);
	mem = small_filter(&nblocks);
	if (!ASSERT_OK_PTR(mem, "small filter"))
		return;
	small_sections(&ls);
	ls.present = 1U << BW_IMAGE_EXACT;
	ASSERT_OK(bw_image_encode_lists(mem, nblocks, &ls, &img, &len),
		  "encode");
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "an exact set without verify");
	ASSERT_STRSTR(why, "not in verify mode", "says so");
	free(img);
	((struct bw_hdr *)mem)->flags |= BW_F_ALLOW;
	ls.present = 1U << BW_IMAGE_NAMES;
	ASSERT_OK(bw_image_encode_lists(mem, nblocks, &ls, &img, &len),
		  "encode");
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL,
		  "the allow flag without the allowlist");
	ASSERT_STRSTR(why, "asks for an allowlist", "says so");
	free(img);
	/* An empty allowlist is one: --allow of an empty file. */
	bw_list_free(&ls.l[BW_IMAGE_ALLOW]);
	ls.present = 1U << BW_IMAGE_ALLOW;
	ASSERT_OK(bw_image_encode_lists(mem, nblocks, &ls, &img, &len),
		  "encode");
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), why);
	free(img);
	bw_image_lists_free(&ls);
	free(mem);
}

/* Format 1 (no sections) still reads; one with sections' flags does not. */
BW_TEST(test_image_format_1)
{
	struct bw_image_hdr *h;
	char why[256] = "";
	void *img;
	size_t len = 0;

	img = small_image(&len);
	if (!ASSERT_OK_PTR(img, "small image"))
		return;
	h = img;
	h->version = 1;
	fix_crc(img, len);
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), why);
	h->flags = 1U << BW_IMAGE_EXACT;
	fix_crc(img, len);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO,
		  "format 1 with sections");
	ASSERT_STRSTR(why, "sections this bloomwall does not know", "says so");
	h->version = 2;
	h->flags = 1U << 5;
	fix_crc(img, len);
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO,
		  "an unknown section");
	free(img);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The --allow files' content counts; without them the seed is format 1's. */
BW_TEST(test_image_seed_allow)
{
	char l[] = "/tmp/bw-seed-l.XXXXXX", a[] = "/tmp/bw-seed-a.XXXXXX";
	const char *lists[] = { l }, *allow[] = { a };
	__u32 opts = 7, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int fd;

	fd = mkstemp(l);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(a);
	if (fd >= 0)
		close(fd);
	write_text(l, "10.0.0.1\n");
	write_text(a, "10.0.0.2\n");
	ASSERT_OK(bw_image_seed(lists, 1, NULL, 0, &opts, sizeof(opts), &s0),
		  "seed without --allow");
	ASSERT_OK(bw_image_seed(lists, 1, allow, 1, &opts, sizeof(opts), &s1),
		  "seed with --allow");
	ASSERT_OK(bw_image_seed(lists, 1, allow, 1, &opts, sizeof(opts), &s2),
		  "the same again");
	write_text(a, "10.0.0.3\n");
	ASSERT_OK(bw_image_seed(lists, 1, allow, 1, &opts, sizeof(opts), &s3),
		  "a changed allowlist");
	ASSERT_TRUE(s0 != s1, "--allow changes the seed");
	ASSERT_EQ(s1, s2, "the same files, the same seed");
	ASSERT_TRUE(s1 != s3, "a changed allowlist, another seed");
	unlink(l);
	unlink(a);
}
