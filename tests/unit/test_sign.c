// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Signed images (user/image/image_sign.c): the builder's output signed in
 * memory reads back signed by its key, with and without the key required;
 * a changed byte anywhere (header, filter, records, sections, the
 * signature section), a truncation at any length, another key, an
 * unsigned image where a key is required, hostile section sizes and a
 * forgery whose crcs were made right again are all refused, saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bloomwall.h"
#include "filter/builder.h"
#include "filter/records.h"
#include "image/crc.h"
#include "image/image.h"
#include "image/image_file.h"
#include "image/image_serial.h"
#include "image/image_sign.h"
#include "image/sign_key.h"
#include "test_helpers.h"

#define SIGN_LIST "10.0.0.1\n192.0.2.0/24\n2001:db8::/48\n"

/* A key pair made in memory, as keygen makes it. */
static void new_key(struct bw_seckey *k)
{
	if (sodium_init() < 0)
		abort();
	crypto_sign_keypair(k->pub.pk, k->sk);
	bw_key_id(k->pub.pk, k->pub.id);
}

static void trust(struct bw_verify_keys *ks, const struct bw_seckey *k)
{
	memset(ks, 0, sizeof(*ks));
	ks->k[0] = k->pub;
	ks->n = 1;
	snprintf(ks->source, sizeof(ks->source), "test.pub");
}

/*
 * The image 'bloomwall build -o' writes of SIGN_LIST with serial 42 and
 * sections (--verify: the exact set), unsigned: builder.c's own output.
 */
static void *built_image(size_t *len, const struct bw_rec_image *ri)
{
	static char path[64];
	const char *lists[] = { path };
	struct bw_image_lists ls;
	struct bw_build_req req;
	struct bw_build b;
	void *mem = NULL, *img = NULL;
	__u32 nblocks;
	int fd;

	/* One path a run: the records name the list, and must not differ. */
	snprintf(path, sizeof(path), "/tmp/bw-sign-list.%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return NULL;
	if (write(fd, SIGN_LIST, strlen(SIGN_LIST)) < 0)
		abort();
	close(fd);
	bw_build_req_init(&req, "test");
	req.lists = lists;
	req.nlists = 1;
	req.opts.seed = 11;
	req.opts.flags |= BW_F_VERIFY;
	req.origin = 0;
	bw_image_lists_init(&ls);
	if (!bw_build_plan(&req, &b)) {
		b.rec.have_image = true;
		b.rec.image = *ri;
		nblocks = bw_build_blocks(&b);
		mem = calloc(nblocks, BW_BLOCK_BYTES);
		bw_list_finish(&b.exact);
		ls.l[BW_IMAGE_EXACT] = b.exact;
		bw_list_init(&b.exact);
		ls.present = 1U << BW_IMAGE_EXACT;
		if (mem) {
			bw_build_fill(&b, mem);
			if (bw_image_encode_lists(mem, nblocks, &ls, &img, len))
				img = NULL;
		}
		bw_build_free(&b);
	}
	bw_image_lists_free(&ls);
	free(mem);
	unlink(path);
	return img;
}

static const struct bw_rec_image serial42 = { .serial = 42,
					      .time_ns = 1000000000ULL * 7 };

static void *signed_image(size_t *len, const struct bw_seckey *k)
{
	void *img = built_image(len, &serial42);

	if (img && bw_image_sign(&img, len, k)) {
		free(img);
		img = NULL;
	}
	return img;
}

/* bw_image_check_keys of a copy of len bytes of img. */
static int check_keys(const void *img, size_t len,
		      const struct bw_verify_keys *ks, struct bw_image_sig *sig,
		      char *why, size_t n)
{
	struct bw_image out;
	void *buf = malloc(len ?: 1);
	int err;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, img, len);
	why[0] = '\0';
	err = bw_image_check_keys(buf, len, ks, &out, why, n);
	if (!err && sig)
		*sig = out.sig;
	free(buf);
	return err;
}

