// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The signature section of an image (image_sign.h): appending one, and
 * checking one before anything else of the image is trusted.
 */
#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/crc.h"
#include "image/image.h"
#include "image/image_sign.h"

int bw_image_sign(void **buf, size_t *len, const struct bw_seckey *k)
{
	struct bw_image_sig_sec sec, *s = &sec;
	struct bw_image_hdr *h = *buf;
	size_t off = *len;
	void *n;

	if (h->flags & BW_IMAGE_F_SIG)
		return -EINVAL;
	if (sodium_init() < 0)
		return -EIO;
	n = realloc(*buf, off + sizeof(*s));
	if (!n)
		return -ENOMEM;
	*buf = n;
	*len = off + sizeof(*s);
	h = n;
	h->flags |= BW_IMAGE_F_SIG;
	h->image_bytes = *len;
	h->crc = bw_crc32_hole(n, off, offsetof(struct bw_image_hdr, crc));
	/* Built apart: the image's length may leave the section unaligned. */
	memset(s, 0, sizeof(*s));
	s->type = BW_IMAGE_F_SIG;
	s->alg = BW_IMAGE_SIG_ED25519;
	memcpy(s->key_id, k->pub.id, sizeof(s->key_id));
	memcpy(s->pk, k->pub.pk, sizeof(s->pk));
	crypto_sign_detached(s->sig, NULL, n, off, k->sk);
	memcpy((char *)n + off, s, sizeof(*s));
	return 0;
}

static int refuse(char *why, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(char *why, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* The section itself: where it must be, and saying what it says. */
static int check_sec(const struct bw_image_sig_sec *s, size_t len, char *why,
		     size_t errlen)
{
	__u8 id[BW_KEY_ID_BYTES];

	if (len < sizeof(struct bw_image_hdr) + sizeof(*s))
		return refuse(
			why, errlen, -EINVAL,
			"corrupt signature section: the image is too short to hold one");
	if (s->type != BW_IMAGE_F_SIG)
		return refuse(why, errlen, -EINVAL,
			      "corrupt signature section: type 0x%x", s->type);
	if (s->alg != BW_IMAGE_SIG_ED25519)
		return refuse(
			why, errlen, -EPROTO,
			"signed with algorithm %u; this bloomwall knows Ed25519 (%d)",
			s->alg, BW_IMAGE_SIG_ED25519);
	bw_key_id(s->pk, id);
	if (memcmp(id, s->key_id, sizeof(id)))
		return refuse(
			why, errlen, -EINVAL,
			"corrupt signature section: its key id is not its key's");
	return 0;
}

/* Against the trusted keys: the signer must be one of them. */
static int check_trusted(const void *buf, size_t off,
			 const struct bw_image_sig_sec *s,
			 const struct bw_verify_keys *keys, char *why,
			 size_t errlen)
{
	const struct bw_pubkey *k = bw_verify_keys_find(keys, s->key_id);
	char hex[BW_KEY_ID_HEX], ids[128];

	if (!k || memcmp(k->pk, s->pk, sizeof(k->pk)))
		return refuse(
			why, errlen, -BW_EKEYREJECTED,
			"signed by key %s, which is not a trusted key (%s: %s)",
			bw_key_id_hex(s->key_id, hex), keys->source,
			bw_verify_keys_ids(keys, ids, sizeof(ids)));
	if (crypto_sign_verify_detached(s->sig, buf, off, k->pk))
		return refuse(
			why, errlen, -BW_EKEYREJECTED,
			"bad signature: it does not hold for trusted key %s (the image was changed after it was signed, or the signature is forged)",
			bw_key_id_hex(s->key_id, hex));
	return 0;
}

int bw_image_sig_check(const void *buf, size_t len,
		       const struct bw_verify_keys *keys,
		       struct bw_image_sig *sig, char *why, size_t errlen)
{
	const struct bw_image_hdr *h = buf;
	struct bw_image_sig_sec sec, *s = &sec;
	bool required = keys && keys->n;
	char hex[BW_KEY_ID_HEX];
	size_t off;
	int err;

	memset(sig, 0, sizeof(*sig));
	if (!(h->flags & BW_IMAGE_F_SIG))
		return required
			       ? refuse(why, errlen, -BW_EKEYREJECTED,
					"unsigned, and a signature is required: %s holds the trusted keys (sign it with 'bloomwall build --sign-key')",
					keys->source)
			       : 0;
	if (sodium_init() < 0)
		return refuse(why, errlen, -EIO, "libsodium cannot start");
	/* Copied out: a hostile image's length may leave it unaligned. */
	if (len < sizeof(*h) + sizeof(*s))
		return check_sec(s, len, why, errlen);
	off = len - sizeof(*s);
	memcpy(s, (const char *)buf + off, sizeof(*s));
	err = check_sec(s, len, why, errlen);
	if (err)
		return err;
	if (required)
		err = check_trusted(buf, off, s, keys, why, errlen);
	else if (crypto_sign_verify_detached(s->sig, buf, off, s->pk))
		err = refuse(
			why, errlen, -EINVAL,
			"corrupted: its signature does not hold for the key it names (%s)",
			bw_key_id_hex(s->key_id, hex));
	if (err)
		return err;
	sig->present = true;
	sig->verified = required;
	memcpy(sig->key_id, s->key_id, sizeof(sig->key_id));
	if (required)
		snprintf(sig->source, sizeof(sig->source), "%s", keys->source);
	return 0;
}

int bw_image_check_keys(void *buf, size_t len,
			const struct bw_verify_keys *keys, struct bw_image *img,
			char *why, size_t errlen)
{
	const struct bw_image_hdr *h = buf;
	struct bw_image_sig sig;
	int err;

	/* Too short for a header, or no magic: bw_image_check says which. */
	if (len < sizeof(*h) ||
	    memcmp(h->magic, BW_IMAGE_MAGIC, sizeof(h->magic)))
		return bw_image_check(buf, len, img, why, errlen);
	err = bw_image_check_hdr(h, len, why, errlen);
	err = err ?: bw_image_sig_check(buf, len, keys, &sig, why, errlen);
	if (err) {
		memset(img, 0, sizeof(*img));
		return err;
	}
	err = bw_image_check(buf, len, img, why, errlen);
	if (!err)
		img->sig = sig;
	return err;
}
