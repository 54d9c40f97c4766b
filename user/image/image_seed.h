/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The seed of a build from its input (image_seed.c).
 */
#ifndef __BW_IMAGE_SEED_H
#define __BW_IMAGE_SEED_H

#include <stddef.h>
#include <linux/types.h>

/*
 * A seed from the lists' content, the --allow files' (nallow of them; with
 * none the seed is what format 1 derived) and the options (opts, optlen
 * bytes): zlib's crc32 over them, so the same lists and options give the
 * same seed and a changed list another. Lists are files ('-' cannot be
 * read twice: -EINVAL). Says what failed; -errno.
 */
int bw_image_seed(const char *const *lists, int n, const char *const *allow,
		  int nallow, const void *opts, size_t optlen, __u32 *seed);

#endif /* __BW_IMAGE_SEED_H */
