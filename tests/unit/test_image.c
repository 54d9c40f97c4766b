// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Filter images (user/image/image.c): what is encoded reads back byte for byte,
 * through a file too; every truncation, every single-byte change of the
 * header, a changed byte in the blocks, the other byte order and another
 * version are refused, with a reason that says which; format 2 sections
 * read back, are checked one by one and agree with the filter.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <zlib.h>

#include "bloomwall.h"
#include "filter/bloom.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "filter/records_edit.h"
#include "filter/records_write.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_check.h"
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

/* ---- the filter inside, field by field ------------------------------------ */

/* Lists as build reads them: each must give a filter the checks take. */
static const char *const built_lists[] = {
	SMALL_LIST,
	NAMES_LIST,
	"ads.example\n",
	"",
	"0.0.0.0/0\n::/0\n",
	"10.0.0.1\n10.1.0.0/16\n10.2.0.0/15\n172.16.0.0/12\n2001:db8::1\n"
	"2001:db8:1::/48\n@@||ok.example^\n*.bad.example\n",
};

/* The checks run on the builder's own output: every build passes them. */
BW_TEST(test_image_check_builder_output)
{
	static const __u16 flags[] = { 0, BW_F_VERIFY | BW_F_ALLOW,
				       BW_F_MATCH_DST | BW_F_MONITOR };
	char why[256], name[64];
	struct bw_capture c;
	__u32 nblocks = 0;
	size_t i, j;
	void *mem;

	for (i = 0; i < sizeof(built_lists) / sizeof(built_lists[0]); i++) {
		for (j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
			snprintf(name, sizeof(name), "list %zu, flags 0x%x", i,
				 flags[j]);
			/* The /0 lists' warnings are not this test's. */
			bw_capture_start(&c);
			mem = built_filter(built_lists[i], flags[j], &nblocks);
			free(bw_capture_end(&c));
			if (!ASSERT_OK_PTR(mem, name))
				continue;
			why[0] = '\0';
			ASSERT_OK(bw_image_check_filter(mem, nblocks, why,
							sizeof(why)),
				  why[0] ? why : name);
			free(mem);
		}
	}
}

enum { AT_HDR, AT_INFO, AT_DNS };

/* One field of a built filter set to a value no build writes. */
struct field_edit {
	int at;	    /* the block it is in */
	size_t off; /* in that block */
	int size;   /* 1, 2 or 4 bytes */
	__u32 val;
	bool past_end; /* val is added to the filter's nblocks */
	const char *want;
};

#define HDR(f) \
	AT_HDR, offsetof(struct bw_hdr, f), sizeof(((struct bw_hdr *)0)->f)
#define DNS(f)                                  \
	AT_DNS, offsetof(struct bw_dns_hdr, f), \
		sizeof(((struct bw_dns_hdr *)0)->f)

static const struct field_edit field_edits[] = {
	{ HDR(nlengths[BW_V4]), 0, false,
	  "region 0 is past nlengths[IPv4] = 0" },
	{ HDR(nlengths[BW_V4]), 5, false, "nlengths[IPv4] is 5; at most 4" },
	{ HDR(nlengths[BW_V4]), 255, false, "nlengths[IPv4] is 255" },
	{ HDR(plen[BW_V4][0]), 0, false,
	  "region_entries[0] is 257, more than the 1 IPv4 prefixes of length /0" },
	{ HDR(plen[BW_V4][0]), 33, false, "plen[IPv4][0] is 33" },
	{ HDR(plen[BW_V6][0]), 129, false, "plen[IPv6][0] is 129" },
	{ HDR(probes[0]), 0, false, "probes[0] is 0;" },
	{ HDR(probes[0]), 7, false, "probes[0] is 7;" },
	{ HDR(probes[0]), 24, false, "probes[0] is 24;" },
	{ HDR(probes[0]), 32, false, "probes[0] is 32;" },
	{ HDR(probes[0]), 255, false, "probes[0] is 255;" },
	{ HDR(flags), 0xffe1, false, "flags 0xffe1: bits 0xffc0" },
	{ HDR(flags), BW_F_MATCH_SRC, false,
	  "flags 0x0001 lack BW_F_DNS (0x20), but block" },
	{ HDR(flags), BW_F_DNS, false, "flags 0x0020 match neither" },
	{ HDR(exact_slot), 2, false, "exact_slot 2" },
	{ HDR(pad), 1, false, "filter header: pad 0x01" },
	{ HDR(region_end[0]), 1, false, "region_end[0] is 1, before" },
	{ HDR(region_end[BW_REGIONS - 1]), 1, true,
	  "region_end[7] is %u, past the filter's" },
	{ DNS(magic), 0, false, "DNS block: magic 0x00000000" },
	{ DNS(action), 4, false, "DNS block: action 4" },
	{ DNS(probes[0]), 0, false, "DNS block: probes[0] is 0" },
	{ DNS(flags), 0x80, false, "DNS block: flags 0x80" },
	{ DNS(ttl), 0xffffffffU, false, "DNS block: ttl 4294967295" },
	{ DNS(ttl), 86401, false, "DNS block: ttl 86401" },
	{ DNS(region_end[BW_NAME_SUBTREE]), 0, true,
	  "record area: none (the regions end at block %u" },
	{ DNS(region_entries[BW_NAME_EXACT]), 0, false,
	  "DNS block: region_entries[0] is 0 for a region of" },
	{ AT_INFO, offsetof(struct bw_info, generation), 4, 0, false,
	  "filter info: generation 0" },
	{ AT_INFO, offsetof(struct bw_info, region_entries[1]), 4, 3, false,
	  "region 1 is past nlengths[IPv4] = 1" },
};

