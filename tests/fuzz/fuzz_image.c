// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libFuzzer target for the image reader (user/image/image.c): any bytes are
 * checked without reading out of bounds; an image that passes has its
 * sections read back as lists, is re-encoded from its filter and those
 * lists to the same bytes (up to a signed one's signature section), and
 * its filter answers lookups. Each input is tried as it is and with its
 * crcs made right (a signed one also signed again with the fuzzer's own
 * key, then checked with that key required), so that the checks behind
 * them (the signature section, the sections' sizes, prefixes and names)
 * meet fuzzed bytes too.
 */
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "filter/bloom.h"
#include "filter/records.h"
#include "filter/records_read.h"
#include "image/image.h"
#include "image/image_sec.h"
#include "image/image_sign.h"
#include "image/sign_key.h"
#include "lists/list.h"

static void one(const uint8_t *data, size_t size,
		const struct bw_verify_keys *keys)
{
	bool signed_;
	__u64 body;
	struct bw_prefix p = { .family = BW_V4, .plen = 32 };
	struct bw_image_lists ls;
	struct bw_records rec;
	struct bw_image img;
	char why[256];
	void *buf, *again = NULL;
	size_t len;

	buf = malloc(size ?: 1);
	if (!buf)
		return;
	memcpy(buf, data, size);
	if (!bw_image_check_keys(buf, size, keys, &img, why, sizeof(why))) {
		body = bw_image_signed_bytes(img.hdr);
		signed_ = img.hdr->flags & BW_IMAGE_F_SIG;
		if (signed_ != img.sig.present || (keys && !img.sig.verified))
			abort(); /* the signature said as it was checked */
		if (bw_image_lists_read(&img, &ls))
			abort(); /* checked sections read (no allocation fails) */
		if (ls.present != (img.hdr->flags & BW_IMAGE_S_ALL))
			abort();
		if (bw_image_encode_lists(img.filter, img.nblocks, &ls, &again,
					  &len))
			abort();
		/*
		 * An accepted image is what its filter and sections encode
		 * (format 1's header aside: it is written as format 2's).
		 */
		if (len != body ||
		    memcmp((char *)again + sizeof(*img.hdr),
			   data + sizeof(*img.hdr), body - sizeof(*img.hdr)) ||
		    (img.hdr->version == BW_IMAGE_VERSION && !signed_ &&
		     memcmp(again, data, size)))
			abort();
		bw_image_lists_free(&ls);
		if (bw_records_read(img.filter, img.nblocks, &rec))
			abort(); /* the check read the same area */
		bw_records_free(&rec);
		bw_filter_lookup(img.filter, &p, NULL);
		free(again);
	}
	free(buf);
}

static __u32 crc_of(const void *p, size_t n)
{
	return (__u32)crc32(crc32(0, NULL, 0), p, (uInt)n);
}

/* The fuzzer's own key: an input re-signed with it is checked behind it. */
static struct bw_seckey fuzz_key;
static struct bw_verify_keys fuzz_keys;

static void fuzz_key_init(void)
{
	static const unsigned char seed[crypto_sign_SEEDBYTES] = { 7 };

	if (fuzz_keys.n || sodium_init() < 0)
		return;
	crypto_sign_seed_keypair(fuzz_key.pub.pk, fuzz_key.sk, seed);
	bw_key_id(fuzz_key.pub.pk, fuzz_key.pub.id);
	fuzz_keys.k[0] = fuzz_key.pub;
	fuzz_keys.n = 1;
	snprintf(fuzz_keys.source, sizeof(fuzz_keys.source), "fuzz");
}

/* A signed image's section made right for the fuzzer's key. */
static void resign(uint8_t *b, size_t size)
{
	struct bw_image_sig_sec sig;

	if (size < sizeof(struct bw_image_hdr) + sizeof(sig))
		return;
	/* The fuzzer's bytes may put it at any address: copied in and out. */
	memcpy(&sig, b + size - sizeof(sig), sizeof(sig));
	sig.type = BW_IMAGE_F_SIG;
	sig.alg = BW_IMAGE_SIG_ED25519;
	memcpy(sig.key_id, fuzz_key.pub.id, sizeof(sig.key_id));
	memcpy(sig.pk, fuzz_key.pub.pk, sizeof(sig.pk));
	crypto_sign_detached(sig.sig, NULL, b, size - sizeof(sig), fuzz_key.sk);
	memcpy(b + size - sizeof(sig), &sig, sizeof(sig));
}

/*
 * The same bytes with every crc made right (each section's as far as the
 * bytes go, then the file's) and, for a signed image, the signature made
 * again with the fuzzer's key: what lies behind them gets fuzzed too.
 */
static void with_crcs(const uint8_t *data, size_t size)
{
	struct bw_image_hdr *h;
	struct bw_image_sec s;
	__u64 off, n, body;
	bool signed_;
	uint8_t *b;
	int i;

	if (size < sizeof(*h))
		return;
	b = malloc(size);
	if (!b)
		return;
	memcpy(b, data, size);
	h = (struct bw_image_hdr *)b;
	off = sizeof(*h) + h->filter_bytes;
	for (i = 0; i < BW_IMAGE_NSEC && off >= sizeof(*h); i++) {
		if (!(h->flags & (1U << i)))
			continue;
		if (off > size || size - off < sizeof(s))
			break;
		/* A section lies wherever the fuzzer's lengths put it. */
		memcpy(&s, b + off, sizeof(s));
		n = s.bytes < size - off - sizeof(s) ? s.bytes
						     : size - off - sizeof(s);
		s.crc = crc_of(b + off + sizeof(s), n);
		memcpy(b + off, &s, sizeof(s));
		off += sizeof(s) + n;
	}
	signed_ = (h->flags & BW_IMAGE_F_SIG) &&
		  size >= sizeof(*h) + BW_IMAGE_SIG_BYTES;
	body = signed_ ? size - BW_IMAGE_SIG_BYTES : size;
	h->crc = 0;
	h->crc = crc_of(b, body);
	if (signed_)
		resign(b, size);
	one(b, size, NULL);
	if (signed_)
		one(b, size, &fuzz_keys);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_key_init();
	one(data, size, NULL);
	with_crcs(data, size);
	return 0;
}