BW_TEST(test_sign_round_trip)
{
	struct bw_seckey k;
	struct bw_verify_keys ks;
	struct bw_image_sig sig;
	struct bw_image img;
	struct bw_rec_image ri;
	size_t len = 0, ulen = 0;
	void *buf, *plain;
	char why[320];

	new_key(&k);
	trust(&ks, &k);
	plain = built_image(&ulen, &serial42);
	buf = signed_image(&len, &k);
	if (!ASSERT_OK_PTR(buf, "signed image") ||
	    !ASSERT_OK_PTR(plain, "image"))
		return;
	ASSERT_EQ_U64(len, ulen + BW_IMAGE_SIG_BYTES, "the section's size");
	ASSERT_TRUE(!memcmp((char *)buf + sizeof(struct bw_image_hdr),
			    (char *)plain + sizeof(struct bw_image_hdr),
			    ulen - sizeof(struct bw_image_hdr)),
		    "signing changes nothing after the header");
	ASSERT_OK(check_keys(buf, len, &ks, &sig, why, sizeof(why)), why);
	ASSERT_TRUE(sig.present && sig.verified, "signed and verified");
	ASSERT_TRUE(!memcmp(sig.key_id, k.pub.id, sizeof(sig.key_id)),
		    "by the key's id");
	ASSERT_STREQ(sig.source, "test.pub", "the keys' source");
	ASSERT_OK(check_keys(buf, len, NULL, &sig, why, sizeof(why)), why);
	ASSERT_TRUE(sig.present && !sig.verified,
		    "no key required: signed, not verified");
	ASSERT_OK(check_keys(plain, ulen, NULL, &sig, why, sizeof(why)), why);
	ASSERT_FALSE(sig.present, "the unsigned one is unsigned");
	/* Ed25519 is deterministic: the same image and key, the same bytes. */
	{
		size_t len2 = 0;
		void *again = signed_image(&len2, &k);

		ASSERT_TRUE(again && len2 == len && !memcmp(again, buf, len),
			    "signed twice, the same bytes");
		ASSERT_EQ(bw_image_sign(&again, &len2, &k), -EINVAL,
			  "an image signed already is not signed again");
		free(again);
	}
	/* The plain check (no signature) still reads it, sections too. */
	memset(&img, 0, sizeof(img));
	ASSERT_OK(bw_image_check(buf, len, &img, why, sizeof(why)), why);
	ASSERT_OK_PTR(img.sec[BW_IMAGE_EXACT], "the exact section is read");
	ASSERT_OK(bw_image_rec_read(&img, &ri), "the image record");
	ASSERT_EQ_U64(ri.serial, 42, "its serial");
	ASSERT_EQ_U64(ri.time_ns, 7000000000ULL, "its time");
	free(buf);
	free(plain);
	bw_seckey_wipe(&k);
}

/* Every byte changed (all its bits): refused with and without the key. */
BW_TEST(test_sign_every_byte)
{
	struct bw_verify_keys ks;
	struct bw_seckey k;
	size_t len = 0, i, passed = 0, refused_keyed = 0;
	unsigned char *buf;
	char why[320];

	new_key(&k);
	trust(&ks, &k);
	buf = signed_image(&len, &k);
	if (!ASSERT_OK_PTR(buf, "signed image"))
		return;
	for (i = 0; i < len; i++) {
		buf[i] ^= 0xff;
		if (!check_keys(buf, len, NULL, NULL, why, sizeof(why)))
			passed++;
		if (check_keys(buf, len, &ks, NULL, why, sizeof(why)))
			refused_keyed++;
		buf[i] ^= 0xff;
	}
	ASSERT_EQ_U64(passed, 0, "no changed byte passes without a key");
	ASSERT_EQ_U64(refused_keyed, len, "every changed byte is refused");
	free(buf);
}

/* The filter changed and every crc made right: only the signature tells. */
BW_TEST(test_sign_forged)
{
	struct bw_image_hdr *h;
	struct bw_verify_keys ks;
	struct bw_seckey k;
	unsigned char *buf;
	size_t len = 0, body;
	char why[320];

	new_key(&k);
	trust(&ks, &k);
	buf = signed_image(&len, &k);
	if (!ASSERT_OK_PTR(buf, "signed image"))
		return;
	h = (void *)buf;
	body = len - BW_IMAGE_SIG_BYTES;
	/* A bit of the Bloom part (block 2 on) the builder left clear. */
	buf[sizeof(*h) + 2 * BW_BLOCK_BYTES + 5] ^= 0x10;
	h->crc = bw_crc32_hole(buf, body, offsetof(struct bw_image_hdr, crc));
	ASSERT_OK(bw_image_check(buf, len, &(struct bw_image){}, why,
				 sizeof(why)),
		  "the crcs hold again");
	ASSERT_EQ(check_keys(buf, len, &ks, NULL, why, sizeof(why)),
		  -EKEYREJECTED, "a forgery, with the key");
	ASSERT_STRSTR(why, "bad signature: it does not hold for trusted key",
		      "says the signature is bad");
	ASSERT_EQ(check_keys(buf, len, NULL, NULL, why, sizeof(why)), -EINVAL,
		  "a forgery, without a key");
	ASSERT_STRSTR(why, "its signature does not hold for the key it names",
		      "says it is corrupt");
	free(buf);
}