static void set_field(void *mem, __u32 nblocks, const struct field_edit *e)
{
	const struct bw_hdr *h = mem;
	__u32 blk = e->at == AT_HDR    ? 0
		    : e->at == AT_INFO ? 1
				       : bw_dns_block(h);
	__u8 *p = (__u8 *)bw_block_at(mem, blk) + e->off;
	__u32 v = e->val + (e->past_end ? nblocks : 0);
	__u16 v16 = (__u16)v;
	__u8 v8 = (__u8)v;

	if (e->size == 1)
		memcpy(p, &v8, 1);
	else if (e->size == 2)
		memcpy(p, &v16, 2);
	else
		memcpy(p, &v, 4);
}

/* Refused through the whole image (its crc right), naming field and value. */
static void expect_refused(const void *mem, __u32 nblocks, const char *want,
			   const char *name)
{
	char why[256] = "";
	void *img = NULL;
	size_t len = 0;

	if (!ASSERT_OK(bw_image_encode(mem, nblocks, &img, &len), "encode"))
		return;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL, name);
	ASSERT_STRSTR(why, want, name);
	free(img);
}

BW_TEST(test_image_check_fields)
{
	char want[160], name[200];
	const struct field_edit *e;
	__u32 nblocks = 0;
	void *mem, *orig;
	size_t i;

	orig = built_filter(NAMES_LIST, 0, &nblocks);
	if (!ASSERT_OK_PTR(orig, "a filter with names"))
		return;
	/* What the edits assume of it. */
	ASSERT_EQ(((struct bw_hdr *)orig)->flags, BW_F_MATCH_SRC | BW_F_DNS,
		  "flags");
	ASSERT_EQ(((struct bw_hdr *)orig)->nlengths[BW_V4], 1,
		  "one IPv4 length");
	ASSERT_EQ(((struct bw_info *)bw_block_at(orig, 1))->region_entries[0],
		  257, "10.0.0.1 and a /24 at /32");
	mem = malloc((size_t)nblocks * BW_BLOCK_BYTES);
	if (!ASSERT_OK_PTR(mem, "a copy"))
		goto out;
	for (i = 0; i < sizeof(field_edits) / sizeof(field_edits[0]); i++) {
		e = &field_edits[i];
		memcpy(mem, orig, (size_t)nblocks * BW_BLOCK_BYTES);
		set_field(mem, nblocks, e);
		snprintf(want, sizeof(want), e->want,
			 e->val + (e->past_end ? nblocks : 0));
		snprintf(name, sizeof(name), "edit %zu: %s", i, want);
		expect_refused(mem, nblocks, want, name);
	}
	free(mem);
out:
	free(orig);
}

