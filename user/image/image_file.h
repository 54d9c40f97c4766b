/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Images in files: written atomically, read with the header checked before
 * any more is read and, when keys are required, the signature checked
 * before anything reads the image's meaning (image.h, image_sign.h).
 */
#ifndef __BW_IMAGE_FILE_H
#define __BW_IMAGE_FILE_H

#include <stddef.h>

#include "image/image.h"
#include "image/sign_key.h"

/*
 * Writes len bytes to path atomically: a temporary file in the same
 * directory, fsync, rename over path, fsync of the directory. An existing
 * path that is not a regular file (a FIFO, a device node) is refused
 * before anything is written (bw_check_replaceable). Says what failed;
 * -errno.
 */
int bw_image_write_file(const char *path, const void *buf, size_t len);

/*
 * Reads and checks the image at path, a regular file (a FIFO or a device
 * is refused unopened): the header first, then only the bytes it says,
 * never more than an image may hold; then its signature against keys
 * (NULL or none: no signature required, but one it carries must hold for
 * the key it names), then the rest (bw_image_check_keys). img->sig says
 * who signed it. img->buf is the caller's to free (bw_image_free). Says
 * what is wrong, naming path ("PATH: refused: WHY"); -errno,
 * -BW_EKEYREJECTED for a signature refused.
 */
int bw_image_read_file_keys(const char *path, const struct bw_verify_keys *keys,
			    struct bw_image *img);

/* bw_image_read_file_keys with no signature required. */
int bw_image_read_file(const char *path, struct bw_image *img);

#endif /* __BW_IMAGE_FILE_H */