BW_TEST(test_sign_other_key_unsigned)
{
	struct bw_verify_keys ks, both;
	struct bw_seckey k, other;
	char why[320], hex[BW_KEY_ID_HEX];
	struct bw_image_sig sig;
	size_t len = 0, ulen = 0;
	void *buf, *plain;

	new_key(&k);
	new_key(&other);
	trust(&ks, &other);
	buf = signed_image(&len, &k);
	plain = built_image(&ulen, &serial42);
	if (!ASSERT_OK_PTR(buf, "signed image") ||
	    !ASSERT_OK_PTR(plain, "image"))
		return;
	ASSERT_EQ(check_keys(buf, len, &ks, NULL, why, sizeof(why)),
		  -EKEYREJECTED, "another key's image");
	ASSERT_STRSTR(why, bw_key_id_hex(k.pub.id, hex), "names the signer");
	ASSERT_STRSTR(why, "which is not a trusted key (test.pub: ",
		      "and the trusted keys");
	ASSERT_EQ(check_keys(plain, ulen, &ks, NULL, why, sizeof(why)),
		  -EKEYREJECTED, "an unsigned image where a key is required");
	ASSERT_STRSTR(why, "unsigned, and a signature is required: test.pub",
		      "says so, naming the keys");
	/* A file of two keys (a rotation): either signer passes. */
	both = ks;
	both.k[1] = k.pub;
	both.n = 2;
	ASSERT_OK(check_keys(buf, len, &both, &sig, why, sizeof(why)), why);
	ASSERT_TRUE(sig.verified, "verified by the second key");
	/* The right id with other bytes (a collision made up): refused. */
	both.k[1].pk[0] ^= 1;
	ASSERT_EQ(check_keys(buf, len, &both, NULL, why, sizeof(why)),
		  -EKEYREJECTED, "a trusted id with other key bytes");
	free(buf);
	free(plain);
}

/* Truncated anywhere, and hostile sizes in the header and the section. */
BW_TEST(test_sign_truncated_hostile)
{
	struct bw_image_sig_sec *s;
	struct bw_image_hdr *h;
	struct bw_verify_keys ks;
	struct bw_seckey k;
	size_t len = 0, ulen = 0, i, passed = 0;
	unsigned char *buf, *plain;
	char why[320];

	new_key(&k);
	trust(&ks, &k);
	buf = signed_image(&len, &k);
	plain = built_image(&ulen, &serial42);
	if (!ASSERT_OK_PTR(buf, "signed image") ||
	    !ASSERT_OK_PTR(plain, "image"))
		return;
	for (i = 0; i < len; i++)
		if (!check_keys(buf, i, &ks, NULL, why, sizeof(why)) ||
		    !check_keys(buf, i, NULL, NULL, why, sizeof(why)))
			passed++;
	ASSERT_EQ_U64(passed, 0, "no truncation passes");
	/* The flag on an image with no room for the section. */
	h = (void *)plain;
	h->flags |= BW_IMAGE_F_SIG;
	ASSERT_ERR(check_keys(plain, ulen, NULL, NULL, why, sizeof(why)),
		   "the flag without a section");
	h->image_bytes = sizeof(*h) + h->filter_bytes + 50;
	ASSERT_EQ(
		check_keys(plain, h->image_bytes, NULL, NULL, why, sizeof(why)),
		-EINVAL, "a section shorter than one");
	ASSERT_STRSTR(why, "too few for the filter and the signature section",
		      "says the header's size is too small");
	/* The section's own fields. */
	s = (void *)(buf + len - BW_IMAGE_SIG_BYTES);
	s->alg = 2;
	ASSERT_EQ(check_keys(buf, len, &ks, NULL, why, sizeof(why)), -EPROTO,
		  "another algorithm");
	ASSERT_STRSTR(why, "signed with algorithm 2", "names it");
	s->alg = BW_IMAGE_SIG_ED25519;
	s->type = 7;
	ASSERT_EQ(check_keys(buf, len, NULL, NULL, why, sizeof(why)), -EINVAL,
		  "a section of another type");
	s->type = BW_IMAGE_F_SIG;
	s->key_id[0] ^= 1;
	ASSERT_EQ(check_keys(buf, len, NULL, NULL, why, sizeof(why)), -EINVAL,
		  "a key id that is not the key's");
	ASSERT_STRSTR(why, "its key id is not its key's", "says so");
	s->key_id[0] ^= 1;
	ASSERT_OK(check_keys(buf, len, &ks, NULL, why, sizeof(why)), why);
	free(buf);
	free(plain);
}

/* Through a file: refused before the image's meaning is read. */
BW_TEST(test_sign_read_file)
{
	char path[] = "/tmp/bw-sign-img.XXXXXX";
	struct bw_verify_keys ks, none = { .n = 0 };
	struct bw_seckey k, other;
	struct bw_image img;
	size_t len = 0;
	void *buf;
	int fd;

	new_key(&k);
	new_key(&other);
	buf = signed_image(&len, &k);
	fd = mkstemp(path);
	if (!ASSERT_OK_PTR(buf, "signed image") || !ASSERT_TRUE(fd >= 0, "tmp"))
		return;
	close(fd);
	ASSERT_OK(bw_image_write_file(path, buf, len), "written");
	trust(&ks, &k);
	ASSERT_OK(bw_image_read_file_keys(path, &ks, &img), "read, verified");
	ASSERT_TRUE(img.sig.present && img.sig.verified, "verified");
	bw_image_free(&img);
	ASSERT_OK(bw_image_read_file_keys(path, &none, &img), "no key needed");
	ASSERT_TRUE(img.sig.present && !img.sig.verified, "not verified");
	bw_image_free(&img);
	trust(&ks, &other);
	ASSERT_EQ(bw_image_read_file_keys(path, &ks, &img), -EKEYREJECTED,
		  "another key");
	ASSERT_TRUE(!img.buf, "nothing kept of a refused image");
	unlink(path);
	free(buf);
}