/* The rate and the entry count of the info block: numbers no build writes. */
BW_TEST(test_image_check_info_numbers)
{
	static const double rates[] = { NAN, -0.001, 1e-300, 0.5, 0.0 };
	static const char *const said[] = { "fpr is nan", "fpr is -0.001",
					    "fpr is 1e-300", "fpr is 0.5",
					    "fpr is 0 " };
	struct bw_info *info;
	__u32 nblocks = 0;
	void *mem;
	size_t i;

	mem = small_filter(&nblocks);
	if (!ASSERT_OK_PTR(mem, "small filter"))
		return;
	info = (struct bw_info *)bw_block_at(mem, 1);
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		bw_info_set_fpr(info, rates[i]);
		expect_refused(mem, nblocks, said[i], said[i]);
	}
	bw_info_set_fpr(info, 0.001);
	info->entries = ~0ULL;
	expect_refused(
		mem, nblocks,
		"filter info: entries 18446744073709551615, but its region_entries add up to",
		"entries 2^64-1");
	free(mem);
}

/* The header's own fields: each refusal names the field and its value. */
BW_TEST(test_image_header_fields_named)
{
	struct bw_image_hdr *h, save;
	char why[256] = "";
	void *img;
	size_t len = 0;

	img = small_image(&len);
	if (!ASSERT_OK_PTR(img, "small image"))
		return;
	h = img;
	save = *h;
	h->pad[3] = 1;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EINVAL, "pad");
	ASSERT_STRSTR(why, "corrupt header: pad[3] is 0x01, not zero",
		      "a non-zero pad is no unknown section");
	*h = save;
	h->nblocks = 1;
	check_copy(img, len, why, sizeof(why));
	ASSERT_STRSTR(why, "nblocks 1; a filter has 2 to", "nblocks");
	*h = save;
	h->filter_bytes += BW_BLOCK_BYTES;
	check_copy(img, len, why, sizeof(why));
	ASSERT_STRSTR(why, "filter_bytes", "filter_bytes");
	*h = save;
	h->image_bytes = sizeof(*h) + h->filter_bytes + BW_IMAGE_SEC_MAX + 8;
	check_copy(img, len, why, sizeof(why));
	ASSERT_STRSTR(why, "sections where an image has at most",
		      "image_bytes past any image");
	*h = save;
	h->flags = 1U << 5;
	ASSERT_EQ(check_copy(img, len, why, sizeof(why)), -EPROTO, "flags");
	ASSERT_STRSTR(why, "(flags 0x20; format 2 knows 0xf)",
		      "says the flags");
	*h = save;
	ASSERT_OK(check_copy(img, len, why, sizeof(why)), why);
	free(img);
}

/* ---- files: only regular ones, the header read first ---------------------- */

