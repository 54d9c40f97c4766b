/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Signed images: an Ed25519 signature (libsodium, detached) as the last
 * section of an image, after the list sections (image.h). No bpf().
 *
 *   ...          the header, the filter, the list sections (image.h)
 *   len - 112    struct bw_image_sig_sec: type, algorithm, the signer's
 *                key id and public key, the signature
 *
 * The header's flags have BW_IMAGE_F_SIG, its image_bytes counts the
 * section, and its crc32 covers every byte before it (with the crc field
 * zero). The signature covers every byte before the section as they are
 * in the file: the header (its crc included), the filter with its record
 * area (serial and time, BW_REC_IMAGE), the list sections. Ed25519 is
 * deterministic, so the same lists, flags and key give the same bytes.
 *
 * A reader that requires a signature (trusted keys given) checks it
 * before anything reads the image's meaning: only the header's sizes are
 * read first, to know which bytes to read. The signer must be one of the
 * trusted keys, by id and by its 32 bytes, and the signature must hold
 * for that key. A reader that requires none still checks that a signature
 * the image carries holds for the key it names (else the image is
 * corrupt), and says whose it is.
 */
#ifndef __BW_IMAGE_SIGN_H
#define __BW_IMAGE_SIGN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "image/image.h"
#include "image/sign_key.h"

#define BW_IMAGE_SIG_ED25519 1
/* A refused signature: unsigned where one is required, another key, forged. */
#define BW_EKEYREJECTED EKEYREJECTED

struct bw_image_sig_sec {
	__u32 type; /* BW_IMAGE_F_SIG */
	__u32 alg;  /* BW_IMAGE_SIG_ED25519 */
	__u8 key_id[BW_KEY_ID_BYTES];
	__u8 pk[BW_KEY_PK_BYTES];
	__u8 sig[64];
};

_Static_assert(sizeof(struct bw_image_sig_sec) == BW_IMAGE_SIG_BYTES,
	       "signature section is BW_IMAGE_SIG_BYTES");

/*
 * Signs the unsigned image *buf (*len bytes, as bw_image_encode_lists
 * wrote it) with k: the buffer grows by the section, the header says so
 * and its crc is made again. -ENOMEM (the image unchanged), -EINVAL for
 * one signed already.
 */
int bw_image_sign(void **buf, size_t *len, const struct bw_seckey *k);

/*
 * The signature of the len bytes at buf, an image whose header passed
 * bw_image_check_hdr against len, against keys (NULL or none: no
 * signature required): 0 with sig filled; -BW_EKEYREJECTED for an
 * unsigned image where keys are given, a signer that is not among them,
 * a signature that does not hold for the trusted key; -EINVAL for a
 * section that is not one, or a signature that does not hold for the key
 * it names when none is required. why says which, and names the keys.
 */
int bw_image_sig_check(const void *buf, size_t len,
		       const struct bw_verify_keys *keys,
		       struct bw_image_sig *sig, char *why, size_t errlen);

/*
 * bw_image_check with the signature checked first, right after the
 * header's sizes, against keys (NULL or none: no signature required):
 * -BW_EKEYREJECTED when it is refused; img->sig says whose it is.
 */
int bw_image_check_keys(void *buf, size_t len,
			const struct bw_verify_keys *keys, struct bw_image *img,
			char *why, size_t errlen);

#endif /* __BW_IMAGE_SIGN_H */