/* Bytes this process has read (read, pread) so far: /proc/self/io's rchar. */
static unsigned long long bytes_read(void)
{
	unsigned long long n = 0;
	char line[128];
	FILE *f = fopen("/proc/self/io", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* bw_image_read_file of path: its error, what it said in *msg (free it). */
static int read_image(const char *path, char **msg)
{
	struct bw_capture c;
	struct bw_image img;
	int err;

	bw_capture_start(&c);
	err = bw_image_read_file(path, &img);
	*msg = bw_capture_end(&c);
	if (!err)
		bw_image_free(&img);
	return err;
}

/*
 * A 2 GiB sparse file: with a bad header, or a good one that says another
 * size, it is refused having read the 64 bytes of its header, not 2 GiB.
 */
BW_TEST(test_image_read_header_first)
{
	char path[] = "/tmp/bw-image-sparse.XXXXXX", want[200], *msg = NULL;
	unsigned long long before;
	struct bw_image_hdr *h;
	size_t len = 0;
	__u32 nblocks;
	void *img;
	int fd;

	img = small_image(&len);
	fd = mkstemp(path);
	if (!ASSERT_OK_PTR(img, "small image") ||
	    !ASSERT_TRUE(fd >= 0, "temporary file"))
		goto out;
	h = img;
	nblocks = h->nblocks;
	h->nblocks = 0;
	if (!ASSERT_TRUE(pwrite(fd, img, sizeof(*h), 0) == sizeof(*h),
			 "header") ||
	    !ASSERT_OK(ftruncate(fd, 2LL << 30), "2 GiB, sparse"))
		goto out;
	before = bytes_read();
	ASSERT_EQ(read_image(path, &msg), -EINVAL, "a bad header");
	ASSERT_TRUE(bytes_read() - before < 4096, "only the header was read");
	snprintf(want, sizeof(want),
		 "%s: refused: corrupt header: nblocks 0; a filter has 2 to",
		 path);
	ASSERT_STRSTR(msg, want, "names the field");
	free(msg);

	/* A whole image at its start: the size disagrees with its header. */
	h->nblocks = nblocks;
	if (!ASSERT_TRUE(pwrite(fd, img, len, 0) == (ssize_t)len, "image"))
		goto out;
	before = bytes_read();
	ASSERT_EQ(read_image(path, &msg), -EINVAL, "a 2 GiB image of 1 KiB");
	ASSERT_TRUE(bytes_read() - before < 4096, "only the header was read");
	snprintf(
		want, sizeof(want),
		"%s: refused: 2147483648 bytes where its header says %zu: data after the image",
		path, len);
	ASSERT_STRSTR(msg, want, "says both sizes");
	free(msg);
	if (ASSERT_OK(ftruncate(fd, (off_t)len), "cut to the image")) {
		ASSERT_OK(read_image(path, &msg), "then it reads");
		free(msg);
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(img);
}

/* A FIFO, a directory, a device: refused unopened, saying what it is. */
BW_TEST(test_image_read_not_regular)
{
	char dir[] = "/tmp/bw-image-kinds.XXXXXX", path[128], want[200];
	char *msg = NULL;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	/* With no writer, an open() that blocked would never return. */
	if (ASSERT_OK(mkfifo(path, 0600), "mkfifo")) {
		ASSERT_EQ(read_image(path, &msg), -EINVAL, "a FIFO");
		snprintf(
			want, sizeof(want),
			"%s: not a regular file (a FIFO): the image must be one\n",
			path);
		ASSERT_STREQ(msg, want, "says it is a FIFO");
		free(msg);
		unlink(path);
	}
	ASSERT_EQ(read_image(dir, &msg), -EISDIR, "a directory");
	ASSERT_STRSTR(msg, "not a regular file (a directory)",
		      "says it is a directory");
	free(msg);
	/* A node of our own (never the host's): needs root, else skipped. */
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0600, makedev(1, 3))) {
		ASSERT_EQ(read_image(path, &msg), -EINVAL, "a device");
		ASSERT_STRSTR(msg, "not a regular file (a character device)",
			      "says it is a device");
		free(msg);
		unlink(path);
	}
	rmdir(dir);
}

/* What build -o replaces: a regular file (through a link), nothing else. */
BW_TEST(test_image_write_not_regular)
{
	char dir[] = "/tmp/bw-image-out.XXXXXX", path[128], file[128];
	struct bw_capture c;
	struct stat st;
	size_t len = 0;
	char *msg;
	void *img;

	img = small_image(&len);
	if (!ASSERT_OK_PTR(img, "small image") ||
	    !ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp")) {
		free(img);
		return;
	}
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (ASSERT_OK(mkfifo(path, 0600), "mkfifo")) {
		bw_capture_start(&c);
		ASSERT_EQ(bw_image_write_file(path, img, len), -EEXIST,
			  "a FIFO");
		msg = bw_capture_end(&c);
		ASSERT_STRSTR(
			msg,
			"fifo: is a FIFO, not a regular file: refusing to replace it with the image",
			"says so");
		free(msg);
		ASSERT_TRUE(!lstat(path, &st) && S_ISFIFO(st.st_mode),
			    "still a FIFO");
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/null", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		bw_capture_start(&c);
		ASSERT_EQ(bw_image_write_file(path, img, len), -EEXIST,
			  "a device node");
		msg = bw_capture_end(&c);
		ASSERT_STRSTR(msg, "is a character device, not a regular file",
			      "says so");
		free(msg);
		ASSERT_TRUE(!lstat(path, &st) && S_ISCHR(st.st_mode) &&
				    st.st_rdev == makedev(1, 3),
			    "still the device node");
		unlink(path);
	}
	/* A link to a regular file: the link is replaced, its target kept. */
	snprintf(file, sizeof(file), "%s/target", dir);
	snprintf(path, sizeof(path), "%s/link", dir);
	write_text(file, "kept\n");
	if (ASSERT_OK(symlink(file, path), "symlink")) {
		ASSERT_OK(bw_image_write_file(path, img, len), "over the link");
		ASSERT_TRUE(!lstat(path, &st) && S_ISREG(st.st_mode) &&
				    (size_t)st.st_size == len,
			    "the link is now the image");
		ASSERT_TRUE(!stat(file, &st) && st.st_size == 5,
			    "its target is untouched");
		unlink(path);
	}
	unlink(file);
	rmdir(dir);
	free(img);
}
